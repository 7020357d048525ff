package server_test

import (
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// Conditional requests (issue 18): record versions, ETag, If-None-Match,
// If-Match and batch items' meta.version.

// recordTag matches the ETag of one record: "<version>-<shape>".
var recordTag = regexp.MustCompile(`^"([0-9]+)-[0-9a-f]{4}"$`)

// with is jsonAPI plus the given headers.
func with(extra map[string]string) map[string]string {
	h := map[string]string{}
	for k, v := range jsonAPI {
		h[k] = v
	}
	for k, v := range extra {
		h[k] = v
	}
	return h
}

// etag reads a record's ETag (and fails unless it is one of a record).
func (a *api) etag(t *testing.T, path string) string {
	t.Helper()
	r := a.do(http.MethodGet, path, jsonAPI, "").want(t, 200)
	tag := r.header.Get("ETag")
	if !recordTag.MatchString(tag) {
		t.Fatalf("GET %s: ETag %q is not a record's strong tag", path, tag)
	}
	return tag
}

// version reads the version a record's ETag names.
func (a *api) version(t *testing.T, path string) int64 {
	t.Helper()
	v, _ := strconv.ParseInt(recordTag.FindStringSubmatch(a.etag(t, path))[1], 10, 64)
	return v
}

func TestRecordVersionCountsEveryChange(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		acc := a.created(t, "/admin/api/accounts", `{"data":{"type":"accounts","attributes":{"name":"Versioned","externalId":"V-1"}}}`)
		other := a.created(t, "/admin/api/accounts", `{"data":{"type":"accounts","attributes":{"name":"Referrer"}}}`)
		contact := a.created(t, "/admin/api/contacts", `{"data":{"type":"contacts","attributes":{"lastName":"Member"}}}`)
		accPath := "/admin/api/accounts/" + acc
		if v := a.version(t, accPath); v != 1 {
			t.Fatalf("a new record is version %d, want 1", v)
		}
		contacts := `{"data":[{"type":"contacts","id":"` + contact + `"}]}`
		tests := []struct {
			name    string
			method  string
			path    string
			headers map[string]string
			body    string
			status  int
			watch   string // the record whose version must grow (default: the account)
			exactly bool   // by exactly one
		}{
			{name: "PATCH attributes", method: http.MethodPatch, path: accPath,
				body: `{"data":{"type":"accounts","id":"` + acc + `","attributes":{"name":"Renamed"}}}`, status: 200, exactly: true},
			{name: "PATCH plain", method: http.MethodPatch, path: accPath, headers: plain, body: `{"name":"Plain"}`, status: 200, exactly: true},
			{name: "PATCH to-many in the body", method: http.MethodPatch, path: accPath,
				body: `{"data":{"type":"accounts","id":"` + acc + `","relationships":{"contacts":` + contacts + `}}}`, status: 200},
			{name: "to-one relationship", method: http.MethodPatch, path: accPath + "/relationships/referredBy",
				body: `{"data":{"type":"accounts","id":"` + other + `"}}`, status: 204, exactly: true},
			{name: "to-many remove", method: http.MethodDelete, path: accPath + "/relationships/contacts", body: contacts, status: 204, exactly: true},
			{name: "to-many add", method: http.MethodPost, path: accPath + "/relationships/contacts", body: contacts, status: 204, exactly: true},
			{name: "to-many replace", method: http.MethodPatch, path: accPath + "/relationships/contacts", body: `{"data":[]}`, status: 204, exactly: true},
			{name: "upsert that updates", method: http.MethodPost, path: "/admin/api/accounts",
				body: `{"data":{"type":"accounts","meta":{"upsert":["externalId"]},"attributes":{"name":"Upserted","externalId":"V-1"}}}`, status: 200, exactly: true},
			{name: "synchronous batch update", method: http.MethodPatch, path: "/admin/api/accounts", headers: syncMode,
				body: `{"data":[{"type":"accounts","id":"` + acc + `","meta":{"update":true},"attributes":{"name":"Batched"}}]}`, status: 200, exactly: true},
			{name: "included record updated", method: http.MethodPatch, path: "/admin/api/contacts/" + contact,
				body: `{"data":{"type":"contacts","id":"` + contact + `","relationships":{"accounts":{"data":[{"type":"accounts","id":"` + acc + `"}]}}},
					"included":[{"type":"accounts","id":"` + acc + `","meta":{"update":true},"attributes":{"name":"Included"}}]}`, status: 200},
			{name: "the member of a join-table change", method: http.MethodPost, path: "/admin/api/contacts/" + contact + "/relationships/accounts",
				body: `{"data":[{"type":"accounts","id":"` + other + `"}]}`, status: 204, watch: "/admin/api/contacts/" + contact, exactly: true},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				watch := tc.watch
				if watch == "" {
					watch = accPath
				}
				before := a.version(t, watch)
				h := tc.headers
				if h == nil {
					h = jsonAPI
				}
				a.do(tc.method, tc.path, h, tc.body).want(t, tc.status)
				after := a.version(t, watch)
				if after <= before || (tc.exactly && after != before+1) {
					t.Errorf("version %d after the change, was %d", after, before)
				}
			})
		}
		t.Run("a read changes nothing", func(t *testing.T) {
			before := a.version(t, accPath)
			if after := a.version(t, accPath); after != before {
				t.Errorf("version %d after a read, was %d", after, before)
			}
		})
	})
}

