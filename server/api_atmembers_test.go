package server_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// JSON:API 1.1 says to ignore @-members: a request holding some must behave
// exactly as the same request without them. Each atRequest is a mustCase
// whose also-check shows it: the request without its @-members
// (withoutAtMembers) gets the same status and the same answer, and leaves
// the same record behind, read back with what it relates to; sameWritten
// compares them but for what two alike writes cannot share (normalizer).

// atMemberCases are the requests with @-members of TestJSONAPIMustWrites,
// on the records of seedLinked, and the plain format's refusal of one.
func atMemberCases(t *testing.T, a *api, d linked) []mustCase {
	t.Helper()
	twins := func() atTwins {
		body := `{"data":{"type":"accounts","attributes":{"name":"Twin","externalId":null},
			"relationships":{"owner":{"data":{"type":"users","id":"` + d.user + `"}},"contacts":{"data":[{"type":"contacts","id":"` + d.contact + `"}]}}}}`
		return atTwins{a.created(t, "/admin/api/accounts", body), a.created(t, "/admin/api/accounts", body)}
	}
	contact := func(id string) string { return `{"type":"contacts","id":"` + id + `"}` }
	requests := []atRequest{
		{name: "an @-member is no attribute", method: http.MethodPost, path: "/admin/api/accounts", status: 201,
			body: `{"data":{"type":"accounts","attributes":{"name":"At member","@context":"https://schema.org"}}}`},
		{name: "an @-member at the top level is ignored", method: http.MethodPost, path: "/admin/api/accounts", status: 201,
			body: `{"@context":"https://schema.org","data":{"type":"accounts","attributes":{"name":"At top"}},"\u0040graph":[{"@id":"x"}]}`},
		{name: "an @-member of a resource object is ignored", method: http.MethodPost, path: "/admin/api/accounts", status: 201,
			body: `{"data":{"@id":"https://example.org/a","type":"accounts","attributes":{"name":"At resource"},"@type":"Organization"}}`},
		{name: "an @-member of relationships is no relationship", method: http.MethodPost, path: "/admin/api/accounts", status: 201,
			body: `{"data":{"type":"accounts","attributes":{"name":"At relationships"},
				"relationships":{"@context":{"data":null},"owner":{"data":{"type":"users","id":"` + d.user + `"}}}}}`},
		{name: "an @-member of a relationship object is ignored", method: http.MethodPost, path: "/admin/api/accounts", status: 201,
			body: `{"data":{"type":"accounts","attributes":{"name":"At relationship"},
				"relationships":{"owner":{"@x":1,"data":{"type":"users","id":"` + d.user + `"}}}}}`},
		{name: "an @-member of a related identifier is ignored", method: http.MethodPost, path: "/admin/api/accounts", status: 201,
			body: `{"data":{"type":"accounts","attributes":{"name":"At identifier"},"relationships":{
				"contacts":{"data":[{"type":"contacts","@id":"x","id":"` + d.contact + `"},` + contact(d.other) + `]},
				"defaultContact":{"data":{"type":"contacts","id":"` + d.other + `","@id":"y"}}}}}`},
		{name: "@-members of an included record are ignored", method: http.MethodPost, path: "/admin/api/accounts", status: 201,
			body: `{"data":{"type":"accounts","attributes":{"name":"At included"},"relationships":{"contacts":{"data":[{"type":"contacts","id":"new-1"}]}}},
				"included":[{"@type":"Person","type":"contacts","id":"new-1","attributes":{"lastName":"Included","@x":1},
					"relationships":{"owner":{"@y":2,"data":{"type":"users","id":"` + d.user + `","@z":3}}}}]}`},
		{name: "@-members of an update are ignored", method: http.MethodPatch, path: "/admin/api/accounts/{twin}", status: 200, twins: twins(),
			body: `{"@context":{},"data":{"type":"accounts","id":"{twin}","@id":"x","attributes":{"name":"At update","@y":1},"meta":{"@z":2},
				"relationships":{"@r":{"data":null},"contacts":{"data":[{"type":"contacts","id":"` + d.other + `","@w":3}]}}}}`},
		{name: "@-members of an upsert are ignored", method: http.MethodPost, path: "/admin/api/accounts", status: 201,
			twins: atTwins{"AT-UPSERT-1", "AT-UPSERT-2"},
			body:  `{"data":{"type":"accounts","attributes":{"name":"At upsert","externalId":"{twin}","@x":1},"meta":{"upsert":["externalId"],"@y":2}}}`},
		{name: "@-members of a relationship request are ignored", method: http.MethodPost, path: "/admin/api/accounts/{twin}/relationships/contacts",
			status: 204, twins: twins(), read: "/admin/api/accounts/{twin}",
			body: `{"@context":1,"data":[{"type":"contacts","id":"` + d.other + `","@id":"x"}]}`},
		{name: "@-members of an atomic operation are ignored", method: http.MethodPost, path: "/admin/api/operations", headers: atomicHeaders, status: 200,
			body: `{"@context":{},"atomic:operations":[
				{"op":"add","@x":1,"data":{"type":"accounts","lid":"a","@y":2,"attributes":{"name":"At atomic","@z":3}},"meta":{"@m":4}},
				{"op":"update","ref":{"type":"accounts","lid":"a","relationship":"contacts","@r":5},"data":[{"type":"contacts","id":"` + d.contact + `","@i":6}]}]}`},
		{name: "@-members of a batch are ignored", method: http.MethodPatch, path: "/admin/api/accounts", status: 200,
			headers: map[string]string{"Accept": "application/vnd.api+json", "Content-Type": "application/vnd.api+json", "X-Mode": "sync"},
			body: `{"@context":{},"data":[{"type":"accounts","@id":"x","attributes":{"name":"At batch","@y":1},
				"relationships":{"@r":{"data":null},"contacts":{"data":[{"type":"contacts","id":"` + d.contact + `","@i":2}]}}}]}`},
	}
	known := map[string]bool{"accounts " + d.account: true, "accounts " + d.empty: true, "contacts " + d.contact: true, "contacts " + d.other: true}
	out := make([]mustCase, 0, len(requests)+1)
	for _, r := range requests {
		out = append(out, r.mustCase(a, known))
	}
	return append(out, mustCase{name: "an @-member of a plain body is an unknown field", method: http.MethodPost, path: "/admin/api/accounts",
		headers: plain, body: `{"name":"Plain at","@context":"https://schema.org"}`, status: 400,
		checks: []check{{path: "0/title", want: "extra fields constraint"}, {path: "0/detail", want: `This form should not contain extra fields: "@context".`}}})
}

