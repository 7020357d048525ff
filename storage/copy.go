package storage

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Where a transaction has a connection of its own (Features.OwnTxConn:
// PostgreSQL), InsertMany sends large groups of rows with COPY (the
// dialect's CopyFrom) instead of multi-row INSERTs: the rows travel in pgx's binary
// format with no statement to parse or plan, the fastest way in (issue 16).
// COPY runs on the connection of the caller's transaction (Conn.txConn), so it
// commits or rolls back with the rest, and a failing row fails the whole
// COPY as it would fail a multi-row INSERT. Values still travel only as data,
// never in SQL text (DESIGN §5).

// copyMinRows is the fewest rows sent with COPY: below it the round trip
// CopyFrom spends learning the columns' types costs more than it saves.
const copyMinRows = 64

// copyKinds are the column kinds whose values (as toSQL makes them) pgx's
// binary COPY encodes as an INSERT would: a date travels as text, which
// binary COPY does not accept, and JSON is left to INSERT too.
var copyKinds = map[Kind]bool{KindString: true, KindInt: true, KindFloat: true, KindBool: true, KindTime: true}

// canCopy reports whether n rows of t with columns cols go in with COPY.
func (c *Conn) canCopy(t *Table, cols []string, n int) bool {
	if c.txConn == nil || n < copyMinRows {
		return false
	}
	for _, name := range cols {
		if name == orgColumn || (name == t.Key && t.AutoKey) {
			continue
		}
		if !copyKinds[t.Columns[name]] {
			return false
		}
	}
	return true
}

// copyRows sends rows (values in the order of cols) into table with COPY,
// within c's transaction.
func (c *Conn) copyRows(ctx context.Context, table string, cols []string, rows [][]any) error {
	text := "COPY " + table + " (" + strings.Join(cols, ", ") + ") FROM STDIN"
	ctx = c.s.watch.before(ctx, text)
	n, err := c.s.d.CopyFrom(ctx, c.txConn, table, cols, rows)
	if err == nil && n != int64(len(rows)) {
		err = errors.New("storage: COPY wrote " + fmt.Sprint(n) + " of " + fmt.Sprint(len(rows)) + " rows")
	}
	c.s.watch.after(ctx, text, err)
	return err
}