func TestETagAndIfNoneMatch(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		acc := a.created(t, "/admin/api/accounts", `{"data":{"type":"accounts","attributes":{"name":"Tagged"}}}`)
		path := "/admin/api/accounts/" + acc
		tag := a.etag(t, path)
		plainTag := a.do(http.MethodGet, path, plain, "").want(t, 200).header.Get("ETag")
		fieldsTag := a.do(http.MethodGet, path+"?fields[accounts]=name", jsonAPI, "").want(t, 200).header.Get("ETag")
		if plainTag == tag || fieldsTag == tag || !recordTag.MatchString(plainTag) {
			t.Errorf("representations share a tag: %s, plain %s, fields %s", tag, plainTag, fieldsTag)
		}
		if v := recordTag.FindStringSubmatch(plainTag); v == nil || !strings.HasPrefix(tag, `"`+v[1]+"-") {
			t.Errorf("the plain tag %s names another version than %s", plainTag, tag)
		}
		for _, tc := range []struct {
			name, header string
			status       int
		}{
			{"current tag", tag, 304},
			{"weak form of the current tag", "W/" + tag, 304},
			{"among others", `"1-0000", ` + tag, 304},
			{"star", "*", 304},
			{"another tag", `"999-abcd"`, 200},
			{"another representation's tag", plainTag, 200},
			{"malformed", `17-abcd`, 400},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := a.do(http.MethodGet, path, with(map[string]string{"If-None-Match": tc.header}), "").want(t, tc.status)
				switch tc.status {
				case 304:
					if len(r.body) != 0 || r.header.Get("ETag") != tag {
						t.Errorf("304 with body %q, ETag %q", r.body, r.header.Get("ETag"))
					}
				case 400:
					checkValues(t, r, map[string]any{"errors/0/source/header": "If-None-Match"})
				}
			})
		}
		a.do(http.MethodPatch, path, jsonAPI, `{"data":{"type":"accounts","id":"`+acc+`","attributes":{"name":"Changed"}}}`).want(t, 200)
		r := a.do(http.MethodGet, path, with(map[string]string{"If-None-Match": tag}), "").want(t, 200)
		if r.header.Get("ETag") == tag {
			t.Errorf("the tag %s stayed after a change", tag)
		}

		// Members linked from the other side (the contact's endpoint, a
		// join table) leave the account's version alone, but its document
		// shows them: its tag changes, and If-Match on the version holds.
		t.Run("members changed from the other side", func(t *testing.T) {
			before := a.etag(t, path)
			contact := a.created(t, "/admin/api/contacts", `{"data":{"type":"contacts","attributes":{"lastName":"Other side"}}}`)
			a.do(http.MethodPost, "/admin/api/contacts/"+contact+"/relationships/accounts", jsonAPI,
				`{"data":[{"type":"accounts","id":"`+acc+`"}]}`).want(t, 204)
			a.do(http.MethodGet, path, with(map[string]string{"If-None-Match": before}), "").want(t, 200)
			a.do(http.MethodPatch, path, with(map[string]string{"If-Match": before}),
				`{"data":{"type":"accounts","id":"`+acc+`","attributes":{"name":"Same version"}}}`).want(t, 200)
		})
		t.Run("inverse members", func(t *testing.T) {
			bu := a.created(t, "/admin/api/businessunits", `{"data":{"type":"businessunits","attributes":{"name":"Inverse"}}}`)
			buPath := "/admin/api/businessunits/" + bu
			before := a.etag(t, buPath)
			user := a.created(t, "/admin/api/users", `{"data":{"type":"users","attributes":{"username":"etag-user","email":"etag@example.com",
				"firstName":"E","lastName":"Tag","password":"correct horse battery"}}}`)
			a.do(http.MethodPatch, "/admin/api/users/"+user+"/relationships/owner", jsonAPI,
				`{"data":{"type":"businessunits","id":"`+bu+`"}}`).want(t, 204)
			a.do(http.MethodGet, buPath, with(map[string]string{"If-None-Match": before}), "").want(t, 200)
		})
	})
}

