package server_test

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/storage"
)

// TestJSONAPIMustWrites: a create answers 201 with the resource and a
// Location its self link repeats; an update leaves out what it does not
// name (attributes and relationships); a to-many relationship given in an
// update is replaced whole; adding a member already there or removing one
// already gone succeeds without a duplicate; the refusals the
// specification names (404, 409, 403) and the members it says to ignore:
// @-members anywhere in a JSON:API request (atMemberCases).
func TestJSONAPIMustWrites(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		d := seedLinked(t, a)
		created := a.do(http.MethodPost, "/admin/api/accounts", jsonAPI, `{"data":{"type":"accounts","attributes":{"name":"Located"}}}`).want(t, 201)
		checkDocument(t, created, nil, oneObject)
		if loc, self := created.header.Get("Location"), created.value("data/links/self"); loc == "" || self != loc {
			t.Errorf("Location %q, data.links.self %v: the self link must match the Location", loc, self)
		}

		acc := "/admin/api/accounts/" + d.account
		before := a.do(http.MethodGet, acc, jsonAPI, "").want(t, 200)
		after := a.do(http.MethodPatch, acc, jsonAPI, `{"data":{"type":"accounts","id":"`+d.account+`","attributes":{"name":"Renamed"}}}`).want(t, 200)
		if after.value("data/attributes/externalId") != "M-1" {
			t.Errorf("an attribute the update left out became %v", after.value("data/attributes/externalId"))
		}
		for _, rel := range []string{"owner", "contacts", "defaultContact"} {
			was, is := before.value("data/relationships/"+rel+"/data"), after.value("data/relationships/"+rel+"/data")
			if !slices.Equal(identities(was), identities(is)) || len(identities(was)) == 0 {
				t.Errorf("relationship %s the update left out: %v became %v", rel, was, is)
			}
		}

		contacts := acc + "/relationships/contacts"
		members := func() []string {
			return identities(a.do(http.MethodGet, contacts, jsonAPI, "").want(t, 200).value("data"))
		}
		a.do(http.MethodPatch, acc, jsonAPI, `{"data":{"type":"accounts","id":"`+d.account+`","relationships":{"contacts":{"data":[{"type":"contacts","id":"`+d.other+`"}]}}}}`).want(t, 200)
		if got := members(); !slices.Equal(got, []string{"contacts:" + d.other}) {
			t.Errorf("after replacing the contacts by an update: %v", got)
		}
		a.do(http.MethodPost, contacts, jsonAPI, `{"data":[{"type":"contacts","id":"`+d.other+`"}]}`).want(t, 204)
		if got := members(); !slices.Equal(got, []string{"contacts:" + d.other}) {
			t.Errorf("after adding a member already there: %v", got)
		}
		a.do(http.MethodDelete, contacts, jsonAPI, `{"data":[{"type":"contacts","id":"`+d.contact+`"}]}`).want(t, 204)
		if got := members(); !slices.Equal(got, []string{"contacts:" + d.other}) {
			t.Errorf("after removing a member already gone: %v", got)
		}

		create := func(resource string) string { return `{"data":` + resource + `}` }
		runMustCases(t, a, []mustCase{
			{name: "update of a record that does not exist", method: http.MethodPatch, path: "/admin/api/accounts/999999", status: 404,
				body: `{"data":{"type":"accounts","id":"999999","attributes":{"name":"Ghost"}}}`},
			{name: "update whose type is not the endpoint's", method: http.MethodPatch, path: acc, status: 409, pointerInBody: true,
				body: `{"data":{"type":"contacts","id":"` + d.account + `","attributes":{}}}`},
			{name: "relationship write on a record that does not exist", method: http.MethodPost, path: "/admin/api/accounts/999999/relationships/contacts",
				body: `{"data":[{"type":"contacts","id":"` + d.other + `"}]}`, status: 404},
			{name: "member names are case sensitive", method: http.MethodPost, path: "/admin/api/accounts", status: 400, pointerInBody: true,
				body: create(`{"type":"accounts","attributes":{"Name":"Case"}}`), checks: []check{{path: "errors/0/title", want: "extra fields constraint"}}},
			{name: "a client id where the server makes them", method: http.MethodPost, path: "/admin/api/accounts", status: 403, pointerInBody: true,
				body:   create(`{"type":"accounts","id":"77","attributes":{"name":"Chosen"}}`),
				checks: []check{{path: "errors/0/title", want: "access denied exception"}, {path: "errors/0/source/pointer", want: "/data/id"}}},
			{name: "a client id where the server makes them, plain format", method: http.MethodPost, path: "/admin/api/accounts", status: 403,
				headers: plain, body: `{"id":77,"name":"Chosen"}`,
				checks: []check{{path: "0/title", want: "access denied exception"}, {path: "0/source", want: "id"}}},
			{name: "a client id where the server makes them, atomic", method: http.MethodPost, path: "/admin/api/operations", status: 403,
				headers: atomicHeaders, body: `{"atomic:operations":[{"op":"add","data":{"type":"accounts","id":"77","attributes":{"name":"Chosen"}}}]}`,
				checks: []check{{path: "errors/0/title", want: "access denied exception"}, {path: "errors/0/source/pointer", want: "/atomic:operations/0/data/id"}}},
			{name: "create naming a related resource that does not exist", method: http.MethodPost, path: "/admin/api/accounts", status: 404,
				body: create(`{"type":"accounts","attributes":{"name":"Dangling"},"relationships":{"owner":{"data":{"type":"users","id":"999999"}}}}`),
				checks: []check{{path: "errors/0/title", want: "not found http exception"}, {path: "errors/0/detail", want: "The entity does not exist."},
					{path: "errors/0/source/pointer", want: "/data/relationships/owner/data"}}},
			{name: "update naming a related resource that does not exist", method: http.MethodPatch, path: acc, status: 404,
				body: `{"data":{"type":"accounts","id":"` + d.account + `","relationships":{"owner":{"data":{"type":"users","id":"999999"}}}}}`,
				checks: []check{{path: "errors/0/title", want: "not found http exception"}, {path: "errors/0/detail", want: "The entity does not exist."},
					{path: "errors/0/source/pointer", want: "/data/relationships/owner/data"}}},
			{name: "update of a read-only resource", method: http.MethodPatch, path: "/admin/api/countries/US", status: 403,
				body:   `{"data":{"type":"countries","id":"US","attributes":{"name":"Elsewhere"}}}`,
				checks: []check{{path: "errors/0/title", want: "action not allowed exception"}, {path: "header:Allow", want: "OPTIONS, GET, HEAD"}}},
			{name: "update of a read-only relationship", method: http.MethodPatch, path: acc + "/relationships/organization", status: 403,
				body:   `{"data":{"type":"organizations","id":"1"}}`,
				checks: []check{{path: "errors/0/title", want: "action not allowed exception"}, {path: "header:Allow", want: "OPTIONS, GET, HEAD"}}},
			// Departures (docs/decisions.md §18): a member the specification
			// does not define is refused, naming it, not ignored, so that a
			// misspelt "attribute" or "relationship" never writes a record
			// without what the client sent; and a missing required
			// attribute's pointer names the attribute, as the user's
			// specification and Oro say.
			{name: "a top-level member the specification does not define is refused, named", method: http.MethodPost, path: "/admin/api/accounts", status: 400,
				body: `{"data":{"type":"accounts","attributes":{"name":"Top member"}},"extra":1}`, pointerInBody: true,
				checks: []check{{path: "errors/0/title", want: "request data constraint"}, {path: "errors/0/source/pointer", want: "/extra"}}},
			{name: "a misspelt attributes member is refused, named", method: http.MethodPost, path: "/admin/api/accounts", status: 400,
				body: create(`{"type":"accounts","attribute":{"name":"Typo"}}`), pointerInBody: true,
				checks: []check{{path: "errors/0/title", want: "request data constraint"}, {path: "errors/0/source/pointer", want: "/data/attribute"}}},
			{name: "the pointer of a missing attribute names the attribute", method: http.MethodPost, path: "/admin/api/accounts", status: 400,
				body:   create(`{"type":"accounts","attributes":{}}`),
				checks: []check{{path: "errors/0/title", want: "not blank constraint"}, {path: "errors/0/source/pointer", want: "/data/attributes/name"}}},
		})
		runMustCases(t, a, atMemberCases(t, a, d)) // api_atmembers_test.go
	})
}

