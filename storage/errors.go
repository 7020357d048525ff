package storage

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
)

// SQLite extended result codes for constraint failures (sqlite3.h).
const (
	sqliteConstraintForeignKey = 787
	sqliteConstraintPrimaryKey = 1555
	sqliteConstraintUnique     = 2067
)

// sqliteUniqueRE reads "UNIQUE constraint failed: accounts.organization_id,
// accounts.external_id" from a SQLite message.
var sqliteUniqueRE = regexp.MustCompile(`UNIQUE constraint failed: ([A-Za-z0-9_., ]+)`)

// pgKeyRE reads the columns from a PostgreSQL unique violation's detail,
// "Key (organization_id, external_id)=(1, A-1) already exists.".
var pgKeyRE = regexp.MustCompile(`^Key \(([^)]*)\)=`)

// mapError turns driver errors into the package's typed errors and wraps
// everything else with what was being done, e.g. "storage: insert accounts:".
// table is the table written to (empty when not known).
func (s *Store) mapError(op, table string, err error) error {
	if err == nil {
		return nil
	}
	if ue := s.uniqueError(table, err); ue != nil {
		return ue
	}
	if isForeignKey(err) {
		return &ForeignKeyError{Table: table}
	}
	if errors.Is(err, ErrNotFound) || errors.Is(err, ErrTooMany) {
		return err
	}
	if table == "" {
		return fmt.Errorf("storage: %s: %w", op, err)
	}
	return fmt.Errorf("storage: %s %s: %w", op, table, err)
}

// uniqueError recognizes a unique (or primary key) violation on either
// database; nil when err is something else.
func (s *Store) uniqueError(table string, err error) *UniqueError {
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "23505" {
		ue := &UniqueError{Table: table}
		if pe.TableName != "" {
			ue.Table = pe.TableName
		}
		if m := pgKeyRE.FindStringSubmatch(pe.Detail); m != nil {
			ue.Columns = withoutOrg(strings.Split(m[1], ","))
		} else {
			ue.Columns = s.constraintColumns(pe.ConstraintName)
		}
		return ue
	}
	var se *sqlite.Error
	if errors.As(err, &se) && (se.Code() == sqliteConstraintUnique || se.Code() == sqliteConstraintPrimaryKey) {
		ue := &UniqueError{Table: table}
		if m := sqliteUniqueRE.FindStringSubmatch(se.Error()); m != nil {
			var cols []string
			for _, qualified := range strings.Split(m[1], ",") {
				tbl, col, ok := strings.Cut(strings.TrimSpace(qualified), ".")
				if !ok {
					continue
				}
				ue.Table = tbl
				cols = append(cols, col)
			}
			ue.Columns = withoutOrg(cols)
		}
		return ue
	}
	return nil
}

// isForeignKey recognizes a foreign key violation on either database.
func isForeignKey(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "23503"
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		return se.Code() == sqliteConstraintForeignKey || strings.Contains(se.Error(), "FOREIGN KEY constraint failed")
	}
	return false
}

// constraintColumns asks PostgreSQL for a unique constraint's columns when the
// error detail was withheld. It uses the pool, not the failed transaction,
// which PostgreSQL has already aborted.
func (s *Store) constraintColumns(name string) []string {
	if name == "" || s.sqlite() {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), lookupTimeout)
	defer cancel()
	var cols []string
	err := s.db.NewRaw(`SELECT a.attname FROM pg_constraint c
		JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)
		WHERE c.conname = ? ORDER BY array_position(c.conkey, a.attnum)`, name).Scan(ctx, &cols)
	if err != nil {
		return nil
	}
	return withoutOrg(cols)
}

// withoutOrg trims column names and drops organization_id, which every scoped
// unique constraint carries and which callers never set themselves.
func withoutOrg(cols []string) []string {
	out := make([]string, 0, len(cols))
	for _, c := range cols {
		c = strings.Trim(strings.TrimSpace(c), `"`)
		if c != orgColumn && c != "" {
			out = append(out, c)
		}
	}
	return out
}
