package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"modernc.org/sqlite"

	"github.com/entityapi/entityapi/storage/dialect"
)

// features are SQLite's differences as the generic SQL reads them.
var features = dialect.Features{
	SystemName:         "sqlite",
	OneWriter:          true,
	InProcess:          true,
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
	LongInserts:        true,
	LastKey:            "SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = ?), 0), coalesce((SELECT max(?) FROM ?), 0))",
	HasTable:           "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?",
	Match:              match,
	SearchHits:         searchHits,
	NotedSearch:        "DELETE FROM search_pending", // its triggers write the indexes (migration 0019)
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

// SQLite's primary result codes of a file that cannot be worked on now
// (https://sqlite.org/rescode.html).
const (
	primaryBusy     = 5
	primaryNoMem    = 7
	primaryReadOnly = 8
	primaryIOErr    = 10
	primaryFull     = 13
	primaryCantOpen = 14
)

// Constraint recognizes a constraint violation of any kind: SQLite backs
// the statement out by itself and the transaction goes on.
func (d *DB) Constraint(err error) bool {
	var se *sqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == primaryConstraint
}

// Unavailable recognizes the errors of a file that cannot be worked on now:
// unreadable or unwritable (SQLITE_IOERR, SQLITE_CANTOPEN, SQLITE_READONLY),
// on a full disk (SQLITE_FULL), locked by another process past the busy
// timeout (SQLITE_BUSY), or out of memory (SQLITE_NOMEM).
func (d *DB) Unavailable(err error) bool {
	var se *sqlite.Error
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case primaryBusy, primaryNoMem, primaryReadOnly, primaryIOErr, primaryFull, primaryCantOpen:
		return true
	}
	return false
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

// SQLite has no array parameter: a list of values travels as one JSON array
// read with json_each (Features.JSONList), so that a statement's text does
// not depend on how many values there are. A list of marks would make each
// length its own statement, parsed and prepared anew (a 5,000-key filter
// spent a third of its time there) and crowding the prepared cache.
const (
	// anyOf and noneOf are the conditions that ? is (is not) one of the
	// values of the JSON array ?.
	anyOf  = "? IN (SELECT value FROM json_each(?))"
	noneOf = "? NOT IN (SELECT value FROM json_each(?))"
	// keysIn follows "IN" or "NOT IN": the related rows are looked up key by
	// key from the JSON array (CROSS JOIN keeps that order), rather than
	// through an IN (SELECT ... json_each) that SQLite copies into a
	// temporary index first (a tenth of a 5,000-key filter).
	keysIn = "IN (SELECT ?.? FROM json_each(?) AS k CROSS JOIN ? AS ? ON ?.? = k.value WHERE ?.? IS NOT NULL ORDER BY ?.?)"
)

// jsonList is vals as the text of one JSON array, and whether they all fit
// one: all integers or all text. Integers become JSON numbers; text (times
// in dialect.TextTime, JSON and bytes as text, as the store binds them)
// becomes JSON strings that json_each gives back unchanged. Floats,
// booleans, text that is not UTF-8 or holds NUL, and a mix of integers and
// text do not fit.
func jsonList(vals []any) (string, bool) {
	b := make([]byte, 0, 2+8*len(vals))
	b = append(b, '[')
	var ints, texts bool
	for i, v := range vals {
		if i > 0 {
			b = append(b, ',')
		}
		switch x := dialect.TextValue(v).(type) {
		case int64:
			ints = true
			b = strconv.AppendInt(b, x, 10)
		case string:
			if !utf8.ValidString(x) || strings.IndexByte(x, 0) >= 0 {
				return "", false
			}
			texts = true
			q, err := json.Marshal(x)
			if err != nil {
				return "", false
			}
			b = append(b, q...)
		default:
			return "", false
		}
	}
	if ints && texts {
		return "", false
	}
	return string(append(b, ']')), true
}
