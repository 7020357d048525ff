package server_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/entityapi/entityapi/openapi"
	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestSearchIndexesFollowTheDocuments holds three lists in step: the
// attributes each document declares searchable (x-entityapi search), the
// columns storage.SearchColumns names for their tables, and the full-text
// index the migrations built (PostgreSQL: the generated search_vector
// column's expression; SQLite: the FTS5 table's columns). A new searchable
// attribute needs a migration; this test says which.
func TestSearchIndexesFollowTheDocuments(t *testing.T) {
	t.Parallel()
	doc, err := openapi3.NewLoader().LoadFromData(openapi.Backoffice)
	if err != nil {
		t.Fatal(err)
	}
	reg, err := resource.Load(doc)
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string][]string{}
	for _, typ := range reg.Types() {
		res, _ := reg.Get(typ)
		for _, a := range res.Search {
			declared[res.Table] = append(declared[res.Table], a.Column)
		}
	}
	for table, cols := range declared {
		if !slices.Equal(cols, storage.SearchColumns[table]) {
			t.Errorf("%s: the document searches %v, storage.SearchColumns has %v", table, cols, storage.SearchColumns[table])
		}
	}
	for table := range storage.SearchColumns {
		if _, ok := declared[table]; !ok {
			t.Errorf("%s: storage.SearchColumns lists it, no document declares its search", table)
		}
	}
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			s := storagetest.Open(t, dialect)
			ctx := context.Background()
			for table, cols := range storage.SearchColumns {
				if dialect == "sqlite" {
					var text string
					err := s.DB().QueryRowContext(ctx, "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?", table+"_search_insert").Scan(&text)
					if err != nil {
						t.Fatalf("%s_search_insert: %v", table, err)
					}
					checkIndexed(t, table+"_search_insert", text, "coalesce(new.", cols)
					continue
				}
				var expr string
				err := s.DB().QueryRowContext(ctx, "SELECT coalesce(generation_expression, '') FROM information_schema.columns "+
					"WHERE table_schema = current_schema() AND table_name = ? AND column_name = 'search_vector'", table).Scan(&expr)
				if err != nil {
					t.Fatalf("%s.search_vector: %v", table, err)
				}
				checkIndexed(t, table+".search_vector", expr, "COALESCE(", cols)
			}
		})
	}
}

// checkIndexed fails unless the SQL text of an index's definition reads
// exactly the columns cols, in order, each after prefix.
func checkIndexed(t *testing.T, name, text, prefix string, cols []string) {
	t.Helper()
	var got []string
	for rest := text; ; {
		i := strings.Index(rest, prefix)
		if i < 0 {
			break
		}
		rest = rest[i+len(prefix):]
		end := strings.IndexAny(rest, ",)")
		if end < 0 {
			break
		}
		got = append(got, strings.TrimSpace(rest[:end]))
		rest = rest[end:]
	}
	if !slices.Equal(got, cols) {
		t.Errorf("%s reads %v, want %v:\n%s", name, got, cols, text)
	}
}
