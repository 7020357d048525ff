package storage

import (
	"fmt"
	"slices"
	"strings"

	"github.com/uptrace/bun"
)

// sqlText collects a statement with Bun placeholders and its arguments.
// Identifiers go in as bun.Ident arguments and values as plain arguments, so
// nothing from a request is ever spliced into the SQL text.
type sqlText struct {
	b    strings.Builder
	args []any
}

func (q *sqlText) add(s string, args ...any) {
	q.b.WriteString(s)
	q.args = append(q.args, args...)
}

func (q *sqlText) String() string { return q.b.String() }

// idents appends a comma-separated list of quoted column names.
func (q *sqlText) idents(cols []string) {
	for i, c := range cols {
		if i > 0 {
			q.add(", ")
		}
		q.add("?", bun.Ident(c))
	}
}

// likeEscape is the LIKE escape character. '!' rather than '\' because a
// backslash in a string literal is read differently by PostgreSQL servers
// with standard_conforming_strings off; with ESCAPE '!' a backslash is an
// ordinary character on both databases.
const likeEscape = "!"

var likeEscaper = strings.NewReplacer("!", "!!", "%", "!%", "_", "!_")

// where appends the WHERE clause of q: the organization (for scoped tables)
// and every condition, joined by AND.
func (s *Store) where(st *sqlText, q Query) error {
	if q.Table == nil {
		return fmt.Errorf("storage: query without a table")
	}
	sep := " WHERE "
	if q.Table.Scoped {
		st.add(sep+"? = ?", bun.Ident(orgColumn), q.Org)
		sep = " AND "
	}
	for _, c := range q.Where {
		st.add(sep)
		if err := cond(st, q.Table, c); err != nil {
			return fmt.Errorf("storage: %s: condition on %q: %w", q.Table.Name, c.Column, err)
		}
		sep = " AND "
	}
	return nil
}

// cond appends one condition. Values are converted to the column's kind first
// (see toSQL), which also puts times in SQLite's canonical text form.
func cond(st *sqlText, t *Table, c Cond) error {
	k, ok := t.Columns[c.Column]
	if !ok {
		return fmt.Errorf("no such column")
	}
	col := bun.Ident(c.Column)
	switch c.Op {
	case Eq, Neq:
		return inList(st, col, k, c.Values, c.Op == Neq)
	case NeqOrNull:
		st.add("(")
		if err := inList(st, col, k, c.Values, true); err != nil {
			return err
		}
		st.add(" OR ? IS NULL)", col)
		return nil
	case Exists, NotExists:
		if len(c.Values) != 0 {
			return fmt.Errorf("operator takes no values, got %d", len(c.Values))
		}
		if c.Op == Exists {
			st.add("? IS NOT NULL", col)
		} else {
			st.add("? IS NULL", col)
		}
		return nil
	}
	vals, err := condValues(k, c.Values)
	if err != nil {
		return err
	}
	if cmp, ok := comparisons[c.Op]; ok {
		if len(vals) != 1 {
			return fmt.Errorf("operator takes one value, got %d", len(vals))
		}
		st.add("? "+cmp+" ?", col, vals[0])
		return nil
	}
	switch c.Op {
	case Range, NotRange:
		if len(vals) != 2 {
			return fmt.Errorf("range takes two values, got %d", len(vals))
		}
		not := ""
		if c.Op == NotRange {
			not = "NOT "
		}
		st.add(not+"(? BETWEEN ? AND ?)", col, vals[0], vals[1])
		return nil
	case Contains, NotContains, StartsWith, NotStartsWith, EndsWith, NotEndsWith:
		if k != KindString {
			return fmt.Errorf("pattern matching needs a string column")
		}
		if len(vals) != 1 {
			return fmt.Errorf("operator takes one value, got %d", len(vals))
		}
		pattern := likeEscaper.Replace(vals[0].(string))
		switch c.Op {
		case Contains, NotContains:
			pattern = "%" + pattern + "%"
		case StartsWith, NotStartsWith:
			pattern += "%"
		default:
			pattern = "%" + pattern
		}
		not := ""
		if c.Op == NotContains || c.Op == NotStartsWith || c.Op == NotEndsWith {
			not = "NOT "
		}
		st.add("? "+not+"LIKE ? ESCAPE '"+likeEscape+"'", col, pattern)
		return nil
	}
	return fmt.Errorf("unknown operator %d", c.Op)
}

var comparisons = map[Op]string{Lt: "<", Lte: "<=", Gt: ">", Gte: ">="}

// condValues converts every value; NULL is not a value to compare with.
func condValues(k Kind, values []any) ([]any, error) {
	out := make([]any, len(values))
	for i, v := range values {
		a, err := toSQL(k, v, false)
		if err != nil {
			return nil, err
		}
		if a == nil {
			return nil, fmt.Errorf("NULL cannot be compared (use Exists or NotExists)")
		}
		out[i] = a
	}
	return out, nil
}

// inList appends col IN (values) or, with not, col NOT IN (values). A nil
// value stands for NULL: Eq then also matches NULL and Neq excludes it. An
// empty list matches nothing (Eq) or everything (Neq).
func inList(st *sqlText, col bun.Ident, k Kind, values []any, not bool) error {
	var vals []any
	null := false
	for _, v := range values {
		a, err := toSQL(k, v, false)
		if err != nil {
			return err
		}
		if a == nil {
			null = true
			continue
		}
		vals = append(vals, a)
	}
	var parts []string
	var args []any
	switch {
	case len(vals) == 1 && !not:
		parts, args = append(parts, "? = ?"), append(args, col, vals[0])
	case len(vals) == 1:
		parts, args = append(parts, "? <> ?"), append(args, col, vals[0])
	case len(vals) > 1 && !not:
		parts, args = append(parts, "? IN (?)"), append(args, col, bun.List(vals))
	case len(vals) > 1:
		parts, args = append(parts, "? NOT IN (?)"), append(args, col, bun.List(vals))
	}
	if null && !not {
		parts, args = append(parts, "? IS NULL"), append(args, col)
	}
	if null && not {
		parts, args = append(parts, "? IS NOT NULL"), append(args, col)
	}
	switch {
	case len(parts) == 0 && not:
		st.add("1 = 1")
	case len(parts) == 0:
		st.add("1 = 0")
	case not:
		st.add("("+strings.Join(parts, " AND ")+")", args...)
	default:
		st.add("("+strings.Join(parts, " OR ")+")", args...)
	}
	return nil
}

// orderBy appends ORDER BY q.OrderBy, then the key as a tie-breaker so that
// pages never overlap. NULLs sort as the largest value on both databases
// (PostgreSQL's default; SQLite needs it spelled out).
func (s *Store) orderBy(st *sqlText, q Query) error {
	t := q.Table
	orders := q.OrderBy
	if !slices.ContainsFunc(orders, func(o Order) bool { return o.Column == t.Key }) {
		orders = append(slices.Clip(orders), Order{Column: t.Key})
	}
	st.add(" ORDER BY ")
	for i, o := range orders {
		if _, ok := t.Columns[o.Column]; !ok {
			return fmt.Errorf("storage: %s: cannot sort by unknown column %q", t.Name, o.Column)
		}
		if i > 0 {
			st.add(", ")
		}
		dir := " ASC"
		if o.Desc {
			dir = " DESC"
		}
		if s.sqlite() && o.Column != t.Key {
			if o.Desc {
				dir += " NULLS FIRST"
			} else {
				dir += " NULLS LAST"
			}
		}
		st.add("?"+dir, bun.Ident(o.Column))
	}
	return nil
}