// TestJSONAPIMustAtomicResults: an atomic request of mixed operations answers
// one result per operation in order, and no data, included or errors beside
// them; a created or changed resource comes as data, a relationship update
// and a removal as a result without data; a request document with data is
// refused.
func TestJSONAPIMustAtomicResults(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		gone := a.created(t, "/admin/api/contacts", `{"data":{"type":"contacts","attributes":{"lastName":"Removed"}}}`)
		r := a.atomic(`
			{"op":"add","data":{"type":"accounts","lid":"a","attributes":{"name":"Atomic musts"}}},
			{"op":"update","ref":{"type":"accounts","lid":"a","relationship":"owner"},"data":null},
			{"op":"add","data":{"type":"contacts","lid":"c","attributes":{"lastName":"Atomic"}}},
			{"op":"update","ref":{"type":"accounts","lid":"a","relationship":"contacts"},"data":[{"type":"contacts","lid":"c"}]},
			{"op":"update","ref":{"type":"accounts","lid":"a"},"data":{"type":"accounts","lid":"a","attributes":{"name":"Atomic musts 2"}}},
			{"op":"remove","ref":{"type":"contacts","id":"`+gone+`"}}`).want(t, 200)
		checkDocument(t, r, nil, anyPrimary)
		for _, member := range []string{"data", "included", "errors"} {
			if hasKey(r.doc, member) {
				t.Errorf("an answer of the extension holds %s", member)
			}
		}
		results, _ := r.value("atomic:results").([]any)
		withData := []bool{true, false, true, false, true, false}
		if len(results) != len(withData) {
			t.Fatalf("%d results for %d operations\n%s", len(results), len(withData), r.body)
		}
		for i, res := range results {
			m, _ := res.(map[string]any)
			if _, has := m["data"]; has != withData[i] {
				t.Errorf("result %d: data present %v, want %v\n%s", i, has, withData[i], r.body)
			}
		}
		if r.value("atomic:results/4/data/attributes/name") != "Atomic musts 2" || r.value("atomic:results/0/data/id") != r.value("atomic:results/4/data/id") {
			t.Errorf("the update's result is not the record added first, renamed\n%s", r.body)
		}
		a.do(http.MethodGet, "/admin/api/contacts/"+gone, jsonAPI, "").want(t, 404)
		// A document of the extension holds no data or included.
		a.do(http.MethodPost, "/admin/api/operations", atomicHeaders,
			`{"data":{"type":"accounts"},"atomic:operations":[{"op":"add","data":{"type":"accounts","attributes":{"name":"x"}}}]}`).want(t, 400)
	})
}

