package storage

import (
	"database/sql/driver"
	"encoding/json"
	"fmt"
	"time"

	"github.com/entityapi/entityapi/storage/dialect"
)

// Where the database has no writes in WITH (Features.NoteTriggers: SQLite),
// a write of one record and its change event go in one statement through a
// trigger instead (eventinline.go tells the other way).
//
// Every connection of the store has, for each table, three TEMP triggers
// (after insert, update and delete of a row) that insert the change event
// of the row they fire for, when the store has armed a note for that table
// and row: the write's statement then records its event by itself,
// atomically, in autocommit. The event's fields that only the request knows
// (organization, type, changed names, actor, time) come from the armed note
// (dialect.ArmedNote, which the store makes here and arms through the
// dialect's dialect.Armer); the row's key and version come from the row
// itself. The dialect writes and installs the triggers and reads the armed
// note (storage/dialect/sqlite's triggers.go), from what notes
// describes. A note is armed only while the write slot is held (alone), so
// the one writer of the process is the only one that can meet it.

// noteFields are the event columns the triggers take from the note, in the
// order of dialect.ArmedNote.Fields.
var noteFields = []string{"organization_id", "resource_type", "changed_attributes",
	"changed_relationships", "client_id", "user_id", "occurred_at"}

// notes describe the note triggers of s's tables for the SQLite dialect,
// which installs them on each new connection (sqlite.Options.Notes); nil
// before the store has tables.
func (s *Store) notes() *dialect.Notes {
	if s.tables == nil {
		return nil
	}
	n := &dialect.Notes{Events: eventsTable, Actions: [3]string{EventCreated, EventUpdated, EventDeleted}, Fields: noteFields,
		Tables: make([]dialect.NoteTable, 0, len(s.tables)), Audit: s.audit()}
	for _, t := range s.tables {
		if t.Name == dialect.AuditsTable {
			continue // written by the audit triggers only
		}
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

// arm makes c.note the note of the write of a row of t about to run (the
// caller holds the write slot: alone, armed).
func (c *Conn) arm(t *Table) { c.s.armer.Arm(c.armedNote(t)) }

// armedNote is c.note as the triggers of t read it.
func (c *Conn) armedNote(t *Table) *dialect.ArmedNote {
	ev := c.note
	n := &dialect.ArmedNote{Table: t.Name}
	if ev.Key != nil {
		n.Key = keyText(ev.Key)
	}
	n.Fields = [dialect.NoteFields]driver.Value{ev.Org, ev.Type, namesText(ev.Attributes), namesText(ev.Relationships),
		nil, nil, now().UTC().Truncate(time.Second).Format(dialect.TextTime)}
	if ev.Client != "" {
		n.Fields[4] = ev.Client
	}
	if ev.User != 0 {
		n.Fields[5] = ev.User
	}
	return n
}

// armed runs fn, the write of c.note's record, and disarms the note fn
// armed where the dialect has note triggers; a write that succeeded but left
// its note unrecorded (no trigger met it) is an error: a change without its
// event must never commit silently. Where the statement carries its event
// (noted wraps it) and without a note it is fn.
func (c *Conn) armed(fn func(c *Conn) error) error {
	if c.note == nil || !c.s.f.NoteTriggers {
		return fn(c)
	}
	err := fn(c)
	if met := c.s.armer.Disarm(); err == nil && !met {
		return fmt.Errorf("storage: the change event of %s was not recorded (no note trigger met it)", c.note.Type)
	}
	return err
}
