package server_test

import (
	"net/http"
	"strconv"
	"sync"
	"testing"
)

func TestUpsertRules(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		acc := a.created(t, "/admin/api/accounts", `{"data":{"type":"accounts","attributes":{"name":"Up","externalId":"UP-1"}}}`)
		a.created(t, "/admin/api/accounts", `{"data":{"type":"accounts","attributes":{"name":"Twin"}}}`)
		a.created(t, "/admin/api/accounts", `{"data":{"type":"accounts","attributes":{"name":"Twin"}}}`)
		up := func(meta string, attrs string) string {
			return `{"data":{"type":"accounts","meta":{"upsert":` + meta + `},"attributes":` + attrs + `}}`
		}
		ptr := check{path: "errors/0/source/pointer", want: "/data/meta/upsert"}
		title := check{path: "errors/0/title", want: "value constraint"}
		runCases(t, a, []apiCase{
			{name: "match by external id updates", method: http.MethodPost, path: "/admin/api/accounts", body: up(`["externalId"]`, `{"name":"Up again","externalId":"UP-1"}`),
				status: 200, checks: []check{{path: "data/id", want: acc}, {path: "data/attributes/name", want: "Up again"}, {path: "header:Location", absent: true}}},
			{name: "no match creates", method: http.MethodPost, path: "/admin/api/accounts", body: up(`["externalId"]`, `{"name":"New","externalId":"UP-2"}`),
				status: 201, checks: []check{{path: "data/attributes/externalId", want: "UP-2"}}},
			{name: "match by name", method: http.MethodPost, path: "/admin/api/accounts", body: up(`["name"]`, `{"name":"New","externalId":"UP-3"}`),
				status: 200, checks: []check{{path: "data/attributes/externalId", want: "UP-3"}}},
			{name: "several matches", method: http.MethodPost, path: "/admin/api/accounts", body: up(`["name"]`, `{"name":"Twin"}`),
				status: 409, checks: []check{{path: "errors/0/title", want: "conflict constraint"}}},
			{name: "by id where ids are generated", method: http.MethodPost, path: "/admin/api/accounts",
				body: `{"data":{"type":"accounts","id":"` + acc + `","meta":{"upsert":true},"attributes":{"name":"X"}}}`, status: 400, checks: []check{title, ptr}},
			{name: "unknown field", method: http.MethodPost, path: "/admin/api/accounts", body: up(`["color"]`, `{"name":"X"}`), status: 400, checks: []check{title, ptr,
				{path: "errors/0/detail", want: `The "color" field is unknown.`}}},
			{name: "field that is no criterion", method: http.MethodPost, path: "/admin/api/accounts", body: up(`["createdAt"]`, `{"name":"X"}`), status: 400, checks: []check{title, ptr}},
			{name: "criterion missing from the body", method: http.MethodPost, path: "/admin/api/accounts", body: up(`["externalId"]`, `{"name":"X"}`), status: 400, checks: []check{title, ptr,
				{path: "errors/0/detail", want: `The "externalId" field does not exist in the request data.`}}},
			{name: "two fields", method: http.MethodPost, path: "/admin/api/accounts", body: up(`["name","externalId"]`, `{"name":"X","externalId":"Y"}`), status: 400, checks: []check{title, ptr}},
			{name: "false", method: http.MethodPost, path: "/admin/api/accounts", body: up(`false`, `{"name":"X"}`), status: 400, checks: []check{title, ptr}},
			{name: "empty list", method: http.MethodPost, path: "/admin/api/accounts", body: up(`[]`, `{"name":"X"}`), status: 400, checks: []check{title, ptr}},
			{name: "a number", method: http.MethodPost, path: "/admin/api/accounts", body: up(`3`, `{"name":"X"}`), status: 400, checks: []check{title, ptr}},
			{name: "an object", method: http.MethodPost, path: "/admin/api/accounts", body: up(`{"a":1}`, `{"name":"X"}`), status: 400, checks: []check{title}},
			{name: "upsert with update", method: http.MethodPost, path: "/admin/api/accounts",
				body: `{"data":{"type":"accounts","meta":{"upsert":["name"],"update":true},"attributes":{"name":"X"}}}`, status: 400, checks: []check{
					{path: "errors/0/title", want: "request data constraint"}, {path: "errors/0/detail", want: "Only one meta option can be used."}}},
			{name: "update alone on a POST", method: http.MethodPost, path: "/admin/api/accounts",
				body: `{"data":{"type":"accounts","meta":{"update":true},"attributes":{"name":"X"}}}`, status: 400, checks: []check{title,
					{path: "errors/0/source/pointer", want: "/data/meta/update"}}},
			{name: "no upsert on organizations", method: http.MethodPatch, path: "/admin/api/organizations/1",
				body: `{"data":{"type":"organizations","id":"1","meta":{"upsert":true}}}`, status: 400, checks: []check{title}},
			{name: "PATCH by id where ids are generated", method: http.MethodPatch, path: "/admin/api/accounts/" + acc,
				body: `{"data":{"type":"accounts","id":"` + acc + `","meta":{"upsert":true}}}`, status: 400, checks: []check{title, ptr}},
			{name: "PATCH by field", method: http.MethodPatch, path: "/admin/api/weightunits/oz",
				body: `{"data":{"type":"weightunits","id":"oz","meta":{"upsert":["id","conversionRates"]}}}`, status: 400, checks: []check{title}},
			{name: "weight unit created by PATCH", method: http.MethodPatch, path: "/admin/api/weightunits/oz",
				body: `{"data":{"type":"weightunits","id":"oz","meta":{"upsert":true},"attributes":{"conversionRates":{"g":28.35}}}}`, status: 201, checks: []check{
					{path: "data/id", want: "oz"}, {path: "header:Location", want: a.base + "/admin/api/weightunits/oz"}}},
			{name: "weight unit updated by PATCH", method: http.MethodPatch, path: "/admin/api/weightunits/oz",
				body: `{"data":{"type":"weightunits","id":"oz","meta":{"upsert":["id"]},"attributes":{"conversionRates":{"g":28.3495}}}}`, status: 200, checks: []check{
					{path: "data/attributes/conversionRates/g", want: 28.3495}}},
			{name: "weight unit by POST", method: http.MethodPost, path: "/admin/api/weightunits",
				body: `{"data":{"type":"weightunits","id":"oz","meta":{"upsert":true},"attributes":{"conversionRates":{"kg":0.0283}}}}`, status: 200},
			{name: "POST by id without an id", method: http.MethodPost, path: "/admin/api/weightunits",
				body: `{"data":{"type":"weightunits","meta":{"upsert":true}}}`, status: 400},
			{name: "an id on a POST without upsert", method: http.MethodPost, path: "/admin/api/accounts",
				body: `{"data":{"type":"accounts","id":"77","attributes":{"name":"X"}}}`, status: 403, checks: []check{{path: "errors/0/source/pointer", want: "/data/id"}}},
			{name: "tax jurisdiction by code", method: http.MethodPost, path: "/admin/api/taxjurisdictions",
				body: `{"data":{"type":"taxjurisdictions","meta":{"upsert":["code"]},"attributes":{"code":"UPS"},"relationships":{"country":{"data":{"type":"countries","id":"DE"}}}}}`, status: 201},
			{name: "user by email", method: http.MethodPost, path: "/admin/api/users",
				body: `{"data":{"type":"users","meta":{"upsert":["email"]},"attributes":{"username":"upsy","email":"admin@test.example","firstName":"A","lastName":"Admin"}}}`, status: 200, checks: []check{
					{path: "data/attributes/username", want: "upsy"}}},
			{name: "contact by primary email, included upsert", method: http.MethodPost, path: "/admin/api/accounts",
				body: `{"data":{"type":"accounts","attributes":{"name":"With contact"},"relationships":{"contacts":{"data":[{"type":"contacts","id":"c"}]}}},
				"included":[{"type":"contacts","id":"c","meta":{"upsert":["primaryEmail"]},"attributes":{"lastName":"Once","primaryEmail":"once@example.com"}}]}`, status: 201},
			{name: "the included upsert updates the second time", method: http.MethodPost, path: "/admin/api/accounts",
				body: `{"data":{"type":"accounts","attributes":{"name":"With contact 2"},"relationships":{"contacts":{"data":[{"type":"contacts","id":"c"}]}}},
				"included":[{"type":"contacts","id":"c","meta":{"upsert":["primaryEmail"]},"attributes":{"lastName":"Twice","primaryEmail":"once@example.com"}}]}`, status: 201},
			{name: "one contact with that email", path: "/admin/api/contacts?filter[primaryEmail]=once@example.com&include=accounts", status: 200, checks: []check{
				{path: "data/0/attributes/lastName", want: "Twice"}, {path: "data/1", absent: true}, {path: "data/0/relationships/accounts/data/0/type", want: "accounts"}}},
		})
	})
}

