package server_test

import (
	"fmt"
	"net/http"
	"testing"
)

// TestValidateOnly holds meta.validate (oro-behaviour §5.4) to its promise:
// the answer of a validated write is the one the write would give, status,
// body and headers, and nothing is stored, whatever the write touches.
func TestValidateOnly(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		acc := a.created(t, "/admin/api/accounts", `{"data":{"type":"accounts","attributes":{"name":"Kept","externalId":"V-1"}}}`)
		total := func(t *testing.T, path string) string {
			t.Helper()
			return a.do(http.MethodGet, path, map[string]string{"Accept": "application/vnd.api+json", "X-Include": "totalCount"}, "").
				want(t, 200).header.Get("X-Include-Total-Count")
		}
		accounts, contacts := total(t, "/admin/api/accounts"), total(t, "/admin/api/contacts")
		unchanged := func(t *testing.T) {
			t.Helper()
			if got := total(t, "/admin/api/accounts"); got != accounts {
				t.Errorf("%s accounts after a validated request, %s before", got, accounts)
			}
			if got := total(t, "/admin/api/contacts"); got != contacts {
				t.Errorf("%s contacts after a validated request, %s before", got, contacts)
			}
			kept := a.do(http.MethodGet, "/admin/api/accounts/"+acc, jsonAPI, "").want(t, 200)
			checkValues(t, kept, map[string]any{"data/attributes/name": "Kept", "data/attributes/externalId": "V-1"})
		}
		validate := `"meta":{"validate":true}`
		valueTitle := check{path: "errors/0/title", want: "value constraint"}
		cases := []apiCase{
			{name: "create", method: http.MethodPost, path: "/admin/api/accounts",
				body:   `{"data":{"type":"accounts",` + validate + `,"attributes":{"name":"Dry run"}}}`,
				status: 201, checks: []check{{path: "data/type", want: "accounts"}, {path: "data/attributes/name", want: "Dry run"}}},
			{name: "create with an included contact", method: http.MethodPost, path: "/admin/api/accounts",
				body: `{"data":{"type":"accounts",` + validate + `,"attributes":{"name":"Dry with contact"},
					"relationships":{"contacts":{"data":[{"type":"contacts","id":"c1"}]}}},
					"included":[{"type":"contacts","id":"c1","attributes":{"lastName":"Dry"}}]}`,
				status: 201, checks: []check{{path: "included/0/attributes/lastName", want: "Dry"}}},
			{name: "update", method: http.MethodPatch, path: "/admin/api/accounts/" + acc,
				body:   `{"data":{"type":"accounts","id":"` + acc + `",` + validate + `,"attributes":{"name":"Renamed"}}}`,
				status: 200, checks: []check{{path: "data/id", want: acc}, {path: "data/attributes/name", want: "Renamed"},
					{path: "data/attributes/externalId", want: "V-1"}}},
			{name: "upsert is another option", method: http.MethodPost, path: "/admin/api/accounts",
				body:   `{"data":{"type":"accounts","meta":{"validate":true,"upsert":["externalId"]},"attributes":{"name":"X","externalId":"V-1"}}}`,
				status: 400, checks: []check{{path: "errors/0/title", want: "request data constraint"},
					{path: "errors/0/detail", want: "Only one meta option can be used."}, {path: "errors/0/source/pointer", want: "/data/meta"}}},
			{name: "not a boolean", method: http.MethodPost, path: "/admin/api/accounts",
				body: `{"data":{"type":"accounts","meta":{"validate":"yes"},"attributes":{"name":"X"}}}`, status: 400},
			{name: "on an included record", method: http.MethodPost, path: "/admin/api/accounts",
				body: `{"data":{"type":"accounts","attributes":{"name":"Inc"},"relationships":{"contacts":{"data":[{"type":"contacts","id":"c1"}]}}},
					"included":[{"type":"contacts","id":"c1",` + validate + `,"attributes":{"lastName":"Dry"}}]}`,
				status: 400, checks: []check{valueTitle, {path: "errors/0/source/pointer", want: "/included/0/meta/validate"}}},
			{name: "a check that fails answers as the write", method: http.MethodPost, path: "/admin/api/accounts",
				body:   `{"data":{"type":"accounts",` + validate + `,"attributes":{"name":""}}}`,
				status: 400, checks: []check{{path: "errors/0/title", want: "not blank constraint"}, {path: "errors/0/source/pointer", want: "/data/attributes/name"}}},
			{name: "the database's uniqueness is checked", method: http.MethodPost, path: "/admin/api/accounts",
				body:   `{"data":{"type":"accounts",` + validate + `,"attributes":{"name":"Twin","externalId":"V-1"}}}`,
				status: 400, checks: []check{{path: "errors/0/title", want: "unique entity constraint"}, {path: "errors/0/source/pointer", want: "/data/attributes/externalId"}}},
			{name: "a missing related record", method: http.MethodPost, path: "/admin/api/contacts",
				body:   `{"data":{"type":"contacts",` + validate + `,"attributes":{"lastName":"L"},"relationships":{"accounts":{"data":[{"type":"accounts","id":"987654"}]}}}}`,
				status: 404, checks: []check{{path: "errors/0/title", want: "not found http exception"}}},
			{name: "update of a missing record", method: http.MethodPatch, path: "/admin/api/accounts/987654",
				body: `{"data":{"type":"accounts","id":"987654",` + validate + `,"attributes":{"name":"Ghost"}}}`, status: 404},
			{name: "a business rule", method: http.MethodPost, path: "/admin/api/taxjurisdictions",
				body: `{"data":{"type":"taxjurisdictions",` + validate + `,"attributes":{"code":"VAL","zipCodes":[{"zipRangeStart":"9","zipRangeEnd":"1"}]},
					"relationships":{"country":{"data":{"type":"countries","id":"US"}}}}}`, status: 400},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				r := a.do(tc.method, tc.path, jsonAPI, tc.body).want(t, tc.status)
				for _, c := range tc.checks {
					c.verify(t, r)
				}
				if r.status == http.StatusCreated {
					if id, _ := r.value("data/id").(string); id == "" || r.header.Get("Location") != a.base+"/admin/api/accounts/"+id {
						t.Errorf("a validated create answers id %q and Location %q, as the create would", id, r.header.Get("Location"))
					}
				}
				unchanged(t)
			})
		}

		// The validated answer is the write's: the same document, but for
		// the id it shows and the times it stamps.
		body := `{"data":{"type":"accounts","meta":{"validate":%s},"attributes":{"name":"Same answer","externalId":"V-2"}}}`
		dry := a.do(http.MethodPost, "/admin/api/accounts", jsonAPI, fmt.Sprintf(body, "true")).want(t, 201)
		unchanged(t)
		real := a.do(http.MethodPost, "/admin/api/accounts", jsonAPI, fmt.Sprintf(body, "false")).want(t, 201)
		for _, path := range []string{"data/type", "data/attributes/name", "data/attributes/externalId", "data/relationships/organization/data/id", "data/relationships/owner/data/id"} {
			if d, r := dry.value(path), real.value(path); d != r {
				t.Errorf("%s: validated %v, written %v", path, d, r)
			}
		}
	})
}

