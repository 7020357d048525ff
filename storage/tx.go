package storage

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/uptrace/bun"
)

// Conn runs the generic queries either directly on the database (the Conn
// embedded in Store) or inside one transaction (the Conn handed to a Tx
// function). The same methods serve both, so engine code takes a *Conn and
// the caller decides whether a transaction surrounds it.
type Conn struct {
	s   *Store
	idb bun.IDB
	raw rawConn // idb's database/sql handle, for statements with bound parameters
	tx  *bun.Tx // nil outside a transaction
	// txConn is the connection a transaction runs on where it has one of
	// its own (Features.OwnTxConn: PostgreSQL), through which COPY joins it
	// (copy.go); nil elsewhere and outside a transaction.
	txConn *sql.Conn
	// note is the change event the next write of one record sends in its
	// own statement (Noting, eventinline.go); nil for every other Conn.
	note *Event
	// bulk: c's transactions run on the SQLite bulk connection (Store.Bulk).
	bulk bool
}

// Tx runs fn in one transaction: committed when fn returns nil, rolled back
// when it returns an error (returned unchanged) or panics.
//
// On the Store's Conn it begins a transaction; where the database has one
// writer (Features.OneWriter) it first waits, as long as ctx allows, for
// this process's single write slot, so write transactions queue instead of
// failing as busy (SQLITE_BUSY on SQLite). Inside fn use only the given
// Conn: calling the Store's write methods or Store.Tx there would wait for
// the slot fn itself holds (until ctx ends).
//
// On a Conn that is already in a transaction, Tx runs fn in a savepoint: an
// error rolls back fn's writes only and the outer transaction goes on. This is
// how one failing item (a unique clash, say) can be skipped on PostgreSQL,
// where any failed statement otherwise aborts the whole transaction.
func (c *Conn) Tx(ctx context.Context, fn func(c *Conn) error) error {
	if c.tx != nil {
		return c.tx.RunInTx(ctx, nil, func(_ context.Context, sp bun.Tx) error {
			return fn(&Conn{s: c.s, idb: sp, raw: sp.Tx, tx: &sp, txConn: c.txConn, bulk: c.bulk})
		})
	}
	release, err := c.s.acquireWrite(ctx)
	if err != nil {
		return err
	}
	defer release()

	// Where OwnTxConn (PostgreSQL), the transaction runs on a connection
	// of its own, kept, so that a COPY can be sent on it within it.
	var (
		tx     bun.Tx
		txConn *sql.Conn
	)
	if c.s.f.OwnTxConn {
		var conn bun.Conn
		if conn, err = c.s.db.Conn(ctx); err == nil {
			defer conn.Close()
			txConn = conn.Conn
			tx, err = conn.BeginTx(ctx, nil)
		}
	} else {
		tx, err = c.txDB().BeginTx(ctx, nil)
	}
	if err != nil {
		return fmt.Errorf("storage: begin transaction: %w", err)
	}
	done := false
	defer func() {
		if !done {
			_ = tx.Rollback()
		}
	}()
	in := &Conn{s: c.s, idb: tx, raw: tx.Tx, tx: &tx, txConn: txConn, bulk: c.bulk}
	defer c.s.act(ctx)() // the slot is held: this writer is the only one
	if err := in.setActor(ctx); err != nil {
		return c.s.mapError("begin", "", err)
	}
	if err := fn(in); err != nil {
		return err
	}
	if err := in.writeNotes(ctx); err != nil { // searchpending.go
		return err
	}
	done = true
	if err := tx.Commit(); err != nil {
		return c.s.mapError("commit", "", err)
	}
	// The commit's fence, for a read replica (replica.go); the write is
	// done whatever becomes of it.
	c.s.noteCommit(ctx)
	return nil
}

// InTx reports whether c runs inside a transaction.
func (c *Conn) InTx() bool { return c.tx != nil }

// atomic runs fn so that all its statements commit together: directly when c
// is already in a transaction (no savepoint: the caller owns the outcome),
// else in a new one. Every write goes through it, which also gives single
// statements the write slot where there is one.
func (c *Conn) atomic(ctx context.Context, fn func(c *Conn) error) error {
	if c.tx != nil {
		return fn(c)
	}
	return c.Tx(ctx, fn)
}

// releaseWrite gives the write slot back, and tells the dialect a write
// has ended (its checkpoints, dialect.Checkpointer).
func (s *Store) releaseWrite() {
	<-s.writeSlot
	if s.checkpoints != nil {
		s.checkpoints.Wrote()
	}
}

// acquireWrite takes the write slot and returns its release. The slot is
// the shared mechanism of the Features.OneWriter capability: any database
// that takes one writer at a time (SQLite is the example) queues its writers
// here; where writers run side by side (PostgreSQL) there is no slot and
// this returns at once.
func (s *Store) acquireWrite(ctx context.Context) (release func(), err error) {
	if s.writeSlot == nil {
		return func() {}, nil
	}
	select {
	case s.writeSlot <- struct{}{}:
		return s.releaseWrite, nil
	case <-ctx.Done():
		return nil, fmt.Errorf("storage: waiting for the SQLite writer: %w", ctx.Err())
	}
}
