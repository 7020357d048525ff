package storage_test

import (
	"context"
	"testing"
	"time"

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

// BenchmarkReferenceGeneration is one reading of the answer cache
// (server/answercache): its cost is shared by the requests that wait for it.
func BenchmarkReferenceGeneration(b *testing.B) {
	for _, dialect := range storagetest.Dialects() {
		b.Run(dialect, func(b *testing.B) {
			s := storagetest.Open(b, dialect)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				ctx, cancel := context.WithTimeout(ctx, time.Second)
				_, err := s.ReferenceGeneration(ctx)
				cancel()
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestCommitMark: on a SQLite file the commit mark stays while nothing is
// committed, reads and rolled-back writes included, and moves with every
// commit that changes a row, by the store's own connections or another
// store's on the file (as another process's); PostgreSQL has none, and a
// caller reads the database.
func TestCommitMark(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			s, other := storagetest.OpenTwo(t, dialect)
			ctx := context.Background()
			mark := func() (storage.CommitMark, bool) {
				t.Helper()
				m, ok := s.CommitMark()
				if ok != (dialect == "sqlite") {
					t.Fatalf("CommitMark ok = %v on %s", ok, dialect)
				}
				return m, ok
			}
			if _, ok := mark(); !ok {
				return
			}
			exec := func(db *storage.Store, stmt string) {
				t.Helper()
				if _, err := db.DB().ExecContext(ctx, stmt); err != nil {
					t.Fatalf("%s: %v", stmt, err)
				}
			}
			before, _ := mark()
			if _, err := s.ReferenceGeneration(ctx); err != nil {
				t.Fatal(err)
			}
			if _, err := other.ReferenceGeneration(ctx); err != nil {
				t.Fatal(err)
			}
			tx, err := s.DB().BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := tx.ExecContext(ctx, "UPDATE regions SET name_en = name_en WHERE code = 'DE-BY'"); err != nil {
				t.Fatal(err)
			}
			if m, _ := mark(); m != before {
				t.Error("the mark moved for a write not committed yet")
			}
			if err := tx.Rollback(); err != nil {
				t.Fatal(err)
			}
			if m, _ := mark(); m != before {
				t.Error("the mark moved with reads and a rolled-back write")
			}
			for i, write := range []struct {
				by   *storage.Store
				stmt string
			}{
				{s, "UPDATE regions SET name_en = name_en WHERE code = 'DE-BY'"},
				{other, "UPDATE regions SET name_en = name_en WHERE code = 'DE-BY'"},
				{other, "UPDATE countries SET name_en = name_en WHERE code = 'US'"},
			} {
				exec(write.by, write.stmt)
				after, ok := mark()
				if !ok || after == before {
					t.Errorf("commit %d (%s): the mark stayed (ok %v)", i, write.stmt, ok)
				}
				before = after
			}
			// A write that changes no row writes nothing to the log: nothing
			// to see, and the mark stays.
			exec(s, "DELETE FROM countries WHERE code = 'none'")
			if m, _ := mark(); m != before {
				t.Error("the mark moved for a write that changed nothing")
			}
		})
	}
}
