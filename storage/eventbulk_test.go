package storage_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestInsertManyNotingRecordsEachRow: a noted InsertMany (a batch chunk of
// creates that set the same names) gives each row its own event, with the
// row's key, in the rows' transaction: on SQLite one INSERT ... SELECT over
// the rows' keys, on PostgreSQL a COPY (100 rows: over copyMinRows). A chunk that fails leaves neither rows nor events.
func TestInsertManyNotingRecordsEachRow(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		accounts := storagetest.Table(t, s, "accounts")
		events := storagetest.Table(t, s, "events")
		one := int64(1)
		note := storage.Event{Org: 1, Type: "accounts", Action: storage.EventCreated, Table: accounts, Version: &one,
			Attributes: []string{"name"}, Client: "batch", User: 1}
		rows := make([]storage.Row, 100)
		for i := range rows {
			rows[i] = storage.Row{"name": fmt.Sprintf("Bulk %d", i)}
		}
		var keys []any
		err := s.Tx(ctx, func(c *storage.Conn) (err error) {
			keys, err = c.Noting(note).InsertMany(ctx, accounts, 1, rows)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		f := &follower{s: s, t: events}
		f.expectEventsOf(t, keys)
		got, err := s.Find(ctx, storage.Query{Table: events, Org: 1, OrderBy: []storage.Order{{Column: "id"}}, Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		if e := got[0]; e["version"] != int64(1) || e["client_id"] != "batch" || e["user_id"] != int64(1) ||
			e["action"] != "created" || jsonText(e["changed_attributes"]) != `["name"]` {
			t.Fatalf("event %v", e)
		}

		// A chunk whose INSERT fails (a name is required) rolls its events back too.
		bad := []storage.Row{{"name": "Fine"}, {"name": nil}}
		err = s.Tx(ctx, func(c *storage.Conn) error {
			_, err := c.Noting(note).InsertMany(ctx, accounts, 1, bad)
			return err
		})
		if err == nil {
			t.Fatal("a row without its required name went in")
		}
		f.read(t)
		if len(f.order) != len(rows) {
			t.Fatalf("a failed chunk left %d events", len(f.order)-len(rows))
		}
	})
}

// jsonText is a JSON column's value as text.
func jsonText(v any) string {
	switch x := v.(type) {
	case json.RawMessage:
		return string(x)
	case []byte:
		return string(x)
	case string:
		return x
	}
	return fmt.Sprint(v)
}

// TestNoteWithoutTriggerIsAnError: on SQLite a noted write whose
// connection has no note trigger (here: dropped) fails loudly instead of
// committing a change without its event.
func TestNoteWithoutTriggerIsAnError(t *testing.T) {
	t.Parallel()
	s := storagetest.Open(t, "sqlite")
	ctx := context.Background()
	accounts := storagetest.Table(t, s, "accounts")
	s.DB().DB.SetMaxOpenConns(1) // the connection that loses its trigger is the one that writes
	if _, err := s.DB().ExecContext(ctx, `DROP TRIGGER temp."entityapi_note_insert_accounts"`); err != nil {
		t.Fatal(err)
	}
	ev := storage.Event{Org: 1, Type: "accounts", Action: storage.EventCreated}
	if _, err := s.Noting(ev).InsertRow(ctx, accounts, 1, storage.Row{"name": "Unnoted"}); err == nil {
		t.Fatal("a noted insert without its trigger succeeded")
	}
}

// TestNoteTriggersSkipTheEventsTable: on SQLite every table of records has
// its three note triggers on each connection, and the events table none:
// only the store writes events, and a trigger there would fire (a call into
// Go) for each event a batch records.
func TestNoteTriggersSkipTheEventsTable(t *testing.T) {
	t.Parallel()
	s := storagetest.Open(t, "sqlite")
	rows, err := s.DB().QueryContext(context.Background(),
		"SELECT tbl_name, count(*) FROM sqlite_temp_master WHERE type = 'trigger' AND name LIKE 'entityapi_note_%' GROUP BY tbl_name")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	triggers := map[string]int{}
	for rows.Next() {
		var table string
		var n int
		if err := rows.Scan(&table, &n); err != nil {
			t.Fatal(err)
		}
		triggers[table] = n
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if triggers["accounts"] != 3 || triggers["contacts"] != 3 || triggers["events"] != 0 || triggers["audits"] != 0 {
		t.Fatalf("note triggers by table: %v; want 3 on accounts and contacts, none on events and audits", triggers)
	}
}

// TestNotedDeleteIgnoresCascades: deleting a contact that another one
// reports to sets that one's reports_to_id to NULL (ON DELETE SET NULL, a
// write of the same table in the same statement); the noted delete records
// the one event of the deleted contact, not one for the contact the
// database changed on its own (SQLite: the note is for one key).
func TestNotedDeleteIgnoresCascades(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		contacts := storagetest.Table(t, s, "contacts")
		boss, err := s.InsertRow(ctx, contacts, 1, storage.Row{"last_name": "Boss"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.InsertRow(ctx, contacts, 1, storage.Row{"last_name": "Report", "reports_to_id": boss["id"]}); err != nil {
			t.Fatal(err)
		}
		ev := storage.Event{Org: 1, Type: "contacts", Action: storage.EventDeleted, Table: contacts, Key: boss["id"]}
		if err := s.Noting(ev).Delete(ctx, contacts, 1, boss["id"]); err != nil {
			t.Fatal(err)
		}
		f := &follower{s: s, t: storagetest.Table(t, s, "events")}
		f.until(t, 1)
		time.Sleep(50 * time.Millisecond)
		f.read(t)
		if want := []string{fmt.Sprint(boss["id"])}; !slices.Equal(f.order, want) {
			t.Fatalf("events of %v, want only the deleted contact's %v", f.order, want)
		}
	})
}
