package storage

import (
	"database/sql/driver"
	"encoding/json"
	"errors"
	"fmt"
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
// from the row itself. The SQLite dialect writes and installs the triggers
// (storage/dialect/sqlite's triggers.go) from what notes describes.
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
// gets the triggers once the store has tables and an events table (notes,
// which the dialect's connection hook reads).
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

// notes describe the note triggers of s's tables for the SQLite dialect,
// which installs them on each new connection (sqlite.Options.Notes); nil
// before the store has tables.
func (s *Store) notes() *dialect.Notes {
	if s.tables == nil {
		return nil
	}
	n := &dialect.Notes{Events: eventsTable, Actions: [3]string{EventCreated, EventUpdated, EventDeleted}, Fields: noteFields,
		Tables: make([]dialect.NoteTable, 0, len(s.tables))}
	for _, t := range s.tables {
		nt := dialect.NoteTable{Name: t.Name, Key: t.Key}
		if t.Versioned {
			nt.Version = VersionColumn
		}
		n.Tables = append(n.Tables, nt)
	}
	return n
}

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
