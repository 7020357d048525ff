package storage

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/riverqueue/river"
	"github.com/uptrace/bun"

	"github.com/entityapi/entityapi/storage/dialect"
)

// This file is the seam through which the record stores beside storage
// (storage/jobs: batch operations and their queue; storage/authstore:
// clients, principals, signing keys, credential failures) write their typed
// queries by the rules of the generic ones: the caller's transaction or one
// of their own, the write slot (where OneWriter), the package's typed errors
// and its times. storage itself knows nothing of those records.

// Bun is the Bun handle c runs on: its transaction inside a Tx, else the
// database. Writes through it belong inside Atomic, which holds the write
// slot.
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
// statements the write slot where there is one.
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
func (c *Conn) Dialect() string { return c.s.d.Name() }

// Now is the time storage stamps on what it writes: UTC, whole seconds.
func Now() time.Time { return now() }

// AcquireWrite waits for the write slot of a database with one writer (at
// once elsewhere) and returns its release; the dialect's clients that write
// beside the store (River's side connection on SQLite) take turns through
// it (dialect.Host).
func (s *Store) AcquireWrite(ctx context.Context) (release func(), err error) {
	return s.acquireWrite(ctx)
}

// NewJobClient makes River's client with the database's driver
// (dialect.Dialect.NewJobClient), for storage/jobs' queue.
func (s *Store) NewJobClient(cfg *river.Config) (dialect.JobClient, error) {
	return s.d.NewJobClient(cfg, s)
}
