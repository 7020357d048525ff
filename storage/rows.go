package storage

import (
	"context"
	"database/sql"

	"github.com/entityapi/entityapi/storage/dialect"
)

// On PostgreSQL database/sql sits on a pgx pool, and every read paid for
// both: database/sql's connection locks and retries, then pgx's database/sql
// driver turning each value into a driver.Value through closures built
// anew for every statement. Issue 16 measured those layers as a large part
// of a GET's storage time. A generic statement outside a transaction
// therefore runs through the database's own driver where the dialect has
// one (dialect.Native: pgx, which prepares and caches it per connection as
// the driver did); inside a transaction it must run on the transaction's
// connection, through database/sql. SQLite has none.

// native tells whether c's statements run through the dialect's own
// driver: where it has one, outside a transaction.
func (c *Conn) native() bool { return c.tx == nil && c.s.native != nil }

// rowSource is a statement's rows: database/sql's, or the dialect's own
// (see native). It is a value, not an interface holding either, so that
// reading rows allocates nothing more; sql or pg is set.
type rowSource struct {
	sql *sql.Rows
	pg  dialect.Rows
	// native made pg (for its scan targets).
	native dialect.Native
	// ahead: query has read pg's first row already, as pgx's database/sql
	// driver did (so that the statement's error, a cancel say, comes from
	// query and reaches the statement hooks); more is whether there was one.
	ahead, more bool
}

// queryNative runs text through the dialect's own driver and reads ahead
// its first row (see rowSource.ahead).
func (s *Store) queryNative(ctx context.Context, text string, params []any) (rowSource, error) {
	pg, err := s.native.Query(ctx, text, params...)
	if err != nil {
		return rowSource{}, err
	}
	more := pg.Next()
	if err := pg.Err(); err != nil {
		pg.Close()
		return rowSource{}, err
	}
	return rowSource{pg: pg, native: s.native, ahead: true, more: more}, nil
}

// Next prepares the next row for Scan; false at the end or on an error.
func (r *rowSource) Next() bool {
	if r.pg == nil {
		return r.sql.Next()
	}
	if r.ahead {
		r.ahead = false
		return r.more
	}
	return r.pg.Next()
}

// Scan copies the current row's columns into dest.
func (r *rowSource) Scan(dest ...any) error {
	if r.pg != nil {
		return r.pg.Scan(dest...)
	}
	return r.sql.Scan(dest...)
}

// Err is the error that ended the rows, if any.
func (r *rowSource) Err() error {
	if r.pg != nil {
		return r.pg.Err()
	}
	return r.sql.Err()
}

// Close releases the rows (and, for the dialect's, the pool's connection); any
// error is Err's.
func (r *rowSource) Close() {
	if r.pg != nil {
		r.pg.Close()
		return
	}
	_ = r.sql.Close()
}

// target is where a column of kind k is scanned for fromSQL to read from
// *raw: raw itself for database/sql's rows, the dialect's target for its
// own (dialect.Native.Target).
func (r *rowSource) target(k Kind, raw *any) any {
	if r.pg == nil {
		return raw
	}
	if k < 0 || int(k) >= len(scanKinds) {
		return raw
	}
	return r.native.Target(scanKinds[k], raw)
}

// scanKinds are the kinds as dialect.Native.Target reads them.
var scanKinds = [...]dialect.ScanKind{KindInt: dialect.ScanInt, KindString: dialect.ScanText, KindFloat: dialect.ScanFloat,
	KindBool: dialect.ScanBool, KindTime: dialect.ScanTime, KindDate: dialect.ScanTime, KindJSON: dialect.ScanJSON}
