package storage_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestSearchConfiguration opens one database as processes with another
// text-search configuration would (Options.SearchConfiguration): on
// PostgreSQL, Migrate rebuilds every generated full-text column in it, the
// searches read in it (english stems "running" and "runs" to "run"), a
// store that names none (an administration command) leaves them so, and a
// process back on simple rebuilds them again; an unknown configuration
// stops Migrate, naming it. SQLite, whose index reads words one way, takes
// simple only and refuses another at open.
func TestSearchConfiguration(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			first, url := storagetest.OpenWithURL(t, dialect)
			ctx := context.Background()
			accounts := storagetest.Table(t, first, "accounts")
			keys, err := first.InsertMany(ctx, accounts, 1, []storage.Row{{"name": "Running Shoes"}})
			if err != nil {
				t.Fatal(err)
			}
			reopen := func(cfg string) (*storage.Store, error) {
				opts := storagetest.StoreOptions(dialect) // through the tests' pooler, when they have one
				opts.SearchConfiguration = cfg
				s, err := storage.OpenWith(ctx, url, opts)
				if err != nil {
					return nil, err
				}
				t.Cleanup(func() { s.Close() })
				return s, s.Migrate(ctx)
			}
			if dialect == "sqlite" {
				if _, err := reopen("english"); err == nil || !strings.Contains(err.Error(), "postgres") {
					t.Fatalf("SQLite opened with english: %v", err)
				}
				if _, err := reopen("simple"); err != nil {
					t.Fatalf("SQLite with simple: %v", err)
				}
				return
			}
			finds := func(s *storage.Store, word string) bool {
				t.Helper()
				rows, err := s.Find(ctx, storage.Query{Table: accounts, Org: 1, Columns: []string{"id"},
					Where: []storage.Cond{{Op: storage.Match, Values: []any{storage.Search{All: [][]string{{word}}}}}}})
				if err != nil {
					t.Fatal(err)
				}
				return len(rows) == 1 && rows[0]["id"] == keys[0]
			}
			if !finds(first, "running") || finds(first, "runs") {
				t.Fatal("simple: want running found, runs not")
			}
			english, err := reopen("english")
			if err != nil {
				t.Fatal(err)
			}
			configurations := func(s *storage.Store) []string {
				t.Helper()
				var out []string
				columns := map[string][]string{}
				for table, indexes := range storage.SearchColumns {
					for lang := range indexes {
						col := "search_vector"
						if lang != "" {
							col += "_" + lang
						}
						columns[table] = append(columns[table], col)
					}
				}
				for table := range storage.OpenSearchColumns { // migration 0022
					columns[table] = append(columns[table], "search_vector_open")
				}
				for table, cols := range columns {
					for _, col := range cols {
						var expr string
						if err := s.DB().QueryRowContext(ctx, "SELECT generation_expression FROM information_schema.columns "+
							"WHERE table_schema = current_schema() AND table_name = ? AND column_name = ?", table, col).Scan(&expr); err != nil {
							t.Fatalf("%s.%s: %v", table, col, err)
						}
						cfg, _, _ := strings.Cut(strings.TrimPrefix(expr, "to_tsvector('"), "'")
						out = append(out, cfg)
					}
				}
				return slices.Compact(slices.Sorted(slices.Values(out)))
			}
			if got := configurations(english); !slices.Equal(got, []string{"english"}) {
				t.Fatalf("after english: the columns are built in %v", got)
			}
			if !finds(english, "runs") || !finds(english, "running") {
				t.Error("english: want runs and running found")
			}
			var indexes int
			if err := english.DB().QueryRowContext(ctx, "SELECT count(*) FROM pg_indexes WHERE schemaname = current_schema() "+
				"AND indexdef LIKE '%USING gin (search_vector%'").Scan(&indexes); err != nil {
				t.Fatal(err)
			}
			want := len(storage.OpenSearchColumns) // each open index too (migration 0022)
			for _, idx := range storage.SearchColumns {
				want += len(idx)
			}
			if indexes != want {
				t.Errorf("%d GIN indexes of search columns after the rebuild, want %d", indexes, want)
			}
			unnamed, err := reopen("")
			if err != nil {
				t.Fatal(err)
			}
			if got := configurations(unnamed); !slices.Equal(got, []string{"english"}) {
				t.Fatalf("a store naming no configuration changed the columns to %v", got)
			}
			simple, err := reopen("simple")
			if err != nil {
				t.Fatal(err)
			}
			if got := configurations(simple); !slices.Equal(got, []string{"simple"}) {
				t.Fatalf("back on simple: the columns are built in %v", got)
			}
			if !finds(simple, "running") || finds(simple, "runs") {
				t.Error("back on simple: want running found, runs not")
			}
			if _, err := reopen("no_such_configuration"); err == nil || !strings.Contains(err.Error(), "no_such_configuration") {
				t.Errorf("an unknown configuration: %v", err)
			}
			if _, err := storage.OpenWith(ctx, url, storage.Options{Pooler: storagetest.StoreOptions(dialect).Pooler,
				SearchConfiguration: "x'; DROP TABLE accounts; --"}); err == nil {
				t.Error("a configuration name that is no identifier opened")
			}
		})
	}
}
