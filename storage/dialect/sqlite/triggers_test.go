package sqlite

import (
	"context"
	"database/sql/driver"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/entityapi/entityapi/storage/dialect"
)

// TestTriggersRecordTheArmedWrites: a connection gets the note triggers of
// Notes' tables once the events table exists (Renew), and a write then
// records the note armed for its table and row (Arm), once, its key and
// version from the row, its action from the trigger, the rest from the
// note's fields; Disarm tells whether it was recorded.
func TestTriggersRecordTheArmedWrites(t *testing.T) {
	t.Parallel()
	notes := &dialect.Notes{Events: "events", Actions: [3]string{"created", "updated", "deleted"}, Fields: []string{"note"},
		Tables: []dialect.NoteTable{{Name: "widgets", Key: "id", Version: "version"}, {Name: "absent", Key: "id"}}}
	d, err := Open(filepath.Join(t.TempDir(), "t.db"), Options{
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
	for _, w := range []struct {
		stmt, key string
		met       bool
	}{
		{"INSERT INTO widgets (id, version) VALUES (7, 1)", "", true},
		{"UPDATE widgets SET version = 2 WHERE id = 7", "7", true},
		{"UPDATE widgets SET version = 2 WHERE id = 7", "8", false}, // another row's note
		{"DELETE FROM widgets WHERE id = 7", "7", true},
	} {
		n := &dialect.ArmedNote{Table: "widgets", Key: w.key}
		n.Fields[0] = "n"
		d.Arm(n)
		if _, err := d.DB().ExecContext(ctx, w.stmt); err != nil {
			t.Fatal(err)
		}
		if met := d.Disarm(); met != w.met {
			t.Errorf("%s with the note of row %q: recorded %v, want %v", w.stmt, w.key, met, w.met)
		}
	}
	if d.Disarm() {
		t.Error("Disarm without a note tells it was recorded")
	}
	// Unarmed, a write records nothing; a note records one event however
	// many rows its statement writes.
	if _, err := d.DB().ExecContext(ctx, "INSERT INTO widgets (id, version) VALUES (8, 1)"); err != nil {
		t.Fatal(err)
	}
	d.Arm(&dialect.ArmedNote{Table: "widgets", Fields: [dialect.NoteFields]driver.Value{"m"}})
	if _, err := d.DB().ExecContext(ctx, "INSERT INTO widgets (id, version) VALUES (9, 1), (10, 1)"); err != nil {
		t.Fatal(err)
	}
	if !d.Disarm() {
		t.Error("a two-row insert did not record its note")
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
	want := []string{"7 created 1 n", "7 updated 2 n", "7 deleted 2 n", "9 created 1 m"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("events = %q, want %q", got, want)
	}
}
