package server_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// Search on the storefront (issue 32): its countries and regions, by name
// in the request's localization and by code, through each list's
// filter[searchText] and GET /api/search; guests search what they may read.

func TestStorefrontSearch(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		de := withHeaders(guest, "X-Localization-ID", "2")
		fr := withHeaders(guest, "X-Localization-ID", "3")
		runCases(t, a, []apiCase{
			{name: "a country by its English name", path: "/api/countries?filter[searchText]=germany", headers: guest, status: 200,
				checks: []check{{path: "data/0/id", want: "DE"}, {path: "data/1", absent: true}}},
			{name: "by its German name in German", path: "/api/countries?filter[searchText]=deutschland", headers: de, status: 200,
				checks: []check{{path: "data/0/id", want: "DE"}, {path: "data/0/attributes/name", want: "Deutschland"},
					{path: "header:Content-Language", want: "de-DE"}, {path: "data/1", absent: true}}},
			{name: "not by its German name in English", path: "/api/countries?filter[searchText]=deutschland", headers: guest, status: 200,
				checks: []check{{path: "data/0", absent: true}}},
			{name: "not by its English name in German", path: "/api/countries?filter[searchText]=germany", headers: de, status: 200,
				checks: []check{{path: "data/0", absent: true}}},
			{name: "by its alpha-3 code in any language", path: "/api/countries?filter[searchText]=deu", headers: fr, status: 200,
				checks: []check{{path: "data/0/id", want: "DE"}, {path: "data/0/attributes/name", want: "Allemagne"}}},
			{name: "a phrase, and an exclusion", path: "/api/countries?filter[searchText]=%22united+states%22+-minor&filter[id][neq]=GB",
				headers: guest, status: 200, checks: []check{{path: "data/0/id", want: "US"}, {path: "data/1", absent: true}}},
			{name: "regions by name and code", path: "/api/regions?filter[searchText]=bavière+by", headers: fr, status: 200,
				checks: []check{{path: "data/0/id", want: "DE-BY"}, {path: "data/1", absent: true}}},
			{name: "a country's regions", path: "/api/countries/DE/regions?filter[searchText]=bayern", headers: guest, status: 200,
				checks: []check{{path: "data/0/id", want: "DE-BY"}, {path: "data/1", absent: true}}},
			{name: "with a total", path: "/api/regions?filter[searchText]=york", headers: withHeaders(guest, "X-Include", "totalCount"), status: 200,
				checks: []check{{path: "header:X-Include-Total-Count", want: "2"}, {path: "data/0/id", want: "GB-YOR"}, {path: "data/1/id", want: "US-NY"}}},
			{name: "a text without a word", path: "/api/countries?filter[searchText]=%2B%2B", headers: guest, status: 400,
				checks: []check{{path: "errors/0/source/parameter", want: "filter[searchText]"}}},
			{name: "the back office's lists search in English", path: "/admin/api/countries?filter[searchText]=germany", status: 200,
				checks: []check{{path: "data/0/id", want: "DE"}}},
		})

		t.Run("GET /api/search", func(t *testing.T) {
			r := a.do(http.MethodGet, "/api/search?filter[searchText]=deutschland&include=entity", de, "").want(t, 200)
			if got := searchResults(t, r); !slices.Equal(got, []string{"countries/DE"}) {
				t.Fatalf("results %v, want countries/DE", got)
			}
			checkValues(t, r, map[string]any{"data/0/attributes/title": "Deutschland", "included/0/type": "countries",
				"included/0/attributes/name": "Deutschland"})
			if r.header.Get("Content-Language") != "de-DE" {
				t.Errorf("Content-Language %q", r.header.Get("Content-Language"))
			}
			r = a.do(http.MethodGet, "/api/search?filter[searchText]=bayern+OR+bavaria&sort=entity", guest, "").want(t, 200)
			if got := searchResults(t, r); !slices.Equal(got, []string{"regions/DE-BY"}) {
				t.Errorf("results %v, want regions/DE-BY", got)
			}
			plainResult := a.do(http.MethodGet, "/api/search?filter[searchText]=germany", map[string]string{"Accept": "application/json", "Authorization": ""}, "").want(t, 200)
			checkValues(t, plainResult, map[string]any{"0/entity": "countries", "0/id": "DE", "0/title": "Germany"})
			a.caller("storefront").do(http.MethodGet, "/api/search?filter[searchText]=germany&filter[entities]=countries", jsonAPI, "").want(t, 200)
		})

		runCases(t, a, []apiCase{
			{name: "a type the storefront does not search", path: "/api/search?filter[searchText]=acme&filter[entities]=accounts", headers: guest,
				status: 400, checks: []check{{path: "errors/0/source/parameter", want: "filter[entities]"}}},
			{name: "the back office searches its own records only", path: "/admin/api/search?filter[searchText]=germany&filter[entities]=countries",
				status: 400, checks: []check{{path: "errors/0/source/parameter", want: "filter[entities]"}}},
			{name: "the back office's search finds no country", path: "/admin/api/search?filter[searchText]=germany", status: 200,
				checks: []check{{path: "data/0", absent: true}}},
			{name: "a back-office token on the storefront's search", path: "/api/search?filter[searchText]=germany", status: 401},
		})
	})
}

// TestStorefrontSearchGuests: a guest searches only when guests may read
// every type the search spans; otherwise the search needs a token, as the
// list of a type guests may not read does.
func TestStorefrontSearchGuests(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			a := newAPIWith(t, storagetest.Open(t, dialect), func(c *server.Config) { c.GuestResources = []string{"countries"} })
			a.do(http.MethodGet, "/api/countries?filter[searchText]=germany", guest, "").want(t, 200)
			a.do(http.MethodGet, "/api/regions?filter[searchText]=bayern", guest, "").want(t, 401)
			a.do(http.MethodGet, "/api/search?filter[searchText]=germany", guest, "").want(t, 401)
			a.caller("storefront").do(http.MethodGet, "/api/search?filter[searchText]=germany", jsonAPI, "").want(t, 200)
		})
	}
}
