package storage

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
)

// AggFunc is one function of Aggregate.
type AggFunc int

// The functions of Aggregate: AggCount groups the rows by the column's value,
// the others reduce the column over the rows.
const (
	AggCount AggFunc = iota
	AggSum
	AggAvg
	AggMin
	AggMax
)

// AggTerm asks for one function over one column of the query's rows.
type AggTerm struct {
	Column string
	Func   AggFunc
}

// ValueCount is one value of an AggCount and how many rows hold it.
type ValueCount struct {
	Value any
	Count int64
}

// Aggregate computes each term over every row matching q's conditions (its
// columns, order, limit and offset are ignored: the aggregates are of the
// filtered set, not of a page). The answer holds, per term in order, a
// []ValueCount for AggCount (the values held most often first, ties by value,
// NULL left out, at most maxValues of them), and for the others a value of
// the column's kind (AggAvg: a float64), nil when no row has one. The
// reductions take one statement together, each count one statement of its own.
func (c *Conn) Aggregate(ctx context.Context, q Query, terms []AggTerm, maxValues int) ([]any, error) {
	t := q.Table
	if t == nil {
		return nil, fmt.Errorf("storage: aggregate: query without a table")
	}
	out := make([]any, len(terms))
	var (
		reduce []int // indexes of the terms the one statement computes
		st     sqlText
	)
	for i, term := range terms {
		k, ok := t.Columns[term.Column]
		if !ok {
			return nil, fmt.Errorf("storage: aggregate in %s: no column %q", t.Name, term.Column)
		}
		if err := aggregateApplies(term.Func, k); err != nil {
			return nil, fmt.Errorf("storage: aggregate in %s of %q: %w", t.Name, term.Column, err)
		}
		if term.Func == AggCount {
			counts, err := c.countValues(ctx, q, term.Column, k, maxValues)
			if err != nil {
				return nil, err
			}
			out[i] = counts
			continue
		}
		if len(reduce) == 0 {
			st.add("SELECT ")
		} else {
			st.add(", ")
		}
		c.s.reduction(&st, term.Func, k, term.Column)
		reduce = append(reduce, i)
	}
	if len(reduce) == 0 {
		return out, nil
	}
	st.add(" FROM ?", bun.Ident(t.Name))
	if err := c.s.where(&st, q); err != nil {
		return nil, err
	}
	rows, err := c.query(ctx, &st)
	if err != nil {
		return nil, c.s.mapError("aggregate", t.Name, err)
	}
	defer rows.Close()
	kinds := make([]Kind, len(reduce))
	raw := make([]any, len(reduce))
	dest := make([]any, len(reduce))
	for j, i := range reduce {
		kinds[j] = resultKind(terms[i].Func, t.Columns[terms[i].Column])
		dest[j] = rows.target(kinds[j], &raw[j])
	}
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return nil, c.s.mapError("aggregate", t.Name, err)
		}
		return nil, fmt.Errorf("storage: aggregate in %s: no row", t.Name)
	}
	if err := rows.Scan(dest...); err != nil {
		return nil, c.s.mapError("aggregate", t.Name, err)
	}
	for j, i := range reduce {
		v, err := fromSQL(kinds[j], raw[j])
		if err != nil {
			return nil, fmt.Errorf("storage: aggregate in %s of %q: %w", t.Name, terms[i].Column, err)
		}
		out[i] = v
	}
	return out, rows.Err()
}

// aggregateApplies refuses a function the column's kind has no meaning for,
// whatever the caller checked before: sum and avg need numbers, min and max
// an order, count a scalar.
func aggregateApplies(f AggFunc, k Kind) error {
	numeric := k == KindInt || k == KindFloat
	switch {
	case f == AggSum || f == AggAvg:
		if !numeric {
			return fmt.Errorf("sum and avg need a number column, not %s", kindName(k))
		}
	case f == AggMin || f == AggMax:
		if k == KindBool || k == KindJSON {
			return fmt.Errorf("min and max need an ordered column, not %s", kindName(k))
		}
	case f == AggCount:
		if k == KindJSON {
			return fmt.Errorf("count needs a scalar column, not %s", kindName(k))
		}
	default:
		return fmt.Errorf("unknown function %d", f)
	}
	return nil
}

// resultKind is the kind of a reduction's value: avg is a float whatever
// the column, the others keep the column's kind.
func resultKind(f AggFunc, k Kind) Kind {
	if f == AggAvg {
		return KindFloat
	}
	return k
}

// reduction appends one reduction of col. PostgreSQL sums integers as
// numeric and averages them as numeric: the casts bring both back to the
// kinds SQLite answers (an integer sum, a float average), so both databases
// hand over the same types.
func (s *Store) reduction(st *sqlText, f AggFunc, k Kind, col string) {
	switch f {
	case AggSum:
		if k == KindInt {
			st.add("CAST(sum(?) AS BIGINT)", bun.Ident(col))
		} else {
			st.add("CAST(sum(?) AS DOUBLE PRECISION)", bun.Ident(col))
		}
	case AggAvg:
		st.add("CAST(avg(?) AS DOUBLE PRECISION)", bun.Ident(col))
	case AggMin:
		st.add("min("+s.timeColumnText(k)+")", bun.Ident(col))
	case AggMax:
		st.add("max("+s.timeColumnText(k)+")", bun.Ident(col))
	}
}

// countValues is one AggCount: the values of col among q's rows with how
// many rows hold each, the most frequent first and ties by value, NULL left
// out, at most limit of them.
func (c *Conn) countValues(ctx context.Context, q Query, col string, k Kind, limit int) ([]ValueCount, error) {
	t := q.Table
	var st sqlText
	st.add("SELECT "+c.s.timeColumnText(k)+", count(*) FROM ?", bun.Ident(col), bun.Ident(t.Name))
	q.Where = append(q.Where[:len(q.Where):len(q.Where)], Cond{Column: col, Op: Exists})
	if err := c.s.where(&st, q); err != nil {
		return nil, err
	}
	st.add(" GROUP BY ? ORDER BY count(*) DESC, ? LIMIT ?", bun.Ident(col), bun.Ident(col), sqlCount(limit))
	rows, err := c.query(ctx, &st)
	if err != nil {
		return nil, c.s.mapError("aggregate", t.Name, err)
	}
	defer rows.Close()
	var raw [2]any
	dest := [2]any{rows.target(k, &raw[0]), rows.target(KindInt, &raw[1])}
	var out []ValueCount
	for rows.Next() {
		if err := rows.Scan(dest[:]...); err != nil {
			return nil, c.s.mapError("aggregate", t.Name, err)
		}
		v, err := fromSQL(k, raw[0])
		if err != nil {
			return nil, fmt.Errorf("storage: aggregate in %s of %q: %w", t.Name, col, err)
		}
		n, err := fromSQL(KindInt, raw[1])
		if err != nil {
			return nil, fmt.Errorf("storage: aggregate in %s of %q: %w", t.Name, col, err)
		}
		out = append(out, ValueCount{Value: v, Count: n.(int64)})
	}
	if err := rows.Err(); err != nil {
		return nil, c.s.mapError("aggregate", t.Name, err)
	}
	return out, nil
}
