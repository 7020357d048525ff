package server_test

import (
	"net/http"
	"testing"
)

// TestIncludedMemberWhenAsked covers issue 15 item 15: JSON:API 1.1 requires
// the top-level included member whenever the request named include, an empty
// array when nothing is included (fields left the path out, nothing is
// related, no primary data), on single resources, lists and subresources; a
// request without include has none.
func TestIncludedMemberWhenAsked(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		acc := a.created(t, "/admin/api/accounts", `{"data":{"type":"accounts","attributes":{"name":"Alone"}}}`)
		for _, tc := range []struct {
			name, path string
			included   int // -1: no included member
		}{
			{"one record, fields leave the path out", "/admin/api/countries/US?include=regions&fields[countries]=name", 0},
			{"one record, fields keep the path", "/admin/api/countries/US?include=regions&fields[countries]=name,regions", 57},
			{"a list, fields leave the path out", "/admin/api/countries?filter[id]=US&include=regions&fields[countries]=name", 0},
			{"a list without records", "/admin/api/accounts?filter[name]=Nobody&include=contacts", 0},
			{"one record with nothing related", "/admin/api/accounts/" + acc + "?include=contacts,referredBy", 0},
			{"a to-many subresource", "/admin/api/countries/US/regions?include=country&fields[regions]=name", 0},
			{"a to-one subresource", "/admin/api/regions/US-NY/country?include=regions&fields[countries]=name", 0},
			{"an empty to-one subresource", "/admin/api/accounts/" + acc + "/referredBy?include=contacts", 0},
			{"the storefront", "/api/countries/US?include=regions&fields[countries]=name", 0},
			{"no include", "/admin/api/countries/US", -1},
			{"no include on a list", "/admin/api/accounts?filter[name]=Nobody", -1},
		} {
			t.Run(tc.name, func(t *testing.T) {
				sub := *a
				sub.t = t
				h := jsonAPI
				if tc.path[:5] == "/api/" {
					h = map[string]string{"Accept": "application/vnd.api+json", "Authorization": ""}
				}
				r := sub.do(http.MethodGet, tc.path, h, "").want(t, http.StatusOK)
				included, present := r.doc["included"]
				switch {
				case tc.included < 0 && present:
					t.Errorf("included = %v, want no member", included)
				case tc.included >= 0 && !present:
					t.Errorf("no included member, want %d records\n%s", tc.included, r.body)
				case tc.included >= 0:
					if list, ok := included.([]any); !ok || len(list) != tc.included {
						t.Errorf("included = %v, want %d records", included, tc.included)
					}
				}
			})
		}
	})
}

// TestRelationshipRouteParameters: a relationship endpoint answers identifiers
// only, so include, fields, sort and filter (and page on a to-one) are refused
// by name instead of being ignored (issue 15 items 4 and 15); so are they on a
// create or an update.
func TestRelationshipRouteParameters(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		acc := a.created(t, "/admin/api/accounts", `{"data":{"type":"accounts","attributes":{"name":"Linked"}}}`)
		base := "/admin/api/accounts/" + acc + "/relationships/"
		runListCases(t, a, []listCase{
			{name: "include on a to-many", path: base + "contacts?include=contacts", status: 400, param: "include",
				detail: `The query parameter "include" is not supported here. It accepts: page[number], page[size], page[after], page[before].`},
			{name: "fields on a to-many", path: base + "contacts?fields[contacts]=lastName", status: 400, param: "fields[contacts]"},
			{name: "sort on a to-many", path: base + "contacts?sort=id", status: 400, param: "sort"},
			{name: "filter on a to-many", path: base + "contacts?filter[id]=1", status: 400, param: "filter[id]"},
			{name: "page on a to-one", path: base + "owner?page[size]=1", status: 400, param: "page[size]"},
			{name: "include on a to-one", path: base + "owner?include=owner", status: 400, param: "include"},
			{name: "page on a to-many", path: base + "contacts?page[size]=1"},
			{name: "bad page on a to-many", path: base + "contacts?page[size]=0", status: 400, param: "page[size]"},
		})
		// A create or an update answers the record as written; the document
		// gives them no include or fields, which were ignored before.
		runCases(t, a, []apiCase{
			{name: "include on a create", method: http.MethodPost, path: "/admin/api/accounts?include=contacts",
				body: `{"data":{"type":"accounts","attributes":{"name":"Asked"}}}`, status: 400, checks: []check{
					{path: "errors/0/title", want: "filter constraint"}, {path: "errors/0/source/parameter", want: "include"}}},
			{name: "fields on an update", method: http.MethodPatch, path: "/admin/api/accounts/" + acc + "?fields[accounts]=name",
				body: `{"data":{"type":"accounts","id":"` + acc + `","attributes":{"name":"Renamed"}}}`, status: 400, checks: []check{
					{path: "errors/0/source/parameter", want: "fields[accounts]"}}},
			{name: "nothing was written", path: "/admin/api/accounts/" + acc, status: 200, checks: []check{
				{path: "data/attributes/name", want: "Linked"}}},
		})
	})
}
