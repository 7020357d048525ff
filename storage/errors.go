package storage

import (
	"errors"
	"fmt"
	"strings"
)

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
	if s.d.ForeignKey(err) {
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

// Unavailable tells whether err (from this store, or from what works on
// its database: the record stores, the job queue) says the database cannot
// be reached or cannot work now, as its dialect reads it: the service's
// condition, which the API answers 503 with Retry-After, never the
// request's fault (docs/production.md, "Database outages").
func (c *Conn) Unavailable(err error) bool { return c.s.d.Unavailable(err) }

// uniqueError recognizes a unique (or primary key) violation, as the
// dialect reads it; nil when err is something else.
func (s *Store) uniqueError(table string, err error) *UniqueError {
	tbl, cols, ok := s.d.Unique(err)
	if !ok {
		return nil
	}
	ue := &UniqueError{Table: table}
	if tbl != "" {
		ue.Table = tbl
	}
	if cols != nil {
		ue.Columns = withoutOrg(cols)
	}
	return ue
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