func TestIfMatch(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		acc := a.created(t, "/admin/api/accounts", `{"data":{"type":"accounts","attributes":{"name":"Guarded"}}}`)
		contact := a.created(t, "/admin/api/contacts", `{"data":{"type":"contacts","attributes":{"lastName":"Guarded"}}}`)
		path := "/admin/api/accounts/" + acc
		rename := func(name string) string {
			return `{"data":{"type":"accounts","id":"` + acc + `","attributes":{"name":"` + name + `"}}}`
		}
		stale := a.etag(t, path)
		a.do(http.MethodPatch, path, jsonAPI, rename("Moved on")).want(t, 200)
		current := a.etag(t, path)
		weak := "W/" + current
		members := `{"data":[{"type":"contacts","id":"` + contact + `"}]}`
		refused := []struct {
			name, method, path, header, body string
		}{
			{"stale PATCH", http.MethodPatch, path, stale, rename("Lost")},
			{"malformed PATCH", http.MethodPatch, path, `not a tag`, rename("Lost")},
			{"unterminated tag", http.MethodPatch, path, `"2-abcd`, rename("Lost")},
			{"empty list", http.MethodPatch, path, `,`, rename("Lost")},
			{"weak tag", http.MethodPatch, path, weak, rename("Lost")},
			{"missing record", http.MethodPatch, "/admin/api/accounts/999999", "*", `{"data":{"type":"accounts","id":"999999","attributes":{"name":"Ghost"}}}`},
			{"stale DELETE", http.MethodDelete, path, stale, ""},
			{"DELETE of a missing record", http.MethodDelete, "/admin/api/accounts/999999", current, ""},
			{"stale relationship add", http.MethodPost, path + "/relationships/contacts", stale, members},
			{"stale relationship replace", http.MethodPatch, path + "/relationships/contacts", stale, members},
			{"stale relationship remove", http.MethodDelete, path + "/relationships/contacts", stale, members},
			{"stale to-one", http.MethodPatch, path + "/relationships/referredBy", stale, `{"data":null}`},
		}
		for _, tc := range refused {
			t.Run(tc.name, func(t *testing.T) {
				before := a.etag(t, path)
				r := a.do(tc.method, tc.path, with(map[string]string{"If-Match": tc.header}), tc.body).want(t, 412)
				checkValues(t, r, map[string]any{"errors/0/status": "412", "errors/0/title": "precondition failed http exception",
					"errors/0/source/header": "If-Match"})
				if after := a.etag(t, path); after != before {
					t.Errorf("a refused write changed the record: %s, was %s", after, before)
				}
			})
		}
		t.Run("a list over several header lines", func(t *testing.T) {
			k, err := contractOnce()
			if err != nil {
				t.Fatal(err)
			}
			body := rename("Two lines")
			req, _ := http.NewRequest(http.MethodPatch, a.base+path, strings.NewReader(body))
			req.Header.Set("Content-Type", "application/vnd.api+json")
			req.Header.Set("Authorization", "Bearer "+a.token(a.as))
			req.Header.Add("If-Match", stale)
			req.Header.Add("If-Match", a.etag(t, path))
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(res.Body)
			res.Body.Close()
			k.check(t, req, []byte(body), res, raw)
			if res.StatusCode != 200 {
				t.Fatalf("status %d, want 200 (the second line names the current version)\n%s", res.StatusCode, raw)
			}
		})
		t.Run("plain error document", func(t *testing.T) {
			r := a.do(http.MethodPatch, path, with(map[string]string{"If-Match": stale, "Accept": "application/json", "Content-Type": "application/json"}),
				`{"name":"Lost"}`).want(t, 412)
			checkValues(t, r, map[string]any{"0/source": "If-Match"})
		})
		current = a.etag(t, path)
		accepted := []struct {
			name, method, path, header, body string
			status                           int
		}{
			{"current tag", http.MethodPatch, path, current, rename("One"), 200},
			{"star", http.MethodPatch, path, "*", rename("Two"), 200},
			{"tag of the plain representation", http.MethodPatch, path, "", rename("Three"), 200},
			{"relationship add", http.MethodPost, path + "/relationships/contacts", "", members, 204},
			{"relationship remove", http.MethodDelete, path + "/relationships/contacts", "", members, 204},
			{"delete", http.MethodDelete, path, "", "", 204},
		}
		for _, tc := range accepted {
			t.Run(tc.name, func(t *testing.T) {
				h := tc.header
				switch {
				case tc.name == "tag of the plain representation":
					h = a.do(http.MethodGet, path, plain, "").want(t, 200).header.Get("ETag")
				case h == "":
					h = `"0-0000", ` + a.etag(t, path) // one of a list matching is enough
				}
				a.do(tc.method, tc.path, with(map[string]string{"If-Match": h}), tc.body).want(t, tc.status)
			})
		}
		a.do(http.MethodGet, path, jsonAPI, "").want(t, 404)
	})
}

