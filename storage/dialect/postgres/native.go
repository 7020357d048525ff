package postgres

import (
	"context"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/entityapi/entityapi/storage/dialect"
)

// Native is the pool itself: the store's reads outside a transaction run
// through pgx, which prepares and caches each statement per connection, and
// skip database/sql (dialect.Native).
func (d *DB) Native() dialect.Native { return native{d.pool} }

// native is dialect.Native on the pool.
type native struct{ pool *pgxpool.Pool }

// Query runs text on the pool.
func (n native) Query(ctx context.Context, text string, args ...any) (dialect.Rows, error) {
	return n.pool.Query(ctx, text, args...)
}

// QueryRow runs text on the pool and scans its row into dest (pgx's
// ErrNoRows Is sql.ErrNoRows).
func (n native) QueryRow(ctx context.Context, text string, args []any, dest []any) error {
	return n.pool.QueryRow(ctx, text, args...).Scan(dest...)
}

// Target is where a column read as k is scanned. pgx scanning into an *any
// decodes JSON into maps and slices, where database/sql handed over its
// bytes, and decodes every other value through a scan planned anew for each
// value: each kind is scanned through a target of its own instead, which
// stores what database/sql's rows would have given.
func (native) Target(k dialect.ScanKind, raw *any) any {
	switch k {
	case dialect.ScanInt:
		return intTarget{raw}
	case dialect.ScanText:
		return textTarget{raw}
	case dialect.ScanFloat:
		return floatTarget{raw}
	case dialect.ScanBool:
		return boolTarget{raw}
	case dialect.ScanTime:
		return timeTarget{raw}
	case dialect.ScanJSON:
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
