package dialect

import "context"

// Native is a database's own driver, through which the store's statements
// outside a transaction skip database/sql: on PostgreSQL database/sql sits
// on pgx, and its connection locks and per-statement value conversions
// were a large part of a GET's storage time (issue 16). Dialect.Native is
// nil where the store reads through database/sql alone.
type Native interface {
	// Query runs text on the pool.
	Query(ctx context.Context, text string, args ...any) (Rows, error)
	// QueryRow runs text, which answers one row, on the pool and scans it
	// into dest; an error that Is sql.ErrNoRows when there is none.
	QueryRow(ctx context.Context, text string, args []any, dest []any) error
	// Target is where Rows.Scan puts a column read as k so that *raw then
	// holds what database/sql's rows would have given (storage's
	// fromSQL reads either).
	Target(k ScanKind, raw *any) any
}

// Rows are a statement's rows read through Native.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
	Close()
}

// ScanKind is what a column is read as, for Native.Target.
type ScanKind int

// The scan kinds; ScanAny reads the driver's own value.
const (
	ScanAny ScanKind = iota
	ScanInt
	ScanText
	ScanFloat
	ScanBool
	ScanTime
	ScanJSON
)
