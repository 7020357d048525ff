package server_test

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/entityapi/entityapi/openapi"
	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// documentRegistries are the resources of the back office's and the
// storefront's public documents.
func documentRegistries(t *testing.T) []*resource.Registry {
	t.Helper()
	var out []*resource.Registry
	for _, data := range [][]byte{openapi.Backoffice, openapi.Storefront} {
		doc, err := openapi3.NewLoader().LoadFromData(data)
		if err != nil {
			t.Fatal(err)
		}
		reg, err := resource.Load(doc)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, reg)
	}
	return out
}

// TestSearchIndexesFollowTheDocuments holds three lists in step: the
// attributes each document declares searchable (x-entityapi search), the
// columns storage.SearchColumns names for their tables' indexes (one per
// language where the attributes are localized), and the full-text indexes
// the migrations built (PostgreSQL: each generated search_vector column's
// expression; SQLite: the FTS5 table's columns, as its triggers read them). A new searchable attribute needs a migration; this test says
// which.
func TestSearchIndexesFollowTheDocuments(t *testing.T) {
	t.Parallel()
	declared := map[string]map[string][]string{}
	open := map[string][]string{}
	for _, reg := range documentRegistries(t) {
		for _, typ := range reg.Types() {
			res, _ := reg.Get(typ)
			if len(res.Search) > 0 {
				declared[res.Table] = searchIndexesOf(res)
			}
			if cols := openIndexOf(res); cols != nil {
				open[res.Table] = cols
			}
		}
	}
	for table, indexes := range declared {
		if !maps.EqualFunc(indexes, storage.SearchColumns[table], slices.Equal) {
			t.Errorf("%s: the documents search %v, storage.SearchColumns has %v", table, indexes, storage.SearchColumns[table])
		}
	}
	for table := range storage.SearchColumns {
		if _, ok := declared[table]; !ok {
			t.Errorf("%s: storage.SearchColumns lists it, no document declares its search", table)
		}
	}
	if !maps.EqualFunc(open, storage.OpenSearchColumns, slices.Equal) {
		t.Errorf("open indexes: the documents need %v, storage.OpenSearchColumns has %v", open, storage.OpenSearchColumns)
	}
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			s := storagetest.Open(t, dialect)
			ctx := context.Background()
			for table, cols := range storage.OpenSearchColumns {
				checkOpenIndex(t, s, dialect, table, cols)
			}
			for table, indexes := range storage.SearchColumns {
				if dialect == "sqlite" {
					// Every table's insert trigger writes its FTS5 table.
					// A table of one index notes its updates and deletes
					// (migration 0019): the update trigger keeps the old
					// text, and search_pending's trigger writes the new,
					// each reading the same columns.
					var want []string
					for _, lang := range ftsLanguages(t, s, table) {
						want = append(want, indexes[lang]...)
					}
					triggers := map[string]string{table + "_search_insert": "coalesce(new."}
					if len(indexes) == 1 {
						triggers[table+"_search_update"] = "coalesce(old."
						triggers[table+"_search_write"] = "coalesce("
					}
					for trigger, prefix := range triggers {
						var text string
						err := s.DB().QueryRowContext(ctx, "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?", trigger).Scan(&text)
						if err != nil {
							t.Fatalf("%s: %v", trigger, err)
						}
						checkIndexed(t, trigger, text, prefix, want)
					}
					continue
				}
				for lang, cols := range indexes {
					col := "search_vector"
					if lang != "" {
						col += "_" + lang
					}
					var expr string
					err := s.DB().QueryRowContext(ctx, "SELECT coalesce(generation_expression, '') FROM information_schema.columns "+
						"WHERE table_schema = current_schema() AND table_name = ? AND column_name = ?", table, col).Scan(&expr)
					if err != nil {
						t.Fatalf("%s.%s: %v", table, col, err)
					}
					checkIndexed(t, table+"."+col, expr, "COALESCE(", cols)
				}
			}
		})
	}
}

// searchIndexesOf is the columns of res's full-text indexes by language,
// as its searched attributes say: the default index reads their columns;
// each language one of them is localized in (to a column of its own) has
// an index reading the language's columns.
func searchIndexesOf(res *resource.Resource) map[string][]string {
	out := map[string][]string{}
	for _, a := range res.Search {
		out[""] = append(out[""], a.Column)
	}
	for _, a := range res.Search {
		for lang, col := range a.Localized {
			if col == a.Column || out[lang] != nil {
				continue
			}
			for _, b := range res.Search {
				out[lang] = append(out[lang], b.ColumnIn(lang))
			}
		}
	}
	return out
}

// openIndexOf is the columns of res's open index (docs/fields.md): its
// searched attributes that name no readers, when some others do; nil when
// every reader reads them all.
func openIndexOf(res *resource.Resource) []string {
	var cols []string
	restricted := false
	for _, a := range res.Search {
		if len(a.Readers) > 0 {
			restricted = true
			continue
		}
		cols = append(cols, a.Column)
	}
	if !restricted {
		return nil
	}
	return cols
}

// checkOpenIndex holds table's open index to cols: on PostgreSQL the
// expression of search_vector_open, on SQLite the triggers that write
// <table>_search_open.
func checkOpenIndex(t *testing.T, s *storage.Store, dialect, table string, cols []string) {
	t.Helper()
	ctx := context.Background()
	if dialect != "sqlite" {
		var expr string
		err := s.DB().QueryRowContext(ctx, "SELECT coalesce(generation_expression, '') FROM information_schema.columns "+
			"WHERE table_schema = current_schema() AND table_name = ? AND column_name = ?", table, "search_vector_open").Scan(&expr)
		if err != nil {
			t.Fatalf("%s.search_vector_open: %v", table, err)
		}
		checkIndexed(t, table+".search_vector_open", expr, "COALESCE(", cols)
		return
	}
	for trigger, prefix := range map[string]string{"_insert": "coalesce(new.", "_delete": "coalesce(old."} {
		trigger = table + "_search_open" + trigger
		var text string
		err := s.DB().QueryRowContext(ctx, "SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = ?", trigger).Scan(&text)
		if err != nil {
			t.Fatalf("%s: %v", trigger, err)
		}
		checkIndexed(t, trigger, text, prefix, cols)
	}
}

// ftsLanguages are the languages of the columns of table's FTS5 table, in
// its order: body is the default index (""), body_<lang> a language's; the
// key column k is none.
func ftsLanguages(t *testing.T, s *storage.Store, table string) []string {
	t.Helper()
	rows, err := s.DB().QueryContext(context.Background(), "SELECT name FROM pragma_table_info(?)", table+"_search")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var langs []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		if lang, ok := strings.CutPrefix(name, "body"); ok {
			langs = append(langs, strings.TrimPrefix(lang, "_"))
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return langs
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
