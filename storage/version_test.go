package storage_test

import (
	"context"
	"errors"
	"testing"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestRowVersions: a new row is version 1; every write of it (Update,
// UpdateRow, Touch) adds one; the column is never taken from a Row; Version
// reads it, in or outside a transaction, and reports a missing row.
func TestRowVersions(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		accounts := storagetest.Table(t, s, "accounts")
		if !accounts.Versioned || storagetest.Table(t, s, "countries").Versioned {
			t.Fatalf("accounts versioned %v, countries versioned %v", accounts.Versioned, storagetest.Table(t, s, "countries").Versioned)
		}
		key, err := s.Insert(ctx, accounts, 1, storage.Row{"name": "Counted"})
		if err != nil {
			t.Fatal(err)
		}
		want := int64(1)
		expect := func(step string) {
			t.Helper()
			got, err := s.Version(ctx, accounts, 1, key)
			if err != nil || got != want {
				t.Fatalf("%s: version %d (%v), want %d", step, got, err, want)
			}
			row, err := s.Get(ctx, accounts, 1, key)
			if err != nil || row[storage.VersionColumn] != want {
				t.Fatalf("%s: the row reads version %v (%v), want %d", step, row[storage.VersionColumn], err, want)
			}
		}
		expect("insert")
		for _, step := range []struct {
			name  string
			write func() error
		}{
			{"Update", func() error { return s.Update(ctx, accounts, 1, key, storage.Row{"name": "A"}) }},
			{"UpdateRow", func() error { _, err := s.UpdateRow(ctx, accounts, 1, key, storage.Row{"name": "B"}); return err }},
			{"Touch", func() error { return s.Touch(ctx, accounts, 1, key) }},
			{"Touch in a transaction after Version", func() error {
				return s.Tx(ctx, func(c *storage.Conn) error {
					if _, err := c.Version(ctx, accounts, 1, key); err != nil {
						return err
					}
					return c.Touch(ctx, accounts, 1, key)
				})
			}},
		} {
			if err := step.write(); err != nil {
				t.Fatalf("%s: %v", step.name, err)
			}
			want++
			expect(step.name)
		}
		if err := s.Update(ctx, accounts, 1, key, storage.Row{storage.VersionColumn: int64(99)}); err == nil {
			t.Error("Update set the version from a Row")
		}
		if _, err := s.Insert(ctx, accounts, 1, storage.Row{"name": "X", storage.VersionColumn: int64(5)}); err == nil {
			t.Error("Insert took the version from a Row")
		}
		expect("refused writes")
		if _, err := s.Version(ctx, accounts, 2, key); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("Version in another organization: %v, want ErrNotFound", err)
		}
		if err := s.Touch(ctx, accounts, 1, int64(999999)); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("Touch of a missing row: %v, want ErrNotFound", err)
		}
	})
}