// TestIfMatchConcurrentWriters: two clients read the same version and write
// it at once; exactly one wins, the other gets 412, on every round.
func TestIfMatchConcurrentWriters(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		acc := a.created(t, "/admin/api/accounts", `{"data":{"type":"accounts","attributes":{"name":"Raced"}}}`)
		path := "/admin/api/accounts/" + acc
		k, err := contractOnce()
		if err != nil {
			t.Fatal(err)
		}
		token := a.token(a.as)
		for round := 0; round < 25; round++ {
			tag := a.etag(t, path)
			type answer struct {
				req  *http.Request
				body string
				res  *http.Response
				raw  []byte
				err  error
			}
			answers := make([]answer, 2)
			var wg sync.WaitGroup
			start := make(chan struct{})
			for i := range answers {
				body := `{"data":{"type":"accounts","id":"` + acc + `","attributes":{"name":"Writer ` + strconv.Itoa(i) + `"}}}`
				if i == 1 {
					body = `{"data":{"type":"accounts","id":"` + acc + `","relationships":{"contacts":{"data":[]}}}}` // a write of another kind
				}
				req, _ := http.NewRequest(http.MethodPatch, a.base+path, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/vnd.api+json")
				req.Header.Set("Accept", "application/vnd.api+json")
				req.Header.Set("Authorization", "Bearer "+token)
				req.Header.Set("If-Match", tag)
				answers[i] = answer{req: req, body: body}
				wg.Add(1)
				go func(ans *answer) {
					defer wg.Done()
					<-start
					ans.res, ans.err = http.DefaultClient.Do(ans.req)
					if ans.err == nil {
						ans.raw, ans.err = io.ReadAll(ans.res.Body)
						ans.res.Body.Close()
					}
				}(&answers[i])
			}
			close(start)
			wg.Wait()
			statuses := map[int]int{}
			for _, ans := range answers {
				if ans.err != nil {
					t.Fatal(ans.err)
				}
				k.check(t, ans.req, []byte(ans.body), ans.res, ans.raw)
				statuses[ans.res.StatusCode]++
			}
			if statuses[200] != 1 || statuses[412] != 1 {
				t.Fatalf("round %d: statuses %v, want one 200 and one 412", round, statuses)
			}
			if v := a.etag(t, path); v == tag {
				t.Fatalf("round %d: the winner's write did not count", round)
			}
		}
	})
}

