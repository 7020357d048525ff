package storage_test

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestFindColumns checks Query.Columns: Find and GetColumns read exactly the
// columns named (and only those reach the statement), nil reads every
// column, and a name the table does not declare is refused before any
// statement is sent.
func TestFindColumns(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		log := &statementLog{}
		s.AddStatementHook(log)
		regions, accounts := storagetest.Table(t, s, "regions"), storagetest.Table(t, s, "accounts")
		bavaria := []storage.Cond{{Column: "code", Op: storage.Eq, Values: []any{"DE-BY"}}}
		keys := func(r storage.Row) []string { return slices.Sorted(maps.Keys(r)) }

		var rows []storage.Row
		texts := log.during(func() {
			var err error
			rows, err = s.Find(ctx, storage.Query{Table: regions, Columns: []string{"name_de", "code"}, Where: bavaria})
			if err != nil {
				t.Fatal(err)
			}
		})
		if len(rows) != 1 || !slices.Equal(keys(rows[0]), []string{"code", "name_de"}) || rows[0]["name_de"] != "Bayern" || rows[0]["code"] != "DE-BY" {
			t.Errorf("Find with columns code, name_de: %v", rows)
		}
		if len(texts) != 1 {
			t.Fatalf("Find sent %q", texts)
		}
		for _, col := range []string{"name_en", "name_fr", "name_es", "country_code", "sub_code"} {
			if strings.Contains(texts[0], col) {
				t.Errorf("the statement names %s: %s", col, texts[0])
			}
		}

		row, err := s.GetColumns(ctx, regions, 0, "DE-BY", []string{"name_fr"})
		if err != nil || !slices.Equal(keys(row), []string{"name_fr"}) || row["name_fr"] != "Bavière" {
			t.Errorf("GetColumns name_fr: %v, %v", row, err)
		}
		row, err = s.GetColumns(ctx, regions, 0, "DE-BY", nil)
		if err != nil || !slices.Equal(keys(row), slices.Sorted(slices.Values(regions.Order))) {
			t.Errorf("GetColumns nil: %v, %v", row, err)
		}
		if _, err := s.GetColumns(ctx, regions, 0, "XX-XX", []string{"code"}); err != storage.ErrNotFound {
			t.Errorf("GetColumns of a missing key: %v", err)
		}

		// A time column read alone keeps its kind (SQLite selects it as text).
		before := time.Now()
		id := insert(t, s, "accounts", 1, storage.Row{"name": "a"})
		row, err = s.GetColumns(ctx, accounts, 1, id, []string{"created_at"})
		if err != nil || len(row) != 1 {
			t.Fatalf("GetColumns created_at: %v, %v", row, err)
		}
		storagetest.CheckStamp(t, row["created_at"], before)

		log.take()
		for _, bad := range []struct {
			name string
			tbl  *storage.Table
			cols []string
		}{
			{"unknown column", regions, []string{"code", "name_xx"}},
			{"another table's column", regions, []string{"code", "external_id"}},
			{"the organization", accounts, []string{"id", "organization_id"}},
			{"an injection", regions, []string{`code" FROM regions; --`}},
			{"a column twice", regions, []string{"code", "code"}},
			{"an empty list", regions, []string{}},
		} {
			if _, err := s.Find(ctx, storage.Query{Table: bad.tbl, Org: 1, Columns: bad.cols}); err == nil {
				t.Errorf("%s: Find with columns %q succeeded", bad.name, bad.cols)
			}
			if _, err := s.GetColumns(ctx, bad.tbl, 1, "DE-BY", bad.cols); err == nil || err == storage.ErrNotFound {
				t.Errorf("%s: GetColumns with columns %q: %v", bad.name, bad.cols, err)
			}
		}
		if sent := log.take(); len(sent) > 0 {
			t.Errorf("refused column lists sent %q", sent)
		}
	})
}
