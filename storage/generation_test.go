package storage_test

import (
	"context"
	"testing"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestReferenceGenerationRaisedByEveryChange: every statement that changes
// a reference table, made outside the store as an operator or a migration
// would, raises the generation once it commits, and not before; a write to
// another table leaves it.
func TestReferenceGenerationRaisedByEveryChange(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			s := storagetest.Open(t, dialect)
			ctx := context.Background()
			read := func() int64 {
				t.Helper()
				g, err := s.ReferenceGeneration(ctx)
				if err != nil {
					t.Fatal(err)
				}
				return g
			}
			exec := func(stmt string) {
				t.Helper()
				if _, err := s.DB().ExecContext(ctx, stmt); err != nil {
					t.Fatalf("%s: %v", stmt, err)
				}
			}
			changes := []string{
				"INSERT INTO countries (code, iso3, name_en, name_de, name_fr, name_es) VALUES ('ZZ', 'ZZZ', 'Zed', 'Zed', 'Zed', 'Zed')",
				"UPDATE countries SET name_en = 'Zed Land' WHERE code = 'ZZ'",
				"DELETE FROM countries WHERE code = 'ZZ'",
			}
			for _, table := range storage.ReferenceTables {
				changes = append(changes, "UPDATE "+table+" SET "+firstColumn[table]+" = "+firstColumn[table])
			}
			for _, stmt := range changes {
				before := read()
				exec(stmt)
				if after := read(); after <= before {
					t.Errorf("%s: the generation went from %d to %d", stmt, before, after)
				}
			}
			// Not before it commits.
			tx, err := s.DB().BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			before := read()
			if _, err := tx.ExecContext(ctx, "UPDATE regions SET name_en = name_en WHERE code = 'DE-BY'"); err != nil {
				t.Fatal(err)
			}
			if got := read(); got != before {
				t.Errorf("an uncommitted change moved the generation from %d to %d", before, got)
			}
			if err := tx.Commit(); err != nil {
				t.Fatal(err)
			}
			if got := read(); got <= before {
				t.Errorf("the committed change left the generation at %d", got)
			}
			before = read()
			exec("UPDATE accounts SET name = name")
			if got := read(); got != before {
				t.Errorf("a write to accounts moved the generation from %d to %d", before, got)
			}
		})
	}
}

// firstColumn is a column of each reference table, to write as it is.
var firstColumn = map[string]string{"countries": "name_en", "currencies": "name", "localizations": "title",
	"regions": "name_en", "userroles": "label"}