func TestBatchItemVersion(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		acc := a.created(t, "/admin/api/accounts", `{"data":{"type":"accounts","attributes":{"name":"Batched"}}}`)
		path := "/admin/api/accounts/" + acc
		v := a.version(t, path)
		item := func(version int64, name string) string {
			return `{"type":"accounts","id":"` + acc + `","meta":{"update":true,"version":` + strconv.FormatInt(version, 10) + `},"attributes":{"name":"` + name + `"}}`
		}
		stale := a.do(http.MethodPatch, "/admin/api/accounts", syncMode, `{"data":[`+item(v+5, "Stale")+`]}`).want(t, 409)
		checkValues(t, stale, map[string]any{"errors/0/title": "conflict constraint", "errors/0/source/pointer": "/data/0/meta/version"})
		all := a.do(http.MethodPatch, "/admin/api/accounts", syncMode,
			`{"data":[{"type":"accounts","attributes":{"name":"New in the same batch"}},`+item(v+5, "Stale")+`]}`).want(t, 409)
		checkValues(t, all, map[string]any{"errors/0/source/pointer": "/data/1/meta/version"})
		if got := a.version(t, path); got != v {
			t.Fatalf("a refused batch changed the record: version %d, was %d", got, v)
		}
		a.do(http.MethodPatch, "/admin/api/accounts", syncMode, `{"data":[`+item(v, "Current")+`]}`).want(t, 200)
		if got := a.version(t, path); got != v+1 {
			t.Errorf("version %d after the batch update, want %d", got, v+1)
		}

		r := a.do(http.MethodPatch, "/admin/api/accounts", jsonAPI, `{"data":[`+item(v, "Stale async")+`]}`).want(t, 202)
		id, _ := get(r.doc, "data/id").(string)
		done := a.awaitOperation(t, id)
		checkValues(t, done, map[string]any{"data/attributes/summary/errorCount": 1.0, "data/attributes/summary/writeCount": 0.0})
		errs := a.do(http.MethodGet, "/admin/api/asyncoperations/"+id+"/errors", jsonAPI, "").want(t, 200)
		checkValues(t, errs, map[string]any{"data/0/attributes/source/pointer": "/data/0/meta/version", "data/0/attributes/status": 409.0})

		for _, tc := range []struct{ name, meta, pointer string }{
			{"with upsert", `{"upsert":["externalId"],"version":1}`, "/data/0/meta"},
			{"on a create", `{"version":1}`, "/data/0/meta/version"},
			{"not a number", `{"update":true,"version":"1"}`, "/data/0/meta/version"},
			{"zero", `{"update":true,"version":0}`, "/data/0/meta/version"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := a.do(http.MethodPatch, "/admin/api/accounts", syncMode,
					`{"data":[{"type":"accounts","id":"`+acc+`","meta":`+tc.meta+`,"attributes":{"name":"Bad","externalId":"E-bad"}}]}`)
				if r.status != 400 {
					t.Fatalf("status %d, want 400\n%s", r.status, r.body)
				}
				checkValues(t, r, map[string]any{"errors/0/source/pointer": tc.pointer})
			})
		}
		t.Run("single PATCH meta.version", func(t *testing.T) {
			cur := a.version(t, path)
			r := a.do(http.MethodPatch, path, jsonAPI, `{"data":{"type":"accounts","id":"`+acc+`","meta":{"version":`+strconv.FormatInt(cur+1, 10)+`},"attributes":{"name":"X"}}}`).want(t, 409)
			checkValues(t, r, map[string]any{"errors/0/source/pointer": "/data/meta/version"})
			a.do(http.MethodPatch, path, jsonAPI, `{"data":{"type":"accounts","id":"`+acc+`","meta":{"version":`+strconv.FormatInt(cur, 10)+`},"attributes":{"name":"X"}}}`).want(t, 200)
		})
	})
}

