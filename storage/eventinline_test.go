package storage_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"testing"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestNotingWritesTheEventWithItsRow: a noted InsertRow, UpdateRow or
// Delete records its event in its own statement (PostgreSQL: a WITH;
// SQLite: the note triggers), with the row's key and version; a write that
// fails or finds no row records none.
func TestNotingWritesTheEventWithItsRow(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		accounts := storagetest.Table(t, s, "accounts")
		ev := func(action string) storage.Event {
			return storage.Event{Org: 1, Type: "accounts", Action: action, Attributes: []string{"name"}, Client: "c", User: 1}
		}
		row, err := s.Noting(ev(storage.EventCreated)).InsertRow(ctx, accounts, 1, storage.Row{"name": "Noted", "external_id": "N-1"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Noting(ev(storage.EventUpdated)).UpdateRow(ctx, accounts, 1, row["id"], storage.Row{"name": "Noted 2"}); err != nil {
			t.Fatal(err)
		}
		var unique *storage.UniqueError
		if _, err := s.Noting(ev(storage.EventCreated)).InsertRow(ctx, accounts, 1, storage.Row{"name": "Twin", "external_id": "N-1"}); !errors.As(err, &unique) {
			t.Fatalf("a clash: %v", err)
		}
		if _, err := s.Noting(ev(storage.EventUpdated)).UpdateRow(ctx, accounts, 1, int64(999999), storage.Row{"name": "None"}); !errors.Is(err, storage.ErrNotFound) {
			t.Fatalf("a missing row: %v", err)
		}
		if err := s.Noting(ev(storage.EventDeleted)).Delete(ctx, accounts, 1, row["id"]); err != nil {
			t.Fatal(err)
		}
		if err := s.Noting(ev(storage.EventDeleted)).Delete(ctx, accounts, 1, row["id"]); !errors.Is(err, storage.ErrNotFound) {
			t.Fatalf("a second delete: %v", err)
		}
		f := &follower{s: s, t: storagetest.Table(t, s, "events")}
		f.until(t, 3)
		f.read(t)
		if want := []string{keyOf(row), keyOf(row), keyOf(row)}; !slices.Equal(f.order, want) {
			t.Fatalf("events of %v, want %v", f.order, want)
		}
		rows, err := s.Find(ctx, storage.Query{Table: f.t, Org: 1, OrderBy: []storage.Order{{Column: "id"}}})
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range []int64{1, 2, 2} { // a delete: the version the row had
			if rows[i]["version"] != want || rows[i]["client_id"] != "c" || rows[i]["user_id"] != int64(1) {
				t.Errorf("event %d: %v, want version %d by client c and user 1", i, rows[i], want)
			}
		}
	})
}

func keyOf(row storage.Row) string { return strconv.FormatInt(row["id"].(int64), 10) }
