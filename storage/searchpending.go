package storage

import (
	"context"
	"log/slog"
	"slices"
)

// Where the full-text index's triggers only note the records a write
// changed (Features.NotedSearch: SQLite, migration 0019, whose header tells
// why), one statement writes the index from the notes, and the store sends
// it:
//   - before each write transaction commits (Conn.Tx, and the write
//     queue's shared transaction: writegroup.go), so that a transaction's
//     records are in the index when it commits, and leave with it when it
//     rolls back;
//   - right after a single write that committed alone (the write queue's
//     single statements, in autocommit) to a table that notes, before its
//     caller learns that it is done: the caller's next search finds it. A
//     process stopped in between leaves notes, never a wrong index;
//   - in Migrate, which every start runs, for the notes of a write from
//     outside the store (SQL by hand, a script), which the store's next
//     write transaction also writes.
// A transaction or single write that noted nothing pays one statement on an
// empty table.

// notesSearch tells whether the triggers of table note its records: the tables
// of one index (the localized ones keep writing their index in their
// triggers), where the dialect notes at all.
func (s *Store) notesSearch(table string) bool {
	indexes, ok := SearchColumns[table]
	return s.f.NotedSearch != "" && ok && len(indexes) == 1
}

// writeNotes sends Features.NotedSearch on c (in its transaction, or
// alone); nothing where the database keeps its indexes in each statement.
func (c *Conn) writeNotes(ctx context.Context) error {
	if c.s.f.NotedSearch == "" {
		return nil
	}
	if _, err := c.execBound(ctx, c.s.f.NotedSearch, nil); err != nil {
		return c.s.mapError("search index", "search_pending", err)
	}
	return nil
}

// notedIn tells whether a write of group is to a table that notes.
func (s *Store) notedIn(group []*queuedWrite) bool {
	return slices.ContainsFunc(group, func(w *queuedWrite) bool { return s.notesSearch(w.table) })
}

// writeNotesAfter writes the notes of writes of group that committed alone
// (writegroup.go), holding the write slot. The writes stand whatever
// becomes of their notes: a failure leaves them for the next write, and is
// logged.
func (s *Store) writeNotesAfter(ctx context.Context, group []*queuedWrite) {
	if !s.notedIn(group) {
		return
	}
	if err := s.Conn.writeNotes(ctx); err != nil {
		slog.Warn("the full-text index waits for the next write", "err", err)
	}
}
