package storage_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// auditRow is an audit row as the tests read it.
type auditRow struct {
	action, id string
	client     *string
	user       *int64
	request    *string
	org        int64
}

// auditsOf reads the audit rows of an account, oldest first.
func auditsOf(t *testing.T, s *storage.Store, id any) []auditRow {
	t.Helper()
	rows, err := s.DB().QueryContext(context.Background(),
		"SELECT action, resource_id, client_id, user_id, request_id, organization_id FROM audits WHERE resource_type = 'accounts' AND resource_id = ? ORDER BY id",
		fmt.Sprint(id))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []auditRow
	for rows.Next() {
		var r auditRow
		if err := rows.Scan(&r.action, &r.id, &r.client, &r.user, &r.request, &r.org); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	return out
}

// TestAuditNamesTheActor: every write of a record leaves its audit row,
// naming the actor of its context, on each of the store's paths (a single
// write in autocommit, a transaction, a batch's bulk transaction); a
// write without one (the demo data, a migration) names nobody; a
// transaction rolled back leaves none.
func TestAuditNamesTheActor(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		accounts := storagetest.Table(t, s, "accounts")
		ctx := storage.WithActor(context.Background(), storage.Actor{Org: 1, Client: "auditing", User: 1, Request: "req-1"})
		note := storage.Event{Org: 1, Type: "accounts", Action: storage.EventCreated, Table: accounts, Attributes: []string{"name"}}
		check := func(t *testing.T, id any, want ...string) {
			t.Helper()
			got := auditsOf(t, s, id)
			if len(got) != len(want) {
				t.Fatalf("%d audit rows, want %d: %+v", len(got), len(want), got)
			}
			for i, r := range got {
				if r.action != want[i] || r.org != 1 || r.client == nil || *r.client != "auditing" || r.user == nil || *r.user != 1 ||
					r.request == nil || *r.request != "req-1" {
					t.Errorf("audit row %d: %+v, want %s by the context's actor", i, r, want[i])
				}
			}
		}
		t.Run("single writes", func(t *testing.T) {
			row, err := s.Conn.Noting(note).InsertRow(ctx, accounts, 1, storage.Row{"name": "Single"})
			if err != nil {
				t.Fatal(err)
			}
			update := note
			update.Action, update.Key = storage.EventUpdated, row["id"]
			if _, err := s.Conn.Noting(update).UpdateRow(ctx, accounts, 1, row["id"], storage.Row{"name": "Single again"}); err != nil {
				t.Fatal(err)
			}
			remove := update
			remove.Action = storage.EventDeleted
			if err := s.Conn.Noting(remove).Delete(ctx, accounts, 1, row["id"]); err != nil {
				t.Fatal(err)
			}
			check(t, row["id"], "create", "update", "remove")
		})
		t.Run("transaction", func(t *testing.T) {
			var id any
			err := s.Tx(ctx, func(c *storage.Conn) error {
				row, err := c.InsertRow(ctx, accounts, 1, storage.Row{"name": "In a transaction"})
				id = row["id"]
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			check(t, id, "create")
		})
		t.Run("bulk transaction", func(t *testing.T) {
			var keys []any
			err := s.Bulk().Tx(ctx, func(c *storage.Conn) (err error) {
				keys, err = c.InsertMany(ctx, accounts, 1, []storage.Row{{"name": "Bulk 1"}, {"name": "Bulk 2"}})
				return err
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, k := range keys {
				check(t, k, "create")
			}
		})
		t.Run("rolled back", func(t *testing.T) {
			var id any
			refused := errors.New("refused")
			err := s.Tx(ctx, func(c *storage.Conn) error {
				row, err := c.InsertRow(ctx, accounts, 1, storage.Row{"name": "Never"})
				if err != nil {
					return err
				}
				id = row["id"]
				return refused
			})
			if !errors.Is(err, refused) {
				t.Fatal(err)
			}
			check(t, id)
		})
		t.Run("no actor", func(t *testing.T) {
			row, err := s.Conn.InsertRow(context.Background(), accounts, 1, storage.Row{"name": "System"})
			if err != nil {
				t.Fatal(err)
			}
			got := auditsOf(t, s, row["id"])
			if len(got) != 1 || got[0].client != nil || got[0].user != nil || got[0].request != nil || got[0].org != 1 {
				t.Errorf("a write without an actor: %+v, want one row of organization 1 naming nobody", got)
			}
		})
	})
}

// TestDeleteAuditsBefore: the retention deletes the rows logged before
// its time and none after, and keeps the newest, so that an id is never
// given again (SQLite's rowid follows the largest left).
func TestDeleteAuditsBefore(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		accounts := storagetest.Table(t, s, "accounts")
		older, err := s.Conn.InsertRow(ctx, accounts, 1, storage.Row{"name": "Kept a while"})
		if err != nil {
			t.Fatal(err)
		}
		newest, err := s.Conn.InsertRow(ctx, accounts, 1, storage.Row{"name": "Kept last"})
		if err != nil {
			t.Fatal(err)
		}
		if n, err := s.DeleteAuditsBefore(ctx, time.Now().Add(-time.Hour)); err != nil || n != 0 {
			t.Fatalf("deleted %d rows logged after the limit (%v)", n, err)
		}
		if len(auditsOf(t, s, older["id"])) != 1 {
			t.Fatal("the audit row is gone")
		}
		if n, err := s.DeleteAuditsBefore(ctx, time.Now().Add(time.Hour)); err != nil || n == 0 {
			t.Fatalf("deleted %d rows logged before the limit (%v)", n, err)
		}
		if got := auditsOf(t, s, older["id"]); len(got) != 0 {
			t.Fatalf("%d audit rows left", len(got))
		}
		if got := auditsOf(t, s, newest["id"]); len(got) != 1 {
			t.Fatalf("the newest audit row: %d left, want it kept", len(got))
		}
	})
}

// TestAuditTriggersRenewed: on PostgreSQL the audit triggers live in the
// schema; a start (Migrate) puts back a function that differs from the
// build's (an older build's, or one changed by hand) and a trigger that is
// missing, and leaves those that are right alone.
func TestAuditTriggersRenewed(t *testing.T) {
	t.Parallel()
	if !slices.Contains(storagetest.Dialects(), "postgres") {
		t.Skip("PostgreSQL only; TEST_DATABASE_URL is not set (CI sets it)")
	}
	s := storagetest.Open(t, "postgres")
	ctx := context.Background()
	for _, stmt := range []string{
		`CREATE OR REPLACE FUNCTION entityapi_audit_accounts_insert() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN RETURN NULL; END$$`,
		`DROP TRIGGER entityapi_audit_update ON accounts`,
	} {
		if _, err := s.DB().ExecContext(ctx, stmt); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	accounts := storagetest.Table(t, s, "accounts")
	row, err := s.Conn.InsertRow(ctx, accounts, 1, storage.Row{"name": "Renewed"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Conn.UpdateRow(ctx, accounts, 1, row["id"], storage.Row{"name": "Renewed again"}); err != nil {
		t.Fatal(err)
	}
	if got := auditsOf(t, s, row["id"]); len(got) != 2 || got[0].action != "create" || got[1].action != "update" {
		t.Fatalf("after a start: %+v, want the create and the update audited", got)
	}
}