// atRequest is a request with @-members and what the mustCase of it needs.
type atRequest struct {
	name, method, path string
	headers            map[string]string // JSON:API when nil
	body               string
	status             int
	// twins stand for "{twin}" in path, body and read (see atTwins).
	twins atTwins
	// read is the address of the record the request writes, or "" for the
	// record its answer names (writtenAddress).
	read string
}

// atTwins stand for "{twin}": the first in the request with @-members, the
// second in the one without, so that the second does not meet what the
// first wrote: two accounts made alike (their ids), or two values of an
// attribute (an upsert's key).
type atTwins [2]string

// mustCase is the case of r: known are the records ("type id") that
// existed before, whose ids an answer keeps when normalized.
func (r atRequest) mustCase(a *api, known map[string]bool) mustCase {
	at := func(s string, i int) string { return strings.ReplaceAll(s, "{twin}", r.twins[i]) }
	h := r.headers
	if h == nil {
		h = jsonAPI
	}
	return mustCase{name: r.name, method: r.method, path: at(r.path, 0), headers: h, body: at(r.body, 0), status: r.status,
		also: func(t *testing.T, withAt *result) {
			sub := *a
			sub.t = t
			without := sub.do(r.method, at(r.path, 1), h, withoutAtMembers(t, at(r.body, 1))).want(t, r.status)
			sameWritten(t, r.twins, known, withAt, without)
			readOf := func(res *result, i int) string {
				if r.read != "" {
					return at(r.read, i)
				}
				return writtenAddress(t, a, res)
			}
			// The related records, but not their own lists of accounts,
			// which hold the twins and the other cases' records too.
			const include = "?include=contacts,defaultContact,owner&fields[contacts]=firstName,lastName,owner&fields[users]=username"
			sameWritten(t, r.twins, known, sub.do(http.MethodGet, readOf(withAt, 0)+include, jsonAPI, "").want(t, 200),
				sub.do(http.MethodGet, readOf(without, 1)+include, jsonAPI, "").want(t, 200))
		}}
}

