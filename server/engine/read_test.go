package engine_test

import (
	"testing"

	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/server/problem"
)

// TestGetAnswersOneRecord: Get renders a record in the negotiated format
// (a JSON:API document, or the plain object with related ids inline), adds
// what include names, titles it with metaProperties=title, and answers 404 for a
// record the caller's organization does not have.
func TestGetAnswersOneRecord(t *testing.T) {
	t.Parallel()
	eachDialect(t, func(t *testing.T, b *testBundle) {
		acme := b.createAccount(t, b.admin, `{"name":"Acme","externalId":"ACME-1"}`)
		tests := []struct {
			name   string
			path   string
			query  string
			format engine.Format
			check  func(t *testing.T, doc any)
		}{
			{"country as JSON:API", "/api/countries/US", "", engine.JSONAPI, func(t *testing.T, doc any) {
				if typ, id := at(doc, "data", "type"), at(doc, "data", "id"); typ != "countries" || id != "US" {
					t.Errorf("data is %v %v, want countries US", typ, id)
				}
				if v := at(doc, "data", "attributes", "iso3Code"); v != "USA" {
					t.Errorf("iso3Code %v, want USA", v)
				}
				if v := at(doc, "data", "attributes", "name"); v != "United States" {
					t.Errorf("name %v, want United States", v)
				}
				if v := at(doc, "links", "self"); v != "http://api.test/admin/api/countries" {
					t.Errorf("links.self %v", v)
				}
			}},
			{"country as plain", "/api/countries/DE", "", engine.Plain, func(t *testing.T, doc any) {
				if at(doc, "data") != nil {
					t.Errorf("a plain answer has no data member: %v", doc)
				}
				if id, iso3 := at(doc, "id"), at(doc, "iso3Code"); id != "DE" || iso3 != "DEU" {
					t.Errorf("plain country %v %v, want DE DEU", id, iso3)
				}
			}},
			{"region with its country included", "/api/regions/US-NY", "include=country", engine.JSONAPI, func(t *testing.T, doc any) {
				if v := at(doc, "data", "relationships", "country", "data", "id"); v != "US" {
					t.Errorf("country linkage %v, want US", v)
				}
				if typ, id := at(doc, "included", 0, "type"), at(doc, "included", 0, "id"); typ != "countries" || id != "US" {
					t.Errorf("included[0] is %v %v, want countries US", typ, id)
				}
			}},
			{"region as plain: its country inline", "/api/regions/US-NY", "", engine.Plain, func(t *testing.T, doc any) {
				if v := at(doc, "country"); v != "US" {
					t.Errorf("plain country %v, want US", v)
				}
			}},
			{"account with metaProperties=title", "/api/accounts/" + acme, "metaProperties=title", engine.JSONAPI, func(t *testing.T, doc any) {
				if v := at(doc, "data", "meta", "title"); v != "Acme" {
					t.Errorf("meta.title %v, want Acme", v)
				}
				if v := at(doc, "data", "attributes", "externalId"); v != "ACME-1" {
					t.Errorf("externalId %v, want ACME-1", v)
				}
				if v := at(doc, "data", "relationships", "organization", "data", "id"); v != "1" {
					t.Errorf("organization %v, want 1", v)
				}
			}},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				reply, err := b.e.Get(b.request(t, "GET", tc.path, tc.query, tc.format, b.admin))
				if err != nil {
					t.Fatalf("Get %s: %v", tc.path, err)
				}
				if reply.Status != 200 {
					t.Errorf("status %d, want 200", reply.Status)
				}
				if reply.Header.Get("ETag") == "" {
					t.Errorf("no ETag on %s", tc.path)
				}
				tc.check(t, decoded(t, reply))
			})
		}

		notFound := []struct {
			name, path string
		}{
			{"another organization's account", "/api/accounts/" + acme},
			{"an identifier that is no number", "/api/accounts/abc"},
			{"a country that does not exist", "/api/countries/XX"},
		}
		for _, tc := range notFound {
			t.Run(tc.name, func(t *testing.T) {
				p := b.other
				if tc.path != "/api/accounts/"+acme {
					p = b.admin
				}
				_, err := b.e.Get(b.request(t, "GET", tc.path, "", engine.JSONAPI, p))
				list := problems(t, err)
				if len(list) != 1 || list[0].Kind != problem.NotFoundKind || list[0].Title != "not found http exception" {
					t.Errorf("Get %s: %v, want one not found problem", tc.path, list)
				}
			})
		}
	})
}

