package storage

import (
	"context"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"github.com/entityapi/entityapi/storage/dialect"
)

// On SQLite a write of one record and its change event go in one statement
// too, as on PostgreSQL (eventinline.go), but through a trigger: SQLite
// has no writes in WITH, and BEGIN, the write, the event's INSERT and
// COMMIT cost about twice the write alone (each statement is a trip
// through the driver, and all of them hold the single write slot).
//
// Every connection of a Store has, for each table, three TEMP triggers
// (after insert, update and delete of a row) that insert the change event
// of the row they fire for, when the store has armed a note for that
// table and row: the write's statement then records its event by itself,
// atomically, in autocommit. The event's fields that only the request
// knows (organization, type, changed names, actor, time) come from the
// armed note through two SQL functions the store registers on its own
// driver (entityapi_noting, entityapi_note); the row's key and version come
// from the row itself.
//
// The triggers are TEMP (on each connection, not in the database file), so
// other programs that open the file are not bound to functions only this
// process has. A note is armed only while the write slot is held (alone),
// so the one writer of the process is the only one that can meet it.

// armedNote is the note of the write being executed, as the SQL functions
// hand it to the triggers.
type armedNote struct {
	table string
	key   string // the row an update or delete must be for; "" for a create
	// fields are entityapi_note's answers, by index (noteFields).
	fields [7]driver.Value
	// met is 1 once the note is recorded.
	met atomic.Int64
}

// noteFields are the event columns the triggers take from the note, in
// entityapi_note's order.
var noteFields = []string{"organization_id", "resource_type", "changed_attributes",
	"changed_relationships", "client_id", "user_id", "occurred_at"}

// noteFunctions are the store's SQL functions through which the triggers
// read the armed note; every connection of a SQLite pool knows them, and
// gets the triggers once the store has tables and an events table
// (installTriggers, the pool's connection hook).
func (s *Store) noteFunctions() []dialect.Function {
	noting := func(args []driver.Value) (driver.Value, error) {
		n := s.armed.Load()
		if n == nil || args[0] != n.table {
			return int64(0), nil
		}
		// A create's trigger gives no key (the row's may be new); an update's
		// or a delete's must be for the noted row, not one a cascade reaches.
		if key, given := args[1].(string); given && n.key != "" && key != n.key {
			return int64(0), nil
		}
		if !n.met.CompareAndSwap(0, 1) {
			return int64(0), nil // one event per noted statement
		}
		return int64(1), nil
	}
	note := func(args []driver.Value) (driver.Value, error) {
		n := s.armed.Load()
		i, _ := args[0].(int64)
		if n == nil || i < 0 || int(i) >= len(n.fields) {
			return nil, errors.New("entityapi_note: no change event is armed")
		}
		return n.fields[i], nil
	}
	return []dialect.Function{{Name: "entityapi_noting", Args: 2, Fn: noting}, {Name: "entityapi_note", Args: 1, Fn: note}}
}

// installTriggers creates, on conn, the note triggers of every table of s
// that exists in the database, when the events table exists (before the
// migrations, a connection gets none; Migrate renews the connections).
func (s *Store) installTriggers(ctx context.Context, conn dialect.Conn) error {
	if s.tables == nil {
		return nil
	}
	rows, err := conn.QueryContext(ctx, "SELECT name FROM sqlite_master WHERE type = 'table'", nil)
	if err != nil {
		return fmt.Errorf("storage: note triggers: %w", err)
	}
	present := map[string]bool{}
	dest := make([]driver.Value, 1)
	for {
		if err := rows.Next(dest); err == io.EOF {
			break
		} else if err != nil {
			rows.Close()
			return fmt.Errorf("storage: note triggers: %w", err)
		}
		if name, ok := dest[0].(string); ok {
			present[name] = true
		}
	}
	rows.Close()
	if !present[eventsTable] {
		return nil
	}
	var b strings.Builder
	for name, t := range s.tables {
		// The events table gets none: an event is no record's change, and
		// only the store writes events (the triggers here, RecordEvents,
		// a batch chunk's INSERT ... SELECT) and deletes old ones. A
		// trigger fires for every row written, armed or not: a batch's
		// events would pay one for each.
		if present[name] && name != eventsTable {
			writeTriggers(&b, t)
		}
	}
	if _, err := conn.ExecContext(ctx, b.String(), nil); err != nil {
		return fmt.Errorf("storage: note triggers: %w", err)
	}
	return nil
}

