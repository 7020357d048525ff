package storage

import (
	"context"

	"github.com/uptrace/bun"
)

// Existing returns which of values a row of t in the organization holds in
// column (its identifier): what a write checks before it refers to records.
// It reads that column only, not whole rows as Find would.
func (c *Conn) Existing(ctx context.Context, t *Table, org int64, column string, values []any) ([]any, error) {
	if len(values) == 0 {
		return nil, nil
	}
	q := Query{Table: t, Org: org, Where: []Cond{{Column: column, Op: Eq, Values: values}}}
	var st sqlText
	st.add("SELECT ? FROM ?", bun.Ident(column), bun.Ident(t.Name))
	if err := c.s.where(&st, q); err != nil {
		return nil, err
	}
	rows, err := c.query(ctx, &st)
	if err != nil {
		return nil, c.s.mapError("find", t.Name, err)
	}
	found, err := scanRows(rows, t, []string{column}, rowsHint(len(values)))
	if err != nil {
		return nil, c.s.mapError("find", t.Name, err)
	}
	out := make([]any, len(found))
	for i, r := range found {
		out[i] = r[column]
	}
	return out, nil
}