// TestListFiltersSortsPagesAndIncludes: List narrows by filters, orders by
// sort, cuts pages with links to the others, adds included records and the
// total count X-Include asks for, answers the plain format as an array,
// and refuses what its parameters do not allow with the parameter named.
func TestListFiltersSortsPagesAndIncludes(t *testing.T) {
	t.Parallel()
	eachDialect(t, func(t *testing.T, b *testBundle) {
		for _, name := range []string{"Beta", "Alpha", "Gamma"} {
			b.createAccount(t, b.admin, `{"name":"`+name+`"}`)
		}
		b.createAccount(t, b.other, `{"name":"Elsewhere"}`)
		ids := func(doc any) []any {
			var out []any
			for i := 0; at(doc, "data", i) != nil; i++ {
				out = append(out, at(doc, "data", i, "id"))
			}
			return out
		}
		tests := []struct {
			name     string
			path     string
			query    string
			xinclude []string
			format   engine.Format
			check    func(t *testing.T, doc any, total string)
		}{
			{"countries by id, descending", "/api/countries", "filter[id]=US,DE&sort=-id", nil, engine.JSONAPI, func(t *testing.T, doc any, _ string) {
				if got := ids(doc); len(got) != 2 || got[0] != "US" || got[1] != "DE" {
					t.Errorf("ids %v, want [US DE]", got)
				}
			}},
			{"the second page of countries", "/api/countries", "page[size]=2&page[number]=2", nil, engine.JSONAPI, func(t *testing.T, doc any, _ string) {
				if got := ids(doc); len(got) != 2 {
					t.Errorf("%d countries on a page of 2", len(got))
				}
				for _, link := range []string{"first", "prev", "next"} {
					if at(doc, "links", link) == nil {
						t.Errorf("no %s link: %v", link, at(doc, "links"))
					}
				}
			}},
			{"regions of a country with it included and counted", "/api/regions", "filter[country]=DE&page[size]=1&include=country", []string{"totalCount"}, engine.JSONAPI, func(t *testing.T, doc any, total string) {
				if v := at(doc, "data", 0, "relationships", "country", "data", "id"); v != "DE" {
					t.Errorf("country of the region %v, want DE", v)
				}
				if v := at(doc, "included", 0, "id"); v != "DE" {
					t.Errorf("included %v, want DE", at(doc, "included"))
				}
				if total == "" || total == "0" || total == "1" {
					t.Errorf("X-Include-Total-Count %q, want Germany's number of regions", total)
				}
			}},
			{"the caller's accounts by name", "/api/accounts", "sort=name&metaProperties=title", nil, engine.JSONAPI, func(t *testing.T, doc any, _ string) {
				var names []any
				for i := 0; at(doc, "data", i) != nil; i++ {
					names = append(names, at(doc, "data", i, "meta", "title"))
				}
				if len(names) != 3 || names[0] != "Alpha" || names[1] != "Beta" || names[2] != "Gamma" {
					t.Errorf("titles %v, want [Alpha Beta Gamma]", names)
				}
			}},
			{"accounts filtered by name as plain", "/api/accounts", "filter[name]=Gamma", nil, engine.Plain, func(t *testing.T, doc any, _ string) {
				list, ok := doc.([]any)
				if !ok || len(list) != 1 {
					t.Fatalf("plain list %v, want an array of one", doc)
				}
				if v := at(list[0], "name"); v != "Gamma" {
					t.Errorf("name %v, want Gamma", v)
				}
				if v := at(list[0], "organization"); v != float64(1) {
					t.Errorf("organization %v, want 1", v)
				}
			}},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				r := b.request(t, "GET", tc.path, tc.query, tc.format, b.admin)
				r.XInclude = tc.xinclude
				reply, err := b.e.List(r)
				if err != nil {
					t.Fatalf("List %s?%s: %v", tc.path, tc.query, err)
				}
				if reply.Status != 200 {
					t.Errorf("status %d, want 200", reply.Status)
				}
				total := reply.Header.Get("X-Include-Total-Count")
				tc.check(t, decoded(t, reply), total)
			})
		}

		refused := []struct {
			name, query, title, parameter string
			format                        engine.Format
		}{
			{"a sort by an unknown field", "sort=color", "sort constraint", "sort", engine.JSONAPI},
			{"metaProperties in the plain format", "metaProperties=title", "filter constraint", "metaProperties", engine.Plain},
			{"an unknown meta property", "metaProperties=color", "filter constraint", "metaProperties", engine.JSONAPI},
		}
		for _, tc := range refused {
			t.Run(tc.name, func(t *testing.T) {
				_, err := b.e.List(b.request(t, "GET", "/api/accounts", tc.query, tc.format, b.admin))
				list := problems(t, err)
				if list[0].Kind != problem.Invalid || list[0].Title != tc.title || list[0].Parameter != tc.parameter {
					t.Errorf("List ?%s: %+v, want %s on %s", tc.query, list[0], tc.title, tc.parameter)
				}
			})
		}
	})
}