// cursorProfile is the URI of the cursor-pagination profile (its error
// types append to it), and cursorMediaType the Content-Type of a cursor page.
const (
	cursorProfile   = "https://jsonapi.org/profiles/ethanresnick/cursor-pagination"
	cursorMediaType = `application/vnd.api+json; profile="` + cursorProfile + `/"`
)

// TestJSONAPIMustCursorPages covers the cursor-pagination profile's MUSTs
// that TestCursorWalks and TestCursorErrors leave out: the default page
// size, pages of the used size, an empty page after a cursor nothing follows
// any more; and those the server does not meet yet.
func TestJSONAPIMustCursorPages(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		rows := make([]storage.Row, 23)
		for i := range rows {
			rows[i] = storage.Row{"name": fmt.Sprintf("Cursor %02d", i)}
		}
		ids := seedRows(t, a.store, "accounts", rows...)
		if got := len(dataIDs(t, a.do(http.MethodGet, "/admin/api/accounts?page[after]=", jsonAPI, "").want(t, 200))); got != 10 {
			t.Errorf("the default page holds %d records, want 10", got)
		}
		var sizes []int
		for next := "/admin/api/accounts?page[size]=4&page[after]="; next != ""; {
			r := a.do(http.MethodGet, next, jsonAPI, "").want(t, 200)
			sizes = append(sizes, len(dataIDs(t, r)))
			link, _ := r.value("links/next").(string)
			next = strings.TrimPrefix(link, a.base)
		}
		if !slices.Equal(sizes, []int{4, 4, 4, 4, 4, 3}) {
			t.Errorf("pages of %v records, want 5 of the used size 4, then the 3 left", sizes)
		}
		first := a.do(http.MethodGet, "/admin/api/accounts?page[size]=20&page[after]=", jsonAPI, "").want(t, 200)
		next, _ := first.value("links/next").(string)
		a.do(http.MethodDelete, "/admin/api/accounts?filter[id]="+strings.Join(ids[20:], ","), jsonAPI, "").want(t, 204)
		if r := a.do(http.MethodGet, strings.TrimPrefix(next, a.base), jsonAPI, "").want(t, 200); len(dataIDs(t, r)) != 0 {
			t.Errorf("after the last record: %v, want an empty page", dataIDs(t, r))
		}

		runMustCases(t, a, []mustCase{
			{name: "the profile is named in Content-Type", path: "/admin/api/accounts?page[size]=2&page[after]=", status: 200, primary: array,
				also: func(t *testing.T, r *result) {
					if ct := r.header.Get("Content-Type"); ct != cursorMediaType {
						t.Errorf("Content-Type %q names no profile", ct)
					}
				}},
			{name: "page[size] is digits only", path: "/admin/api/accounts?page[size]=%2B5&page[after]=", status: 400,
				checks: []check{{path: "errors/0/source/parameter", want: "page[size]"}, {path: "errors/0/detail", want: `Expected integer value. Given "+5".`}}},
			{name: "max page size exceeded has its type link", path: "/admin/api/accounts?page[size]=1001&page[after]=", status: 400,
				checks: []check{{path: "errors/0/links/type", want: cursorProfile + "/max-size-exceeded"}},
			},
			{name: "range pagination not supported has its type link", path: "/admin/api/accounts?page[after]=&page[before]=", status: 400,
				checks: []check{{path: "errors/0/links/type", want: cursorProfile + "/range-pagination-not-supported"}},
			},
		})
	})
}
