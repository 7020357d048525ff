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
func (s *Store) SQLTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return s.Conn.Tx(ctx, func(c *Conn) error { return fn(c.tx.Tx) })
}
