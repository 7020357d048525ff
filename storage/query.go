package storage

import (
	"context"
	"fmt"
	"slices"

	"github.com/uptrace/bun"
)

// Find returns the rows of q.Table that match q, in q.OrderBy order (then by
// key), paged by q.Limit and q.Offset or q.Seek. The columns of q.Columns (or every
// column except organization_id) are read, with values normalized to their
// Kind's Go type.
func (c *Conn) Find(ctx context.Context, q Query) ([]Row, error) {
	st, cols, err := c.s.findStatement(q)
	if err != nil {
		return nil, err
	}
	t := q.Table
	rows, err := c.query(ctx, st)
	if err != nil {
		return nil, c.s.mapError("find", t.Name, err)
	}
	out, err := scanRows(rows, t, cols, rowsHint(q.Limit))
	if err != nil {
		return nil, c.s.mapError("find", t.Name, err)
	}
	if q.Backward {
		return reversed(out), nil
	}
	return out, nil
}

// selected is the columns Find reads for q: q.Columns, each checked against
// the table's declarations (column names reach SQL only from them), or
// every column.
func (q Query) selected() ([]string, error) {
	t := q.Table
	if t == nil {
		return nil, fmt.Errorf("storage: find: query without a table")
	}
	if q.Columns == nil {
		return t.Order, nil
	}
	if len(q.Columns) == 0 {
		return nil, fmt.Errorf("storage: find in %s: an empty column list (nil reads every column)", t.Name)
	}
	for i, col := range q.Columns {
		if _, ok := t.Columns[col]; !ok {
			return nil, fmt.Errorf("storage: find in %s: no column %q", t.Name, col)
		}
		if slices.Contains(q.Columns[:i], col) {
			return nil, fmt.Errorf("storage: find in %s: column %q named twice", t.Name, col)
		}
	}
	return q.Columns, nil
}

// readColumns appends the columns cols of t as Find reads them (and a
// write's RETURNING: see timeColumnText).
func (s *Store) readColumns(st *sqlText, t *Table, cols []string) {
	for i, col := range cols {
		if i > 0 {
			st.add(", ")
		}
		if len(s.f.TimeColumn) > 1 && timeKind(t.Columns[col]) {
			st.add(s.f.TimeColumn[:len(s.f.TimeColumn)-1]) // what comes before the mark: see timeColumnText
		}
		st.ident(col)
	}
}

// findStatement is Find's SELECT and the columns it reads, in order.
func (s *Store) findStatement(q Query) (*sqlText, []string, error) {
	cols, err := q.selected()
	if err != nil {
		return nil, nil, err
	}
	var st sqlText
	t := q.Table
	st.b.Grow(96 + 24*len(cols)) // the usual statement at once, rather than doubling to it
	st.add("SELECT ")
	s.readColumns(&st, t, cols)
	st.add(" FROM ")
	st.ident(t.Name)
	if q.Backward && q.Offset != 0 {
		return nil, nil, fmt.Errorf("storage: find in %s: an offset read backward", t.Name)
	}
	if err := s.where(&st, q); err != nil {
		return nil, nil, err
	}
	if err := s.orderBy(&st, q); err != nil {
		return nil, nil, err
	}
	switch {
	case q.Limit > 0:
		st.add(" LIMIT ?", sqlCount(q.Limit))
	case q.Offset > 0:
		st.add(s.f.OffsetWithoutLimit) // SQLite accepts OFFSET only after LIMIT
	}
	if q.Offset > 0 {
		st.add(" OFFSET ?", sqlCount(q.Offset))
	}
	return &st, cols, nil
}

// timeColumnText is how Find selects a column of kind k: a time as the
// database has it read (Features.TimeColumn), any other column as it is.
func (s *Store) timeColumnText(k Kind) string {
	if timeKind(k) {
		return s.f.TimeColumn
	}
	return "?"
}

// timeKind tells whether k is read as a time (see timeColumnText).
func timeKind(k Kind) bool { return k == KindTime || k == KindDate }

// Count returns how many rows match q's conditions (OrderBy, Limit and Offset
// are ignored).
func (c *Conn) Count(ctx context.Context, q Query) (int, error) {
	if q.Table == nil {
		return 0, fmt.Errorf("storage: count: query without a table")
	}
	q.Seek = nil // every match counts, not those after a page's position
	var st sqlText
	st.add("SELECT count(*) FROM ?", bun.Ident(q.Table.Name))
	if err := c.s.where(&st, q); err != nil {
		return 0, err
	}
	var n int
	if err := c.queryRow(ctx, &st, &n); err != nil {
		return 0, c.s.mapError("count", q.Table.Name, err)
	}
	return n, nil
}

// Get returns the row with the given key in the organization, or ErrNotFound.
func (c *Conn) Get(ctx context.Context, t *Table, org int64, key any) (Row, error) {
	return c.GetColumns(ctx, t, org, key, nil)
}