// writtenAddress is the address of the record an answer names, relative to
// the server: its Location, or the self link of its data (of the first
// record of a batch, of the first atomic result).
func writtenAddress(t *testing.T, a *api, r *result) string {
	t.Helper()
	link := r.header.Get("Location")
	for _, at := range []string{"data/links/self", "data/0/links/self", "atomic:results/0/data/links/self"} {
		if link == "" {
			link, _ = r.value(at).(string)
		}
	}
	if link == "" {
		t.Fatalf("the answer names no record it wrote\n%s", r.body)
	}
	return strings.TrimPrefix(link, a.base)
}

// sameWritten fails unless the two answers are the same document once
// normalized.
func sameWritten(t *testing.T, twins atTwins, known map[string]bool, withAt, without *result) {
	t.Helper()
	x := (&normalizer{twin: twins[0], known: known}).value(withAt.doc, "")
	y := (&normalizer{twin: twins[1], known: known}).value(without.doc, "")
	if !reflect.DeepEqual(x, y) {
		jx, _ := json.Marshal(x)
		jy, _ := json.Marshal(y)
		t.Errorf("with @-members and without, the answers differ\nwith:    %s\nwithout: %s", jx, jy)
	}
}

// normalizer copies an answer without what two alike writes cannot share:
// links and times are left out (links name ids); the twin becomes
// "{twin}", as an account's id or an attribute's value; the id of an
// account or contact that is neither the twin nor known (one the request
// made) becomes "new N", N counting in order of appearance (members in
// name order). Every other id is kept, so that a different related record
// still shows.
type normalizer struct {
	twin  string
	known map[string]bool
	fresh map[string]string // "type id" of a record the request made → "new N"
}

func (n *normalizer) value(v any, parent string) any {
	switch x := v.(type) {
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = n.value(e, parent)
		}
		return out
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := map[string]any{}
		for _, k := range keys {
			switch k {
			case "links", "createdAt", "updatedAt":
			case "id":
				typ, _ := x["type"].(string)
				id, _ := x["id"].(string)
				out[k] = n.id(typ, id)
			default:
				out[k] = n.value(x[k], k)
			}
		}
		return out
	case string:
		if n.twin != "" && x == n.twin && parent != "type" {
			return "{twin}"
		}
	}
	return v
}

// id is the normalized id of a resource object or identifier.
func (n *normalizer) id(typ, id string) string {
	key := typ + " " + id
	switch {
	case typ == "accounts" && id == n.twin:
		return "{twin}"
	case typ != "accounts" && typ != "contacts" || n.known[key]:
		return id
	}
	if n.fresh == nil {
		n.fresh = map[string]string{}
	}
	if _, ok := n.fresh[key]; !ok {
		n.fresh[key] = "new " + strconv.Itoa(len(n.fresh)+1)
	}
	return n.fresh[key]
}

// withoutAtMembers is body without its @-members, at every depth: the
// request the server must take it for. (The bodies of these tests hold no
// @-member inside an attribute's own value, which is the application's.)
func withoutAtMembers(t *testing.T, body string) string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(body))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("%v\n%s", err, body)
	}
	var strip func(any) any
	strip = func(v any) any {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if strings.HasPrefix(k, "@") {
					delete(x, k)
				} else {
					x[k] = strip(e)
				}
			}
		case []any:
			for i, e := range x {
				x[i] = strip(e)
			}
		}
		return v
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(strip(v)); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(b.Bytes(), []byte(`"@`)) || b.String() == body {
		t.Fatalf("%s still holds an @-member, or held none", b.String())
	}
	return b.String()
}
