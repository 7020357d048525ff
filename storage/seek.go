package storage

import (
	"fmt"
	"slices"

	"github.com/uptrace/bun"
)

// seek appends the condition of Query.Seek: the row comes after the
// position in the query's order (before it when q.Backward). A row-value
// comparison (a, b) > (x, y) would say it only when every column runs the
// same way and none holds NULL, so it is spelled out column by column:
// later in the first column, or equal there and later in the rest. NULLs
// are the largest values (see orderBy) on both databases.
func (s *Store) seek(st *sqlText, q Query) error {
	t := q.Table
	order := Ordering(t, q.OrderBy)
	if len(q.Seek) != len(order) {
		return fmt.Errorf("storage: %s: a seek position of %d values for an order of %d columns", t.Name, len(q.Seek), len(order))
	}
	if q.Offset != 0 {
		return fmt.Errorf("storage: %s: a seek with an offset", t.Name)
	}
	vals := make([]any, len(order))
	for i, o := range order {
		k, ok := t.Columns[o.Column]
		if !ok {
			return fmt.Errorf("storage: %s: cannot sort by unknown column %q", t.Name, o.Column)
		}
		v, err := toSQL(k, q.Seek[i], false)
		if err != nil {
			return fmt.Errorf("storage: %s: seek value of %s: %w", t.Name, o.Column, err)
		}
		if v == nil && o.Column == t.Key {
			return fmt.Errorf("storage: %s: a seek position without its key", t.Name)
		}
		vals[i] = v
	}
	st.add("(")
	closing := 1
	for i, o := range order {
		col := bun.Ident(o.Column)
		last := i == len(order)-1
		// Going backward is going forward in the order turned over.
		desc := o.Desc != q.Backward
		v := vals[i]
		switch {
		case v == nil && !desc: // NULLs are last: nothing comes after one
			st.add("1 = 0")
		case v == nil:
			st.add("? IS NOT NULL", col)
		case desc:
			st.add("? < ?", col, v)
		case o.Column == t.Key:
			st.add("? > ?", col, v)
		default:
			st.add("(? > ? OR ? IS NULL)", col, v, col)
		}
		if last {
			break
		}
		st.add(" OR (")
		closing++
		if v == nil {
			st.add("? IS NULL AND ", col)
		} else {
			st.add("? = ? AND ", col, v)
		}
		st.add("(")
		closing++
	}
	for range closing {
		st.add(")")
	}
	return nil
}

// reversed turns rows read Backward into the query's order.
func reversed(rows []Row) []Row {
	slices.Reverse(rows)
	return rows
}
