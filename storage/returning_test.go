package storage_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestInsertRowUpdateRow: a write that reads its row back answers what Get
// reads afterwards, in one statement (no BEGIN and COMMIT of its own), and
// fails as Insert and Update do; Existing checks keys as Find would. On
// SQLite an update of a searchable table sends one more, which writes the
// full-text index from its triggers' notes (storage/searchpending.go); a
// create's trigger writes the index in its own statement.
func TestInsertRowUpdateRow(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		accounts := storagetest.Table(t, s, "accounts")
		same := func(what string, got storage.Row, key any) {
			t.Helper()
			want, err := s.Get(ctx, accounts, 1, key)
			if err != nil {
				t.Fatalf("%s: Get: %v", what, err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s answered %v\nGet reads %v", what, got, want)
			}
		}
		before := s.Statements()
		row, err := s.InsertRow(ctx, accounts, 1, storage.Row{"name": "Acme", "external_id": "R-1"})
		if err != nil {
			t.Fatalf("InsertRow: %v", err)
		}
		if n := s.Statements() - before; n != 1 {
			t.Errorf("InsertRow sent %d statements, want 1", n)
		}
		key := row["id"]
		if id, ok := key.(int64); !ok || id < 1 {
			t.Fatalf("InsertRow id = %#v, want a positive int64", key)
		}
		same("InsertRow", row, key)

		statements := int64(1)
		if s.Dialect() == "sqlite" {
			statements = 2 // DELETE FROM search_pending, whose triggers write the index
		}
		before = s.Statements()
		row, err = s.UpdateRow(ctx, accounts, 1, key, storage.Row{"name": "Acme 2", "external_id": nil})
		if err != nil {
			t.Fatalf("UpdateRow: %v", err)
		}
		if n := s.Statements() - before; n != statements {
			t.Errorf("UpdateRow sent %d statements, want %d", n, statements)
		}
		if row["name"] != "Acme 2" || row["external_id"] != nil {
			t.Errorf("UpdateRow = %v", row)
		}
		same("UpdateRow", row, key)

		if _, err := s.UpdateRow(ctx, accounts, 2, key, storage.Row{"name": "X"}); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("UpdateRow in another organization: %v, want ErrNotFound", err)
		}
		if _, err := s.InsertRow(ctx, accounts, 1, storage.Row{"name": "Twin", "external_id": "R-2"}); err != nil {
			t.Fatal(err)
		}
		var ue *storage.UniqueError
		if _, err := s.InsertRow(ctx, accounts, 1, storage.Row{"name": "Twin 2", "external_id": "R-2"}); !errors.As(err, &ue) {
			t.Errorf("InsertRow of a taken external_id: %v, want a UniqueError", err)
		}
		if _, err := s.UpdateRow(ctx, accounts, 1, key, storage.Row{"external_id": "R-2"}); !errors.As(err, &ue) {
			t.Errorf("UpdateRow to a taken external_id: %v, want a UniqueError", err)
		}
		var fe *storage.ForeignKeyError
		if _, err := s.InsertRow(ctx, accounts, 1, storage.Row{"name": "Orphan", "owner_id": int64(999999)}); !errors.As(err, &fe) {
			t.Errorf("InsertRow with a missing owner: %v, want a ForeignKeyError", err)
		}

		// Existing names the keys that exist in the organization, and only those.
		found, err := s.Existing(ctx, accounts, 1, "id", []any{key, int64(999999)})
		if err != nil || !reflect.DeepEqual(found, []any{key}) {
			t.Errorf("Existing = %v, %v; want [%v]", found, err, key)
		}
		if found, err := s.Existing(ctx, accounts, 2, "id", []any{key}); err != nil || len(found) != 0 {
			t.Errorf("Existing in another organization = %v, %v; want none", found, err)
		}

		// In a transaction they are statements of that transaction.
		err = s.Tx(ctx, func(c *storage.Conn) error {
			row, err := c.InsertRow(ctx, accounts, 1, storage.Row{"name": "Inside"})
			if err != nil {
				return err
			}
			_, err = c.UpdateRow(ctx, accounts, 1, row["id"], storage.Row{"name": "Inside 2"})
			if err != nil {
				return err
			}
			return errors.New("roll back")
		})
		if err == nil || err.Error() != "roll back" {
			t.Fatalf("Tx: %v", err)
		}
		rows, err := s.Find(ctx, storage.Query{Table: accounts, Org: 1})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if r["name"] == "Inside" || r["name"] == "Inside 2" {
				t.Errorf("a rolled back row stayed: %v", r)
			}
		}
	})
}
