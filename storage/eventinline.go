package storage

import (
	"context"

	"github.com/uptrace/bun"
)

// A write of one record and its change event go in one statement: where the
// database has writes in WITH (PostgreSQL), the write ... RETURNING is
// wrapped in the dialect's Features.EventWith, whose second part inserts the
// event from the row the write returns (its key and version), and whose
// answer is that row: a single create or update then costs one round trip,
// atomic by itself, instead of BEGIN, the write, the event and COMMIT.
// Where it has none (SQLite), the write's own statement records the event
// through a trigger (Features.NoteTriggers, eventtrigger.go).

// NotesInline tells whether Noting can be used (on both databases).
func (c *Conn) NotesInline() bool { return true }

// Noting returns c for one InsertRow, UpdateRow, UpdateRowMembers or
// Delete whose statement also records ev: ev's Key and Version are taken from the row written (for a
// delete, the version the row had). A write that finds no row records
// nothing.
func (c *Conn) Noting(ev Event) *Conn {
	d := *c
	d.note = &ev
	return &d
}

// noted is st, a write of one row of t ending in RETURNING, wrapped so
// that it also inserts c.note for the row it returns; st itself when c
// notes nothing.
func (c *Conn) noted(ctx context.Context, st *sqlText, t *Table) *sqlText {
	if c.note == nil {
		return st
	}
	if c.s.f.NoteTriggers {
		c.arm(t) // its trigger records it
		return st
	}
	with := &c.s.f.EventWith
	out := &sqlText{}
	out.add(with.Write[0])
	out.add(st.String(), st.args...)
	out.add(with.Write[1])
	c.eventFromW(ctx, out, t)
	out.add(with.Write[2])
	return out
}

// notedDelete is st, the DELETE of one row of t, made to insert c.note
// for the row it deletes, with the version it had: the statement's row
// count is the event's, which is the deleted row's.
func (c *Conn) notedDelete(ctx context.Context, st *sqlText, t *Table) *sqlText {
	if c.s.f.NoteTriggers {
		c.arm(t) // its trigger records it
		return st
	}
	with := &c.s.f.EventWith
	out := &sqlText{}
	out.add(with.Delete[0])
	out.add(st.String(), st.args...)
	out.add(" RETURNING ?", bun.Ident(t.Key))
	if t.Versioned {
		out.add(", ?", bun.Ident(VersionColumn))
	}
	out.add(with.Delete[1])
	c.eventFromW(ctx, out, t)
	return out
}

// eventFromW appends the INSERT of c.note for each row of w, the rows a
// write of t returned (their key, and version when t has one), and what
// sets ctx's actor for the statement's audit triggers (audit.go).
func (c *Conn) eventFromW(ctx context.Context, out *sqlText, t *Table) {
	ev := c.note
	attrs, _ := nameList(ev.Attributes) // lists of strings always encode
	rels, _ := nameList(ev.Relationships)
	at, _ := toSQL(KindTime, now(), true)
	var client, user any
	if ev.Client != "" {
		client = ev.Client
	}
	if ev.User != 0 {
		user = ev.User
	}
	with := &c.s.f.EventWith
	out.add(with.Insert[0], bun.Ident(c.s.f.EventsInsert))
	out.idents(eventColumns)
	out.add(with.Insert[1], ev.Org, ev.Type, bun.Ident(t.Key), ev.Action, attrs, rels)
	if t.Versioned {
		out.add("w.?", bun.Ident(VersionColumn))
	} else {
		out.add("NULL")
	}
	out.add(with.Insert[2], client, user, at)
	c.actorJoin(ctx, out)
}

// noteAlone records c.note by itself, for a noted update that has nothing
// to write (no statement to carry it).
func (c *Conn) noteAlone(ctx context.Context) error {
	if c.note == nil {
		return nil
	}
	ev := *c.note
	return c.atomic(ctx, func(c *Conn) error { return c.RecordEvents(ctx, []Event{ev}) })
}
