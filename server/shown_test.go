package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestReadsOnlyShownLanguage checks that the reads rendering documents ask the
// database only for the columns a document in the request's language shows:
// a storefront request in German still answers the German names (of the
// record read, of a page, of included and related records, and in titles),
// while no statement it sends names the English, French or Spanish columns;
// a back-office request (the default language) names no translation.
func TestReadsOnlyShownLanguage(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			store := storagetest.Open(t, dialect)
			counter := &queryCounter{}
			store.AddStatementHook(counter)
			a := newAPIWith(t, store, func(c *server.Config) { c.Jobs.NoWorkers = true })
			german := withHeaders(guest, "X-Localization-ID", "2")
			for _, tc := range []struct {
				name, path string
				headers    map[string]string
				want       map[string]any
				named      string   // a column some statement must name
				unnamed    []string // columns no statement may name
			}{
				{name: "one region", path: "/api/regions/IT-25?metaProperties=title", headers: german,
					want: map[string]any{"data/attributes/name": "Lombardei", "data/meta/title": "Lombardei"}},
				{name: "a page of regions", path: "/api/regions?filter[country]=IT&sort=name&page[size]=3&metaProperties=title", headers: german,
					want: map[string]any{"data/0/id": "IT-65", "data/0/attributes/name": "Abruzzen", "data/0/meta/title": "Abruzzen"}},
				{name: "included regions", path: "/api/countries/IT?include=regions", headers: german,
					want: map[string]any{"data/attributes/name": "Italien", "included/0/type": "regions"}},
				{name: "a subresource page", path: "/api/countries/IT/regions?sort=name&page[size]=1", headers: german,
					want: map[string]any{"data/0/attributes/name": "Abruzzen"}},
				{name: "a related record", path: "/api/regions/IT-25/country", headers: german,
					want: map[string]any{"data/attributes/name": "Italien"}},
				{name: "a relationship", path: "/api/countries/IT/relationships/regions?page[size]=1", headers: german,
					want: map[string]any{"data/0/type": "regions"}},
				{name: "back office", path: "/admin/api/regions/IT-25?include=country", headers: jsonAPI,
					want:  map[string]any{"data/attributes/name": "Lombardia", "included/0/attributes/name": "Italy"},
					named: "name_en", unnamed: []string{"name_de", "name_fr", "name_es"}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					sub := *a
					sub.t = t
					if tc.named == "" {
						tc.named, tc.unnamed = "name_de", []string{"name_en", "name_fr", "name_es"}
					}
					var r *result
					queries := counter.during(func() { r = sub.do(http.MethodGet, tc.path, tc.headers, "").want(t, 200) })
					checkValues(t, r, tc.want)
					all := strings.Join(queries, "\n")
					if !strings.Contains(all, tc.named) {
						t.Errorf("no statement names %s:\n%s", tc.named, all)
					}
					for _, col := range tc.unnamed {
						if strings.Contains(all, col) {
							t.Errorf("a statement names %s:\n%s", col, all)
						}
					}
				})
			}
		})
	}
}