// GetColumns is Get reading only the columns cols, as Query.Columns does
// for Find (nil: every column): for a read that shows part of the record.
func (c *Conn) GetColumns(ctx context.Context, t *Table, org int64, key any, cols []string) (Row, error) {
	rows, err := c.Find(ctx, Query{
		Table: t, Org: org, Limit: 1, Columns: cols,
		Where: []Cond{{Column: t.Key, Op: Eq, Values: []any{key}}},
	})
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, ErrNotFound
	}
	return rows[0], nil
}

// Linkage returns (key, column value) pairs of the rows of t whose column
// holds one of values, ordered by column value then key. It loads the
// identifiers of a to-many relationship for a whole page of parents in one
// query: t is the related table and column its reference to the parent
// (organization_id on a Scoped table, for an organization's records).
func (c *Conn) Linkage(ctx context.Context, t *Table, org int64, column string, values []any) ([][2]any, error) {
	if len(values) == 0 {
		return nil, nil
	}
	q := Query{
		Table: t, Org: org,
		Where: []Cond{{Column: column, Op: Eq, Values: values}},
	}
	keyKind, _ := t.filterKind(t.Key)
	colKind, _ := t.filterKind(column)
	grouped := groupedKinds(keyKind)
	var st sqlText
	if grouped {
		c.s.groupedSelect(&st, column, t.Key)
		st.add(" FROM ?", bun.Ident(t.Name))
	} else {
		st.add("SELECT ?, ? FROM ?", bun.Ident(t.Key), bun.Ident(column), bun.Ident(t.Name))
	}
	if err := c.s.where(&st, q); err != nil {
		return nil, err
	}
	// Not orderBy: organization_id is no sort column, and the values
	// matched are never NULL.
	if grouped {
		st.add(" GROUP BY ? ORDER BY ?", bun.Ident(column), bun.Ident(column))
	} else {
		st.add(" ORDER BY ?, ?", bun.Ident(column), bun.Ident(t.Key))
	}
	rows, err := c.query(ctx, &st)
	if err != nil {
		return nil, c.s.mapError("linkage", t.Name, err)
	}
	out, err := c.s.scanLinks(rows, grouped, keyKind, colKind, [2]string{t.Key, column}, rowsHint(len(values)))
	if err != nil {
		return nil, c.s.mapError("linkage", t.Name, err)
	}
	return out, nil
}

// maxRowsHint bounds the rows a result slice is allocated for up front.
const maxRowsHint = 1000

// rowsHint is how many rows to allocate a result for, given the most (or
// about as many as) expected: n when it is known and not too large.
func rowsHint(n int) int {
	if n <= 0 || n > maxRowsHint {
		return 0
	}
	return n
}

// scanRows reads every row into a Row of the given columns, normalizing each
// value by its column's kind, and closes rows. sizeHint is how many rows are
// expected at most (0: unknown), so that the slice is allocated once.
func scanRows(rows rowSource, t *Table, cols []string, sizeHint int) ([]Row, error) {
	defer rows.Close()
	var kindsOf [16]Kind // most tables' columns, without an allocation
	kinds := kindsOf[:0]
	for _, col := range cols {
		k, _ := t.filterKind(col)
		kinds = append(kinds, k)
	}
	slots := make([]any, 2*len(cols)) // raw, then dest: one allocation
	raw, dest := slots[:len(cols):len(cols)], slots[len(cols):]
	for i := range raw {
		dest[i] = rows.target(kinds[i], &raw[i])
	}
	out := make([]Row, 0, sizeHint)
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return nil, err
		}
		r := newRow(len(cols))
		for i, col := range cols {
			v, err := fromSQL(kinds[i], raw[i])
			if err != nil {
				return nil, fmt.Errorf("column %s: %w", col, err)
			}
			r[col] = v
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, nil // as before: no rows is a nil slice
	}
	return out, nil
}

// scanPairs reads rows of two columns of kinds first and second into
// pairs, normalized as scanRows does, and closes rows: Linkage and Pairs
// hand back pairs, so no Row is built for them.
func scanPairs(rows rowSource, first, second Kind, names [2]string, sizeHint int) ([][2]any, error) {
	defer rows.Close()
	var raw [2]any
	dest := [2]any{rows.target(first, &raw[0]), rows.target(second, &raw[1])}
	out := make([][2]any, 0, sizeHint)
	for rows.Next() {
		if err := rows.Scan(dest[:]...); err != nil {
			return nil, err
		}
		var p [2]any
		for i, k := range [2]Kind{first, second} {
			v, err := fromSQL(k, raw[i])
			if err != nil {
				return nil, fmt.Errorf("column %s: %w", names[i], err)
			}
			p[i] = v
		}
		out = append(out, p)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}
