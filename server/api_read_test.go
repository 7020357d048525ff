package server_test

import (
	"net/http"
	"testing"
)

// check is one expectation on a response: a value at a path of the body, or a header.
type check struct {
	path   string // body path; "header:Name" for a response header
	want   any
	absent bool
}

func (c check) verify(t *testing.T, r *result) {
	t.Helper()
	var got any
	if len(c.path) > 7 && c.path[:7] == "header:" {
		v := r.header.Get(c.path[7:])
		if c.absent {
			if v != "" {
				t.Errorf("header %s = %q, want none", c.path[7:], v)
			}
			return
		}
		got = v
	} else {
		got = r.value(c.path)
		if c.absent {
			if got != nil {
				t.Errorf("%s = %v, want nothing", c.path, got)
			}
			return
		}
	}
	if got != c.want {
		t.Errorf("%s = %#v, want %#v\n%s", c.path, got, c.want, r.body)
	}
}

// apiCase is one request and what its response must be.
type apiCase struct {
	name    string
	method  string
	path    string
	headers map[string]string
	body    string
	status  int
	checks  []check
}

func runCases(t *testing.T, a *api, cases []apiCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			method := tc.method
			if method == "" {
				method = http.MethodGet
			}
			h := tc.headers
			if h == nil {
				h = jsonAPI
			}
			r := a.do(method, tc.path, h, tc.body).want(t, tc.status)
			for _, c := range tc.checks {
				c.verify(t, r)
			}
		})
	}
}

func TestReadCountriesAndRegions(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		runCases(t, a, []apiCase{
			{name: "list first page", path: "/admin/api/countries", status: 200, checks: []check{
				{path: "data/0/type", want: "countries"}, {path: "data/0/id", want: "AD"},
				{path: "data/10", absent: true}, {path: "links/next", want: a.base + "/admin/api/countries?page%5Bnumber%5D=2"},
				{path: "links/prev", absent: true},
			}},
			{name: "second page with total", path: "/admin/api/countries?page[number]=2&page[size]=5",
				headers: map[string]string{"Accept": "application/vnd.api+json", "X-Include": "totalCount"}, status: 200, checks: []check{
					{path: "data/0/id", want: "AL"}, {path: "header:X-Include-Total-Count", want: "249"},
					{path: "links/first", want: a.base + "/admin/api/countries?page%5Bsize%5D=5"},
					{path: "links/last", want: a.base + "/admin/api/countries?page%5Bnumber%5D=50&page%5Bsize%5D=5"},
				}},
			{name: "get one", path: "/admin/api/countries/US", status: 200, checks: []check{
				{path: "data/attributes/iso3Code", want: "USA"}, {path: "data/attributes/name", want: "United States"},
				{path: "data/links/self", want: a.base + "/admin/api/countries/US"},
				{path: "data/relationships/regions/links/related", want: a.base + "/admin/api/countries/US/regions"},
			}},
			{name: "filter list of ids, sorted descending", path: "/admin/api/countries?filter[id]=US,DE,FR&sort=-id", status: 200, checks: []check{
				{path: "data/0/id", want: "US"}, {path: "data/1/id", want: "FR"}, {path: "data/2/id", want: "DE"}, {path: "data/3", absent: true},
			}},
			{name: "include regions", path: "/admin/api/countries/AD?include=regions", status: 200, checks: []check{
				{path: "included/0/type", want: "regions"}, {path: "data/relationships/regions/data/0/type", want: "regions"},
			}},
			{name: "sparse fieldset", path: "/admin/api/countries/US?fields[countries]=name", status: 200, checks: []check{
				{path: "data/attributes/name", want: "United States"}, {path: "data/attributes/iso3Code", absent: true},
				{path: "data/relationships", absent: true},
			}},
			{name: "no hateoas", path: "/admin/api/countries/US", headers: map[string]string{"Accept": "application/vnd.api+json", "X-Include": "noHateoas"},
				status: 200, checks: []check{{path: "data/links", absent: true}, {path: "links", absent: true}}},
			{name: "regions of a country", path: "/admin/api/regions?filter[country]=DE&page[size]=100", status: 200, checks: []check{
				{path: "data/0/relationships/country/data/id", want: "DE"}, {path: "data/16", absent: true},
			}},
			{name: "region with its country", path: "/admin/api/regions/US-NY?include=country", status: 200, checks: []check{
				{path: "data/attributes/code", want: "NY"}, {path: "included/0/id", want: "US"},
			}},
			{name: "subresource to-many", path: "/admin/api/countries/DE/regions?filter[id]=DE-BY", status: 200, checks: []check{
				{path: "data/0/id", want: "DE-BY"}, {path: "data/1", absent: true},
			}},
			{name: "subresource to-one", path: "/admin/api/regions/DE-BY/country", status: 200, checks: []check{{path: "data/id", want: "DE"}}},
			{name: "relationship to-one", path: "/admin/api/regions/US-NY/relationships/country", status: 200, checks: []check{
				{path: "data/type", want: "countries"}, {path: "data/id", want: "US"},
				{path: "links/self", want: a.base + "/admin/api/regions/US-NY/relationships/country"},
			}},
			{name: "relationship to-many paged", path: "/admin/api/countries/US/relationships/regions?page[size]=3", status: 200, checks: []check{
				{path: "data/2/type", want: "regions"}, {path: "data/3", absent: true},
			}},
			{name: "plain list", path: "/admin/api/countries?filter[id]=DE", headers: plain, status: 200, checks: []check{
				{path: "0/id", want: "DE"}, {path: "0/name", want: "Germany"}, {path: "0/iso3Code", want: "DEU"},
			}},
			{name: "plain region inline country", path: "/admin/api/regions/DE-BY", headers: plain, status: 200, checks: []check{
				{path: "country", want: "DE"}, {path: "code", want: "BY"},
			}},
			{name: "unknown country", path: "/admin/api/countries/ZZ", status: 404, checks: []check{
				{path: "errors/0/title", want: "not found http exception"}, {path: "errors/0/status", want: "404"},
			}},
			{name: "malformed country code", path: "/admin/api/countries/usa", status: 400, checks: []check{
				{path: "errors/0/title", want: "entity identifier constraint"},
			}},
			{name: "unknown filter", path: "/admin/api/countries?filter[name]=x", status: 400, checks: []check{
				{path: "errors/0/title", want: "filter constraint"}, {path: "errors/0/source/parameter", want: "filter[name]"},
			}},
			{name: "unknown operator", path: "/admin/api/countries?filter[id][gt]=US", status: 400, checks: []check{
				{path: "errors/0/detail", want: `The operator "gt" is not supported.`},
			}},
			{name: "unknown sort field", path: "/admin/api/regions?sort=population", status: 400, checks: []check{
				{path: "errors/0/title", want: "sort constraint"}, {path: "errors/0/source/parameter", want: "sort"},
			}},
			{name: "page size zero", path: "/admin/api/countries?page[size]=0", status: 400, checks: []check{
				{path: "errors/0/source/parameter", want: "page[size]"},
			}},
			{name: "page size not a number", path: "/admin/api/countries?page[size]=ten", status: 400},
			{name: "unknown include", path: "/admin/api/countries?include=capital", status: 400, checks: []check{
				{path: "errors/0/source/parameter", want: "include"},
			}},
			{name: "include in plain", path: "/admin/api/countries?include=regions", headers: plain, status: 400, checks: []check{
				{path: "0/source", want: "include"},
			}},
			{name: "relationship endpoint in plain", path: "/admin/api/regions/US-NY/relationships/country", headers: plain, status: 406},
			{name: "accept with parameters", path: "/admin/api/countries", headers: map[string]string{"Accept": "application/vnd.api+json; ext=x"}, status: 406,
				checks: []check{{path: "errors/0/title", want: "not acceptable http exception"}}},
			{name: "plain accept of nothing json", path: "/admin/api/countries", headers: map[string]string{"Accept": "text/html"}, status: 406,
				checks: []check{{path: "0/title", want: "not acceptable http exception"}}},
		})
	})
}