// TestAnswerETags: a list, a subresource, a relationship and a record
// without a version carry the hash of their answer, 304 while it stands and
// a new tag once a record of it changes.
func TestAnswerETags(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		acc := a.created(t, "/admin/api/accounts", `{"data":{"type":"accounts","attributes":{"name":"Listed","externalId":"L-1"}}}`)
		contact := a.created(t, "/admin/api/contacts", `{"data":{"type":"contacts","attributes":{"lastName":"Listed"},
			"relationships":{"accounts":{"data":[{"type":"accounts","id":"`+acc+`"}]}}}}`)
		answerTag := regexp.MustCompile(`^"b[0-9a-f]+"$`)
		for _, tc := range []struct {
			name, path string
			headers    map[string]string
		}{
			{"list", "/admin/api/accounts?filter[externalId]=L-1", jsonAPI},
			{"plain list", "/admin/api/accounts?filter[externalId]=L-1", plain},
			{"subresource", "/admin/api/contacts/" + contact + "/accounts", jsonAPI},
			{"relationship", "/admin/api/contacts/" + contact + "/relationships/accounts", jsonAPI},
			{"record without a version", "/admin/api/countries/DE", jsonAPI},
		} {
			t.Run(tc.name, func(t *testing.T) {
				first := a.do(http.MethodGet, tc.path, tc.headers, "").want(t, 200)
				tag := first.header.Get("ETag")
				if !answerTag.MatchString(tag) {
					t.Fatalf("ETag %q is not an answer's tag", tag)
				}
				h := map[string]string{"If-None-Match": tag}
				for k, v := range tc.headers {
					h[k] = v
				}
				r := a.do(http.MethodGet, tc.path, h, "").want(t, 304)
				if len(r.body) != 0 || r.header.Get("ETag") != tag {
					t.Errorf("304 with body %q, ETag %q", r.body, r.header.Get("ETag"))
				}
				if tc.name == "record without a version" {
					return
				}
				a.do(http.MethodPatch, "/admin/api/accounts/"+acc, jsonAPI,
					`{"data":{"type":"accounts","id":"`+acc+`","attributes":{"name":"Listed `+tc.name+`"}}}`).want(t, 200)
				if tc.name == "relationship" { // identifiers only: a member's name is not in the answer
					a.do(http.MethodGet, tc.path, h, "").want(t, 304)
					return
				}
				if r := a.do(http.MethodGet, tc.path, h, "").want(t, 200); r.header.Get("ETag") == tag {
					t.Errorf("the tag %s stayed after a record of the answer changed", tag)
				}
			})
		}
	})
}

// TestStorefrontETags: the storefront's reads carry tags too, one per
// language: a tag read in German does not answer 304 in French.
func TestStorefrontETags(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		for _, path := range []string{"/api/countries/DE", "/api/regions?filter[country]=DE&page[size]=2"} {
			de := a.do(http.MethodGet, path, withHeaders(guest, "X-Localization-ID", "2"), "").want(t, 200)
			tag := de.header.Get("ETag")
			if tag == "" {
				t.Fatalf("%s: no ETag", path)
			}
			a.do(http.MethodGet, path, withHeaders(guest, "X-Localization-ID", "2", "If-None-Match", tag), "").want(t, 304)
			a.do(http.MethodGet, path, withHeaders(guest, "X-Localization-ID", "3", "If-None-Match", tag), "").want(t, 200)
		}
	})
}

// TestIfMatchWithUpsert: a PATCH that may create its record (meta.upsert)
// creates nothing under If-Match: the record it expects does not exist.
func TestIfMatchWithUpsert(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		body := `{"data":{"type":"weightunits","id":"etag-u","meta":{"upsert":true},"attributes":{"conversionRates":{"kg":1}}}}`
		a.do(http.MethodPatch, "/admin/api/weightunits/etag-u", with(map[string]string{"If-Match": "*"}), body).want(t, 412)
		a.do(http.MethodGet, "/admin/api/weightunits/etag-u", jsonAPI, "").want(t, 404)
		a.do(http.MethodPatch, "/admin/api/weightunits/etag-u", jsonAPI, body).want(t, 201)
		tag := a.etag(t, "/admin/api/weightunits/etag-u")
		a.do(http.MethodPatch, "/admin/api/weightunits/etag-u", with(map[string]string{"If-Match": tag}), body).want(t, 200)
		a.do(http.MethodPatch, "/admin/api/weightunits/etag-u", with(map[string]string{"If-Match": tag}), body).want(t, 412)
	})
}