// TestValidateOnlyInBatches: a synchronous batch whose items all carry
// meta.validate answers its records and stores none; one that mixes both is
// refused; an asynchronous batch reports the option as an item error.
func TestValidateOnlyInBatches(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		count := func(t *testing.T, filter string) any {
			t.Helper()
			r := a.do(http.MethodGet, "/admin/api/accounts?filter[name]="+filter, map[string]string{"Accept": "application/vnd.api+json", "X-Include": "totalCount"}, "").want(t, 200)
			return r.header.Get("X-Include-Total-Count")
		}
		r := a.do(http.MethodPatch, "/admin/api/accounts", syncMode, `{"data":[
			{"type":"accounts","id":"a","meta":{"validate":true},"attributes":{"name":"Batch dry"}},
			{"type":"accounts","meta":{"validate":true},"attributes":{"name":"Batch dry"}}]}`).want(t, 200)
		checkValues(t, r, map[string]any{"data/0/attributes/name": "Batch dry", "data/0/meta/dataId": "a", "data/1/type": "accounts"})
		if n := count(t, "Batch%20dry"); n != "0" {
			t.Errorf("a validated synchronous batch stored %s records", n)
		}

		bad := a.do(http.MethodPatch, "/admin/api/accounts", syncMode, `{"data":[
			{"type":"accounts","meta":{"validate":true},"attributes":{"name":"Batch dry"}},
			{"type":"accounts","meta":{"validate":true},"attributes":{"name":""}}]}`).want(t, 400)
		checkValues(t, bad, map[string]any{"errors/0/source/pointer": "/data/1/attributes/name"})

		mixed := a.do(http.MethodPatch, "/admin/api/accounts", syncMode, `{"data":[
			{"type":"accounts","attributes":{"name":"Batch mixed"}},
			{"type":"accounts","meta":{"validate":true},"attributes":{"name":"Batch mixed"}}]}`).want(t, 400)
		checkValues(t, mixed, map[string]any{"errors/0/title": "value constraint", "errors/0/source/pointer": "/data/1/meta/validate"})
		if n := count(t, "Batch%20mixed"); n != "0" {
			t.Errorf("a refused synchronous batch stored %s records", n)
		}

		async := a.do(http.MethodPatch, "/admin/api/accounts", jsonAPI, `{"data":[
			{"type":"accounts","attributes":{"name":"Batch async"}},
			{"type":"accounts","meta":{"validate":true},"attributes":{"name":"Batch async dry"}}]}`).want(t, 202)
		id, _ := get(async.doc, "data/id").(string)
		done := a.awaitOperation(t, id)
		checkValues(t, done, map[string]any{"data/attributes/summary/writeCount": 1.0, "data/attributes/summary/errorCount": 1.0})
		errs := a.do(http.MethodGet, "/admin/api/asyncoperations/"+id+"/errors", jsonAPI, "").want(t, 200)
		checkValues(t, errs, map[string]any{"data/0/attributes/source/pointer": "/data/1/meta/validate", "data/0/attributes/title": "value constraint"})
		if n := count(t, "Batch%20async%20dry"); n != "0" {
			t.Errorf("an asynchronous batch stored %s records of an item that asked for validation only", n)
		}
	})
}