// TestConcurrentUpserts: 20 upserts of one new value at once leave one record,
// for a criterion a unique index protects and for one nothing does.
func TestConcurrentUpserts(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		a.token("admin")
		for _, tc := range []struct{ name, path, body, filter string }{
			{"unique code", "/admin/api/taxjurisdictions",
				`{"data":{"type":"taxjurisdictions","meta":{"upsert":["code"]},"attributes":{"code":"RACE","description":"%d"},"relationships":{"country":{"data":{"type":"countries","id":"US"}}}}}`,
				"/admin/api/taxjurisdictions?filter[code]=RACE"},
			{"non-unique name", "/admin/api/accounts",
				`{"data":{"type":"accounts","meta":{"upsert":["name"]},"attributes":{"name":"Race","externalId":"R-%d"}}}`,
				"/admin/api/accounts?filter[name]=Race"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				var wg sync.WaitGroup
				statuses := make([]int, 20)
				for i := range statuses {
					wg.Add(1)
					go func() {
						defer wg.Done()
						body := []byte(tc.body)
						body = []byte(replaceN(string(body), strconv.Itoa(i)))
						statuses[i] = a.raw(http.MethodPost, tc.path, string(body))
					}()
				}
				wg.Wait()
				created := 0
				for i, s := range statuses {
					if s != 200 && s != 201 {
						t.Errorf("upsert %d: status %d", i, s)
					}
					if s == 201 {
						created++
					}
				}
				if created != 1 {
					t.Errorf("%d upserts created a record, want 1 (%v)", created, statuses)
				}
				r := a.do(http.MethodGet, tc.filter, map[string]string{"Accept": "application/vnd.api+json", "X-Include": "totalCount"}, "").want(t, 200)
				if got := r.header.Get("X-Include-Total-Count"); got != "1" {
					t.Errorf("%s records, want 1", got)
				}
			})
		}
	})
}

func replaceN(s, n string) string {
	out := ""
	for i := 0; i < len(s); i++ {
		if i+1 < len(s) && s[i] == '%' && s[i+1] == 'd' {
			out += n
			i++
			continue
		}
		out += string(s[i])
	}
	return out
}
