package storage

import (
	"context"
	"database/sql"
)

// SQLTx runs fn in one write transaction of the SQLite database and hands it
// the transaction's database/sql handle, for a client that writes beside
// Bun in the same transaction (River's SQLite driver, whose jobs then commit
// with the rows). It waits for the write slot as Conn.Tx does. It is the
// store's side of dialect.Host; PostgreSQL's dialect begins pgx
// transactions of its own instead.
//
// When ctx carries a transaction of this store (WithTx), fn runs in it: its
// writes commit with that transaction's, and it does not wait for the write
// slot the transaction holds.
func (s *Store) SQLTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if c, ok := ctx.Value(txKey{}).(*Conn); ok && c.s == s && c.tx != nil {
		return fn(c.tx.Tx)
	}
	return s.Conn.Tx(ctx, func(c *Conn) error { return fn(c.tx.Tx) })
}

// txKey carries a transaction in a context (WithTx).
type txKey struct{}

// WithTx is ctx carrying c, when c is in a transaction, for a client that
// writes beside the store through SQLTx (River's SQLite driver): its
// writes then join c's transaction. Only SQLTx reads it; a store whose
// dialect begins its own transactions for such a client (PostgreSQL's)
// never sees it.
func WithTx(ctx context.Context, c *Conn) context.Context {
	if c == nil || c.tx == nil {
		return ctx
	}
	return context.WithValue(ctx, txKey{}, c)
}
