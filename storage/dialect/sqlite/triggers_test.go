package sqlite

import (
	"context"
	"database/sql/driver"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/entityapi/entityapi/storage/dialect"
)

// TestTriggersRecordTheArmedWrites: a connection gets the note triggers of
// Notes' tables once the events table exists (Renew), and a write then
// records its event when entityapi_noting says so, its key and version from
// the row, its action from the trigger, the rest from entityapi_note.
func TestTriggersRecordTheArmedWrites(t *testing.T) {
	t.Parallel()
	var armed atomic.Bool
	notes := &dialect.Notes{Events: "events", Actions: [3]string{"created", "updated", "deleted"}, Fields: []string{"note"},
		Tables: []dialect.NoteTable{{Name: "widgets", Key: "id", Version: "version"}, {Name: "absent", Key: "id"}}}
	d, err := Open(filepath.Join(t.TempDir(), "t.db"), Options{
		Functions: []dialect.Function{
			{Name: "entityapi_noting", Args: 2, Fn: func([]driver.Value) (driver.Value, error) {
				if armed.Load() {
					return int64(1), nil
				}
				return int64(0), nil
			}},
			{Name: "entityapi_note", Args: 1, Fn: func([]driver.Value) (driver.Value, error) { return "n", nil }},
		},
		Notes: func() *dialect.Notes { return notes },
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	ctx := context.Background()
	conn, err := d.DB().DB.Conn(ctx) // a connection opened before the tables: no triggers
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{
		"CREATE TABLE widgets (id INTEGER PRIMARY KEY, version INTEGER)",
		"CREATE TABLE events (resource_id TEXT, action TEXT, version INTEGER, note TEXT)",
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	_ = conn.Close()
	if err := d.Renew(ctx); err != nil {
		t.Fatal(err)
	}
	armed.Store(true)
	for _, q := range []string{
		"INSERT INTO widgets (id, version) VALUES (7, 1)",
		"UPDATE widgets SET version = 2 WHERE id = 7",
		"DELETE FROM widgets WHERE id = 7",
	} {
		if _, err := d.DB().ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	armed.Store(false)
	if _, err := d.DB().ExecContext(ctx, "INSERT INTO widgets (id, version) VALUES (8, 1)"); err != nil {
		t.Fatal(err)
	}
	rows, err := d.DB().QueryContext(ctx, "SELECT resource_id, action, version, note FROM events ORDER BY rowid")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var got []string
	for rows.Next() {
		var id, action, note string
		var version int
		if err := rows.Scan(&id, &action, &version, &note); err != nil {
			t.Fatal(err)
		}
		got = append(got, id+" "+action+" "+string(rune('0'+version))+" "+note)
	}
	want := []string{"7 created 1 n", "7 updated 2 n", "7 deleted 2 n"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("events = %q, want %q", got, want)
	}
}
