package storage_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestBulkTransactionsRecordTheirOwnEvents: a transaction on Store.Bulk (a
// batch chunk's) writes rows and records each one's event (InsertMany with
// Noting) on both databases; on SQLite it runs on a connection without
// note triggers, so that none fires for its rows, and a noted single write
// there, which needs one, fails instead of committing a change without its
// event. Outside a transaction a noted single write on Bulk works.
func TestBulkTransactionsRecordTheirOwnEvents(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		accounts := storagetest.Table(t, s, "accounts")
		one := int64(1)
		note := storage.Event{Org: 1, Type: "accounts", Action: storage.EventCreated, Table: accounts, Version: &one,
			Attributes: []string{"name"}}
		rows := make([]storage.Row, 50)
		for i := range rows {
			rows[i] = storage.Row{"name": fmt.Sprintf("Bulk %d", i)}
		}
		var keys []any
		err := s.Bulk().Tx(ctx, func(c *storage.Conn) (err error) {
			if s.Dialect() == "sqlite" {
				var notes, audits int
				if err := c.Bun().QueryRowContext(ctx, "SELECT count(*) FILTER (WHERE name LIKE 'entityapi_note_%'), "+
					"count(*) FILTER (WHERE name LIKE 'entityapi_audit_%') FROM sqlite_temp_master WHERE type = 'trigger'").Scan(&notes, &audits); err != nil {
					return err
				}
				if notes != 0 {
					t.Errorf("a bulk transaction's connection has %d note triggers", notes)
				}
				if audits == 0 { // every change leaves its audit row, a batch's too
					t.Error("a bulk transaction's connection has no audit triggers")
				}
			}
			keys, err = c.Noting(note).InsertMany(ctx, accounts, 1, rows)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		f := &follower{s: s, t: storagetest.Table(t, s, "events")}
		f.expectEventsOf(t, keys)

		if s.Dialect() == "sqlite" {
			err = s.Bulk().Tx(ctx, func(c *storage.Conn) error {
				_, err := c.Noting(note).InsertRow(ctx, accounts, 1, storage.Row{"name": "Unnoted"})
				return err
			})
			if err == nil {
				t.Fatal("a noted single write in a bulk transaction succeeded without its trigger")
			}
		}
		row, err := s.Bulk().Noting(note).InsertRow(ctx, accounts, 1, storage.Row{"name": "Noted"})
		if err != nil {
			t.Fatal(err)
		}
		f.until(t, len(rows)+1)
		if len(f.order) != len(rows)+1 || f.order[len(rows)] != fmt.Sprint(row["id"]) {
			t.Fatalf("events %v, want the last of record %v", f.order[len(rows):], row["id"])
		}
	})
}
