package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"modernc.org/sqlite"

	"github.com/entityapi/entityapi/storage/dialect"
)

// features are SQLite's differences as the generic SQL reads them.
var features = dialect.Features{
	SystemName:         "sqlite",
	OneWriter:          true,
	InlineCounts:       true,
	TextValues:         true,
	InSubqueries:       true,
	OffsetWithoutLimit: " LIMIT -1",
	NullsSmallest:      true,
	JSONList:           jsonList,
	AnyOf:              anyOf,
	NoneOf:             noneOf,
	KeysIn:             keysIn,
	TimeColumn:         "+?",
	KeysArray:          []string{"json_group_array(", ")"},
	EmptyJSON:          "(? IS NULL OR json(?) IN ('[]', '{}'))",
	NotEmptyJSON:       "(? IS NOT NULL AND json(?) NOT IN ('[]', '{}'))",
	NoteTriggers:       true,
	EventsInsert:       "events",
	Prepare:            true,
	LastKey:            "SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = ?), 0), coalesce((SELECT max(?) FROM ?), 0))",
	HasTable:           "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?",
}

// Features are SQLite's.
func (d *DB) Features() *dialect.Features { return &features }

// Types are SQLite's column types for the migrations.
func (d *DB) Types() dialect.Types {
	return dialect.Types{
		Serial:    "INTEGER PRIMARY KEY AUTOINCREMENT",
		Timestamp: "TIMESTAMP",
		JSON:      "TEXT",
		Now:       "CURRENT_TIMESTAMP",
	}
}

// Extended result codes for constraint failures (sqlite3.h).
const (
	constraintForeignKey = 787
	constraintPrimaryKey = 1555
	constraintUnique     = 2067
)

// uniqueRE reads "UNIQUE constraint failed: accounts.organization_id,
// accounts.external_id" from a SQLite message.
var uniqueRE = regexp.MustCompile(`UNIQUE constraint failed: ([A-Za-z0-9_., ]+)`)

// Unique reads a unique or primary key violation: the table and columns
// its message names.
func (d *DB) Unique(err error) (table string, columns []string, ok bool) {
	var se *sqlite.Error
	if !errors.As(err, &se) || (se.Code() != constraintUnique && se.Code() != constraintPrimaryKey) {
		return "", nil, false
	}
	if m := uniqueRE.FindStringSubmatch(se.Error()); m != nil {
		columns = []string{}
		for _, qualified := range strings.Split(m[1], ",") {
			tbl, col, ok := strings.Cut(strings.TrimSpace(qualified), ".")
			if !ok {
				continue
			}
			table = tbl
			columns = append(columns, col)
		}
	}
	return table, columns, true
}

// ForeignKey recognizes a foreign key violation.
func (d *DB) ForeignKey(err error) bool {
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() == constraintForeignKey || strings.Contains(se.Error(), "FOREIGN KEY constraint failed")
	}
	return false
}

// primaryConstraint is SQLite's primary result code of a constraint
// violation (the extended codes keep it in their low byte).
const primaryConstraint = 19

// Constraint recognizes a constraint violation of any kind: SQLite backs
// the statement out by itself and the transaction goes on.
func (d *DB) Constraint(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == primaryConstraint
}

// analysisLimit bounds the rows ANALYZE reads per index, so that keeping
// the statistics fresh costs milliseconds however large the tables grow
// (SQLite's recommended setting for PRAGMA optimize).
const analysisLimit = 400

// Optimize refreshes SQLite's planner statistics where they are missing or
// stale (PRAGMA optimize): it analyzes only tables never analyzed or
// changed 25-fold since. The caller holds the write slot (ANALYZE writes
// sqlite_stat1).
func (d *DB) Optimize(ctx context.Context) error {
	conn, err := d.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("storage: optimize: %w", err)
	}
	defer conn.Close()
	for _, stmt := range []string{
		fmt.Sprintf("PRAGMA analysis_limit = %d", analysisLimit),
		"PRAGMA optimize = 0x10002", // every table, not only those this connection used
	} {
		if _, err := conn.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("storage: optimize: %s: %w", stmt, err)
		}
	}
	return nil
}

// Native is nil: the store reads SQLite through database/sql.
func (d *DB) Native() dialect.Native { return nil }

// CopyFrom is refused: SQLite has no COPY (Features.OwnTxConn is false, so
// the store never asks).
func (d *DB) CopyFrom(context.Context, *sql.Conn, string, []string, [][]any) (int64, error) {
	return 0, errors.New("storage: SQLite has no COPY")
}
