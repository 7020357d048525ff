package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
	"modernc.org/sqlite"
)

// This file is the seam through which the record stores beside storage
// (storage/jobs: batch operations and their queue; storage/authstore:
// clients, principals, signing keys, credential failures) write their typed
// queries by the rules of the generic ones: the caller's transaction or one
// of their own, the SQLite write slot, the package's typed errors and its
// times. storage itself knows nothing of those records.

// Bun is the Bun handle c runs on: its transaction inside a Tx, else the
// database. Writes through it belong inside Atomic, which holds the SQLite
// write slot.
func (c *Conn) Bun() bun.IDB { return c.idb }

// Exec runs text, which answers no rows, with args as bound parameters,
// never written into the text (a large value then costs neither escaping
// nor SQLite's parsing of a literal): its marks are ? on both databases, as
// in Bun's queries. Writes through it belong inside Atomic.
func (c *Conn) Exec(ctx context.Context, text string, args ...any) (sql.Result, error) {
	var st sqlText
	st.add(text, args...)
	return c.exec(ctx, &st)
}

// Atomic runs fn so that all its statements commit together: directly when
// c is already in a transaction (no savepoint: the caller owns the outcome),
// else in a new one. Every write goes through it, which also gives single
// statements the SQLite write slot.
func (c *Conn) Atomic(ctx context.Context, fn func(c *Conn) error) error { return c.atomic(ctx, fn) }

// MapError turns a driver error into the package's typed errors
// (*UniqueError, *ForeignKeyError) and wraps anything else with what was
// being done, e.g. "storage: insert clients:".
func (c *Conn) MapError(op, table string, err error) error { return c.s.mapError(op, table, err) }

// One scans the single row of model's table matching where into model;
// ErrNotFound when there is none.
func (c *Conn) One(ctx context.Context, model any, table, where string, args ...any) error {
	err := c.idb.NewSelect().Model(model).Where(where, args...).Limit(1).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	if err != nil {
		return c.s.mapError("select", table, err)
	}
	return nil
}

// Affected maps the outcome of a write (op: "update", "delete") of table:
// its error, or ErrNotFound when it touched no row.
func (c *Conn) Affected(op, table string, res sql.Result, err error) error {
	if err != nil {
		return c.s.mapError(op, table, err)
	}
	return affected(res, 1)
}

// Dialect reports the database in use: "sqlite" or "postgres".
func (c *Conn) Dialect() string { return string(c.s.engine) }

// Now is the time storage stamps on what it writes: UTC, whole seconds.
func Now() time.Time { return now() }

// SideDB opens the SQLite file once more, on one connection, for a client
// that needs a database/sql handle of its own (River's SQLite driver asks
// for one connection); it takes turns with the store's writers at the write
// slot (sideconn.go), and own tells the caller to close it. An in-memory
// database exists on the store's connection only, which is then shared
// (own false). On PostgreSQL use PgxPool instead.
func (s *Store) SideDB() (db *sql.DB, own bool, err error) {
	var file string
	if err := s.db.QueryRow("SELECT file FROM pragma_database_list WHERE name = 'main'").Scan(&file); err != nil {
		return nil, false, fmt.Errorf("storage: side connection: %w", err)
	}
	if file == "" {
		return s.db.DB, false, nil
	}
	// Its transactions and statements queue for the write slot (sideconn.go).
	db = sql.OpenDB(slotConnector{sqliteConnector: sqliteConnector{d: &sqlite.Driver{}, dsn: sqliteDSN(file)}, s: s})
	db.SetMaxOpenConns(1)
	return db, true, nil
}