// writeTriggers appends the three note triggers of t: each inserts the
// event of the row it fires for, its key and version from the row, its
// action from the trigger, the rest (noteFields) from the armed note.
func writeTriggers(b *strings.Builder, t *Table) {
	cols := []string{"resource_id", "action", "version"}
	for _, f := range noteFields {
		cols = append(cols, quoteIdent(f))
	}
	for _, on := range []struct{ event, row, action string }{
		{"INSERT", "NEW", EventCreated},
		{"UPDATE", "NEW", EventUpdated},
		{"DELETE", "OLD", EventDeleted},
	} {
		rowKey := fmt.Sprintf("CAST(%s.%s AS TEXT)", on.row, quoteIdent(t.Key))
		key := rowKey // an update or a delete is for the noted row
		if on.event == "INSERT" {
			key = "NULL" // a new row's key may be the database's
		}
		version := "NULL"
		if t.Versioned {
			version = on.row + "." + quoteIdent(VersionColumn)
		}
		values := []string{rowKey, sqlString(on.action), version}
		for i := range noteFields {
			values = append(values, fmt.Sprintf("entityapi_note(%d)", i))
		}
		fmt.Fprintf(b, "CREATE TEMP TRIGGER IF NOT EXISTS %s AFTER %s ON main.%s FOR EACH ROW WHEN entityapi_noting(%s, %s) "+
			"BEGIN INSERT INTO events (%s) VALUES (%s); END;\n",
			quoteIdent("entityapi_note_"+strings.ToLower(on.event)+"_"+t.Name), on.event, quoteIdent(t.Name),
			sqlString(t.Name), key, strings.Join(cols, ", "), strings.Join(values, ", "))
	}
}

// quoteIdent quotes a table or column name of the models for the trigger
// texts (they come from models.go, never from a request).
func quoteIdent(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// sqlString is s as an SQL string literal.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// namesText is the JSON array of names an event stores, as SQLite keeps
// JSON: text ("[]" for none).
func namesText(names []string) string {
	if len(names) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(names) // a list of strings always encodes
	return string(b)
}

// arm makes c.note the note of the write of a row of t about to run on
// SQLite (the caller holds the write slot: alone, armed).
func (c *Conn) arm(t *Table) { c.s.armed.Store(c.armedNote(t)) }

// armedNote is c.note as the triggers of t read it.
func (c *Conn) armedNote(t *Table) *armedNote {
	ev := c.note
	n := &armedNote{table: t.Name}
	if ev.Key != nil {
		n.key = keyText(ev.Key)
	}
	n.fields = [7]driver.Value{ev.Org, ev.Type, namesText(ev.Attributes), namesText(ev.Relationships),
		nil, nil, now().UTC().Truncate(time.Second).Format(dialect.TextTime)}
	if ev.Client != "" {
		n.fields[4] = ev.Client
	}
	if ev.User != 0 {
		n.fields[5] = ev.User
	}
	return n
}

// armed runs fn, the write of c.note's record, and disarms the note fn
// armed on SQLite; a write that succeeded but left its note unrecorded
// (no trigger met it) is an error: a change without its event must never
// commit silently. On PostgreSQL (noted wraps the statement) and without a
// note it is fn.
func (c *Conn) armed(fn func(c *Conn) error) error {
	if c.note == nil || !c.s.f.NoteTriggers {
		return fn(c)
	}
	err := fn(c)
	n := c.s.armed.Swap(nil)
	if err == nil && (n == nil || n.met.Load() != 1) {
		return fmt.Errorf("storage: the change event of %s was not recorded (no note trigger met it)", c.note.Type)
	}
	return err
}
