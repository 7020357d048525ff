package storage

import (
	"database/sql"

	"github.com/uptrace/bun"
)

// The transactions of batch chunks run, on a SQLite file, on a connection
// of their own that has no note triggers (eventtrigger.go). Every row a
// statement writes runs the AFTER triggers of its table, armed or not: on a
// multi-row INSERT of a batch that was about a sixth of the INSERT's time
// (BenchmarkInsertMany1000), and a batch chunk records its events without
// them (InsertMany with Noting, RecordEvents).
//
// A noted single write (InsertRow, UpdateRow, UpdateRowMembers, Delete on a
// Conn from Noting) inside such a transaction finds no trigger and fails
// (Conn.armed): a change without its event never commits.

// bulkPool is the SQLite connection of Bulk transactions (the dialect's,
// sqlite.DB.Bulk, which closes it) and the statements prepared on it.
type bulkPool struct {
	db    *bun.DB
	stmts preparedCache
}

// Bulk is the store's Conn for the transactions of batch chunks, which
// record their events themselves: on a SQLite file its transactions (Tx,
// and the writes that make their own) run on the bulk connection, which has
// no note triggers; its reads outside a transaction, and everything on
// PostgreSQL or ":memory:", are the Store's.
func (s *Store) Bulk() *Conn {
	c := *s.Conn
	c.bulk = s.bulk != nil
	return &c
}

// txDB is the database a transaction of c begins on.
func (c *Conn) txDB() *bun.DB {
	if c.bulk {
		return c.s.bulk.db
	}
	return c.s.db
}

// statements is the pool c's statements are prepared on, with their cache.
func (c *Conn) statements() (*sql.DB, *preparedCache) {
	if c.bulk && c.tx != nil {
		return c.s.bulk.db.DB, &c.s.bulk.stmts
	}
	return c.s.db.DB, &c.s.stmts
}
