package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
)

// On PostgreSQL database/sql sits on a pgx pool, and every read paid for
// both: database/sql's connection locks and retries, then pgx's database/sql
// driver turning each value into a driver.Value through closures built
// anew for every statement. Issue 16 measured those layers as a large part
// of a GET's storage time. A generic statement outside a transaction
// therefore runs on the pool through pgx itself, which prepares and caches
// it per connection as the driver did; inside a transaction it must run on
// the transaction's connection, through database/sql. SQLite is unchanged.

// native tells whether c's statements run through pgx itself: on
// PostgreSQL, outside a transaction.
func (c *Conn) native() bool { return c.tx == nil && c.s.pool != nil }

// rowSource is a statement's rows: database/sql's, or pgx's own (see
// native). It is a value, not an interface holding either, so that reading
// rows allocates nothing more; sql or pg is set.
type rowSource struct {
	sql *sql.Rows
	pg  pgx.Rows
	// ahead: query has read pg's first row already, as pgx's database/sql
	// driver did (so that the statement's error, a cancel say, comes from
	// query and reaches the statement hooks); more is whether there was one.
	ahead, more bool
}

// queryPool runs text on the pool through pgx and reads ahead its first row
// (see rowSource.ahead).
func (s *Store) queryPool(ctx context.Context, text string, params []any) (rowSource, error) {
	pg, err := s.pool.Query(ctx, text, params...)
	if err != nil {
		return rowSource{}, err
	}
	more := pg.Next()
	if err := pg.Err(); err != nil {
		pg.Close()
		return rowSource{}, err
	}
	return rowSource{pg: pg, ahead: true, more: more}, nil
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

// Close releases the rows (and, for pgx's, the pool's connection); any
// error is Err's.
func (r *rowSource) Close() {
	if r.pg != nil {
		r.pg.Close()
		return
	}
	_ = r.sql.Close()
}

// target is where a column of kind k is scanned for fromSQL to read from
// *raw. pgx scanning into an *any decodes JSON into maps and slices, where
// database/sql handed over its bytes, and decodes every other value
// through a scan planned anew for each value: from pgx's own rows each
// kind is scanned through a target of its own instead, which stores what
// fromSQL reads from database/sql's.
func (r *rowSource) target(k Kind, raw *any) any {
	if r.pg == nil {
		return raw
	}
	switch k {
	case KindInt:
		return intTarget{raw}
	case KindString:
		return textTarget{raw}
	case KindFloat:
		return floatTarget{raw}
	case KindBool:
		return boolTarget{raw}
	case KindTime, KindDate:
		return timeTarget{raw}
	case KindJSON:
		return jsonTarget{raw}
	}
	return raw
}

// The targets of target: each stores its value in *v, or nil for NULL.
type (
	intTarget   struct{ v *any }
	textTarget  struct{ v *any }
	floatTarget struct{ v *any }
	boolTarget  struct{ v *any }
	timeTarget  struct{ v *any }
	jsonTarget  struct{ v *any }
)

func (t intTarget) ScanInt64(n pgtype.Int8) error {
	*t.v = nil
	if n.Valid {
		*t.v = n.Int64
	}
	return nil
}

func (t textTarget) ScanText(s pgtype.Text) error {
	*t.v = nil
	if s.Valid {
		*t.v = s.String
	}
	return nil
}

func (t floatTarget) ScanFloat64(f pgtype.Float8) error {
	*t.v = nil
	if f.Valid {
		*t.v = f.Float64
	}
	return nil
}

func (t boolTarget) ScanBool(b pgtype.Bool) error {
	*t.v = nil
	if b.Valid {
		*t.v = b.Bool
	}
	return nil
}

// ScanTimestamptz stores the time in UTC, as fromSQL keeps it. An infinite
// one is stored as the text database/sql gave, which fromSQL refuses.
func (t timeTarget) ScanTimestamptz(ts pgtype.Timestamptz) error {
	return t.store(ts.Valid, ts.Time, ts.InfinityModifier)
}

func (t timeTarget) ScanTimestamp(ts pgtype.Timestamp) error {
	return t.store(ts.Valid, ts.Time, ts.InfinityModifier)
}

func (t timeTarget) ScanDate(d pgtype.Date) error {
	return t.store(d.Valid, d.Time, d.InfinityModifier)
}

func (t timeTarget) store(valid bool, tm time.Time, inf pgtype.InfinityModifier) error {
	switch {
	case !valid:
		*t.v = nil
	case inf != pgtype.Finite:
		*t.v = inf.String()
	default:
		*t.v = tm.UTC()
	}
	return nil
}

// ScanBytes stores a JSON column's text (JSONB's without its version byte:
// pgx's codec strips it) as a json.RawMessage of its own, what fromSQL
// makes of database/sql's bytes. b is pgx's buffer, valid until the next
// row.
func (t jsonTarget) ScanBytes(b []byte) error {
	*t.v = nil
	if b != nil {
		*t.v = json.RawMessage(append([]byte(nil), b...))
	}
	return nil
}