func TestUndocumentedRoutes(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		r := a.do(http.MethodOptions, "/admin/api/countries", nil, "").want(t, 200)
		if got := r.header.Get("Allow"); got != "OPTIONS, GET, HEAD" {
			t.Errorf("Allow = %q", got)
		}
		if len(r.body) != 0 {
			t.Errorf("OPTIONS body = %q", r.body)
		}
		r = a.do(http.MethodPost, "/admin/api/countries", jsonAPI, `{"data":{"type":"countries"}}`).want(t, 405)
		if got := r.header.Get("Allow"); got != "OPTIONS, GET, HEAD" {
			t.Errorf("405 Allow = %q", got)
		}
		if get(r.doc, "errors/0/status") != "405" {
			t.Errorf("405 body = %s", r.body)
		}
		r = a.do(http.MethodGet, "/admin/api/nothing", jsonAPI, "").want(t, 404)
		if get(r.doc, "errors/0/title") != "not found http exception" {
			t.Errorf("404 body = %s", r.body)
		}
		r = a.do(http.MethodHead, "/admin/api/countries/US", jsonAPI, "").want(t, 200)
		if len(r.body) != 0 || r.header.Get("Content-Type") != "application/vnd.api+json" {
			t.Errorf("HEAD: %q %q", r.header.Get("Content-Type"), r.body)
		}
		for _, path := range []string{"/oauth2-token", "/admin/oauth2-token"} {
			r = a.do(http.MethodOptions, path, map[string]string{"Authorization": ""}, "").want(t, 200)
			if got := r.header.Get("Allow"); got != "OPTIONS, POST" {
				t.Errorf("OPTIONS %s: Allow = %q", path, got)
			}
			r = a.do(http.MethodGet, path, map[string]string{"Authorization": ""}, "").want(t, 405)
		}
		a.do(http.MethodGet, "/healthz", nil, "").want(t, 200)
		a.do(http.MethodGet, "/readyz", nil, "").want(t, 200)
		r = a.do(http.MethodGet, "/admin/api/openapi.json", nil, "").want(t, 200)
		if get(r.doc, "openapi") != "3.0.3" {
			t.Errorf("openapi.json: %.100s", r.body)
		}
		a.do(http.MethodGet, "/admin/api/openapi.yaml", nil, "").want(t, 200)
	})
}
