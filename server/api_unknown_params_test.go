package server_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestUnknownQueryParameters (issue 31): a query parameter the operation does
// not take is a 400 naming it, in both formats, with the fix where one is
// likely; nothing is read or written as if it were absent. JSON:API 1.1
// requires the 400 for an unknown all-lower-case name (country, limit, page,
// meta); we refuse every unknown name (fooBar too).
func TestUnknownQueryParameters(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		type want struct {
			params []string // source.parameter of each error, in order
			detail string   // a part of the first error's detail
		}
		for _, tc := range []struct {
			name         string
			method, path string
			headers      map[string]string
			body         string
			want         want
		}{
			{"a field name for its filter", "GET", "/admin/api/regions?country=DE", jsonAPI, "",
				want{[]string{"country"}, "To filter by country, send filter[country]=DE."}},
			{"the same in the plain format", "GET", "/admin/api/regions?country=DE", plain, "",
				want{[]string{"country"}, "To filter by country, send filter[country]=DE."}},
			{"limit", "GET", "/admin/api/regions?limit=2", jsonAPI, "", want{[]string{"limit"}, "Use page[size]=2."}},
			{"page", "GET", "/admin/api/regions?page=2", plain, "", want{[]string{"page"}, "Use page[number]=2."}},
			{"offset", "GET", "/admin/api/accounts?offset=20", jsonAPI, "", want{[]string{"offset"}, "Use page[number]=20."}},
			{"orderBy", "GET", "/admin/api/accounts?orderBy=name", jsonAPI, "", want{[]string{"orderBy"}, "Use sort=name."}},
			{"a token in the query", "GET", "/admin/api/accounts?access_token=abc", jsonAPI, "",
				want{[]string{"access_token"}, "Authorization: Bearer <token>"}},
			{"Oro's meta", "GET", "/admin/api/accounts?meta=title", jsonAPI, "",
				want{[]string{"meta"}, "Use metaProperties=title"}},
			{"an implementation-specific name we do not have", "GET", "/admin/api/accounts?fooBar=1", jsonAPI, "",
				want{[]string{"fooBar"}, "It accepts: filter[<field>], filter[aggregations], page[number], page[size], page[after], page[before], sort, include, fields[<type>], metaProperties."}},
			{"a page member that does not exist", "GET", "/admin/api/accounts?page[limit]=5", jsonAPI, "",
				want{[]string{"page[limit]"}, "It accepts:"}},
			{"several, each named in order", "GET", "/admin/api/accounts?zeta=1&alpha=2&filter[name]=x", jsonAPI, "",
				want{[]string{"alpha", "zeta"}, `"alpha"`}},
			{"one record takes no filter", "GET", "/admin/api/accounts/1?filter[name]=x", jsonAPI, "",
				want{[]string{"filter[name]"}, "It accepts: include, fields[<type>], metaProperties."}},
			{"a relationship endpoint takes no sort", "GET", "/admin/api/countries/US/relationships/regions?sort=name", jsonAPI, "",
				want{[]string{"sort"}, "It accepts: page[number], page[size], page[after], page[before]."}},
			{"a create takes none", "POST", "/admin/api/accounts?include=owner", jsonAPI,
				`{"data":{"type":"accounts","attributes":{"name":"Never made"}}}`,
				want{[]string{"include"}, "This operation takes no query parameters."}},
			{"a batch takes none", "PATCH", "/admin/api/accounts?dryRun=1", jsonAPI,
				`{"data":[{"type":"accounts","attributes":{"name":"Never made"}}]}`,
				want{[]string{"dryRun"}, "This operation takes no query parameters."}},
			{"a collection delete's limit", "DELETE", "/admin/api/accounts?filter[name]=Never&limit=1", jsonAPI, "",
				want{[]string{"limit"}, "The query parameter \"limit\" is not supported here."}},
			{"the storefront", "GET", "/api/countries?limit=1", jsonAPI, "", want{[]string{"limit"}, "Use page[size]=1."}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				sub := *a
				sub.t = t
				if strings.HasPrefix(tc.path, "/api/") {
					sub.as = "storefront"
				}
				r := sub.do(tc.method, tc.path, tc.headers, tc.body).want(t, http.StatusBadRequest)
				isPlain := tc.headers["Accept"] == "application/json"
				for i, param := range tc.want.params {
					var source, title any
					if isPlain {
						source, title = r.value(itoa(i)+"/source"), r.value(itoa(i)+"/title")
					} else {
						source, title = r.value("errors/"+itoa(i)+"/source/parameter"), r.value("errors/"+itoa(i)+"/title")
					}
					if source != param || title != "filter constraint" {
						t.Errorf("error %d: source %v, title %v; want %s, filter constraint\n%s", i, source, title, param, r.body)
					}
				}
				detailPath := "errors/0/detail"
				if isPlain {
					detailPath = "0/detail"
				}
				if d, _ := r.value(detailPath).(string); !strings.Contains(d, tc.want.detail) {
					t.Errorf("detail %q, want it to hold %q", d, tc.want.detail)
				}
			})
		}
		// Nothing was written by the refused writes.
		count := a.do(http.MethodGet, "/admin/api/accounts?filter[name]=Never%20made", jsonAPI, "").want(t, 200)
		if ids := dataIDs(t, count); len(ids) != 0 {
			t.Errorf("a refused write made accounts %v", ids)
		}
		// What the operations take still works: declared names and the
		// families the list reads whole (an operator, fields of a type).
		for _, path := range []string{
			"/admin/api/regions?filter[country]=DE&page[size]=2&page[number]=1&sort=name",
			"/admin/api/accounts?filter[name][contains]=a&fields[accounts]=name&include=owner&metaProperties=title",
			"/admin/api/accounts?page[size]=2&page[after]=",
			"/admin/api/countries/US/relationships/regions?page[size]=2",
		} {
			a.do(http.MethodGet, path, jsonAPI, "").want(t, http.StatusOK)
		}
		// A filter the list does not have keeps Oro's wording from the list.
		bad := a.do(http.MethodGet, "/admin/api/accounts?filter[color]=red", jsonAPI, "").want(t, http.StatusBadRequest)
		checkValues(t, bad, map[string]any{"errors/0/detail": "The filter is not supported.", "errors/0/source/parameter": "filter[color]"})
	})
}

// TestJSONAPIOnlyParametersInPlain: include, fields and metaProperties in a
// plain-format request say what they are for and how to get them.
func TestJSONAPIOnlyParametersInPlain(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		for _, param := range []string{"fields[accounts]=name", "include=owner", "metaProperties=title"} {
			key, _, _ := strings.Cut(param, "=")
			r := a.do(http.MethodGet, "/admin/api/accounts?"+param, plain, "").want(t, http.StatusBadRequest)
			if src := r.value("0/source"); src != key {
				t.Errorf("%s: source %v", param, src)
			}
			if d, _ := r.value("0/detail").(string); !strings.Contains(d, "Send Accept: application/vnd.api+json") || !strings.HasPrefix(d, key+" is a JSON:API parameter") {
				t.Errorf("%s: detail %q", param, d)
			}
		}
	})
}

func itoa(i int) string { return string(rune('0' + i)) }
