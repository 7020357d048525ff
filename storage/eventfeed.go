package storage

import (
	"context"
	"time"

	"github.com/uptrace/bun"
)

// The feed's order is the order in which changes commit, so that a consumer
// that follows it (page[after] its last position) never skips an event.
//
// On SQLite one writer at a time commits in the order it inserts, so an
// event's autoincrement id is its position from the start.
//
// On PostgreSQL transactions commit in any order: an event inserted early
// by a transaction that commits late would appear below a position a
// follower has already passed. So writers put events into event_outbox,
// stamped with their transaction id (tx), and SequenceEvents moves them
// into events, numbered from the sequence event_positions in outbox order,
// only once no transaction as old as theirs is still running (tx below the
// xmin of the current snapshot): every event numbered later belongs to a
// transaction that was running or not yet started then, and gets a larger
// position. Sequencers take turns (an advisory lock), so positions commit
// in the order they are given.

// SequenceEvents numbers the events whose transactions have all ended and
// moves them into the feed (the dialect's Features.SequenceEvents, on
// PostgreSQL; nothing to do where events commit in order). The feed runs it
// before each read, and the housekeeping now and then.
func (s *Store) SequenceEvents(ctx context.Context) error {
	if len(s.f.SequenceEvents) == 0 {
		return nil
	}
	return s.Conn.Tx(ctx, func(c *Conn) error {
		for _, text := range s.f.SequenceEvents {
			if _, err := c.idb.ExecContext(ctx, text); err != nil {
				return c.s.mapError("sequence", "events", err)
			}
		}
		return nil
	})
}

// DeleteEventsBefore deletes the events of the feed that occurred before t
// (the housekeeping, after the events' lifetime) and returns how many. The
// newest event always stays: on SQLite an event's id is the table's rowid,
// which would start again from the largest one left, and a follower past a
// deleted id would then skip the events that reuse it.
func (s *Store) DeleteEventsBefore(ctx context.Context, t time.Time) (int, error) {
	var st sqlText
	st.add("DELETE FROM ? WHERE ? < ? AND ? < (SELECT max(?) FROM ?)", bun.Ident("events"), bun.Ident("occurred_at"),
		t.UTC().Truncate(time.Second), bun.Ident("id"), bun.Ident("id"), bun.Ident("events"))
	return s.deleteCounted(ctx, "events", &st)
}

// deleteCounted runs st, a DELETE from table, and returns how many rows it
// deleted (the housekeeping's retention deletes).
func (s *Store) deleteCounted(ctx context.Context, table string, st *sqlText) (int, error) {
	var n int64
	err := s.Conn.atomic(ctx, func(c *Conn) error {
		res, err := c.exec(ctx, st)
		if err != nil {
			return err
		}
		n, err = res.RowsAffected()
		return err
	})
	if err != nil {
		return 0, s.mapError("delete", table, err)
	}
	return int(n), nil
}
