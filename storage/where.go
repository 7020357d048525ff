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

// ident appends the identifier name, as add("?", bun.Ident(name)) would
// and bind would then write it, but quoted into the text at once: boxing
// each name as an argument cost an allocation per column of every read.
// A name holding a '?' still goes as an argument, which bind would
// otherwise take for a mark.
func (q *sqlText) ident(name string) {
	if strings.IndexByte(name, '?') >= 0 {
		q.add("?", bun.Ident(name))
		return
	}
	writeIdent(&q.b, name)
}

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
		st.add(sep)
		st.ident(orgColumn)
		st.add(" = ?", q.Org)
		sep = " AND "
	}
	for _, c := range q.Where {
		st.add(sep)
		if len(c.Path) > 0 {
			if err := s.pathCond(st, q.Table, q.Org, c); err != nil {
				return fmt.Errorf("storage: %s: condition on a path to %q: %w", q.Table.Name, c.Column, err)
			}
			sep = " AND "
			continue
		}
		if err := s.cond(st, q.Table, c); err != nil {
			if c.Via != nil {
				return fmt.Errorf("storage: %s: condition via %s(%s, %s): %w", q.Table.Name, c.Via.Table, c.Via.Column, c.Via.Target, err)
			}
			return fmt.Errorf("storage: %s: condition on %q: %w", q.Table.Name, c.Column, err)
		}
		sep = " AND "
	}
	if q.Seek != nil {
		st.add(sep)
		return s.seek(st, q)
	}
	return nil
}

// cond appends one condition. Values are converted to the column's kind first
// (see toSQL), which also puts times in SQLite's canonical text form.
func (s *Store) cond(st *sqlText, t *Table, c Cond) error {
	if c.Via != nil {
		return s.viaCond(st, t, c)
	}
	if c.Op == Match {
		return s.matchCond(st, t, c)
	}
	k, ok := t.filterKind(c.Column)
	if !ok {
		return fmt.Errorf("no such column")
	}
	col := bun.Ident(c.Column)
	switch c.Op {
	case Empty, NotEmpty:
		if len(c.Values) != 0 {
			return fmt.Errorf("operator takes no values, got %d", len(c.Values))
		}
		s.emptyCond(st, col, k, c.Op == Empty)
		return nil
	case Eq, Neq:
		return s.inList(st, col, k, c.Values, c.Op == Neq)
	case NeqOrNull:
		st.add("(")
		if err := s.inList(st, col, k, c.Values, true); err != nil {
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
	case Range, NotRange, NotRangeOrNull:
		// Values are pairs of ends, both included: any of the ranges matches (a
		// filter listing several dates names several periods).
		if len(vals) == 0 || len(vals)%2 != 0 {
			return fmt.Errorf("ranges take pairs of values, got %d", len(vals))
		}
		if c.Op != Range {
			st.add("(NOT ")
		}
		st.add("(")
		for i := 0; i < len(vals); i += 2 {
			if i > 0 {
				st.add(" OR ")
			}
			st.add("? BETWEEN ? AND ?", col, vals[i], vals[i+1])
		}
		st.add(")")
		if c.Op == NotRangeOrNull {
			st.add(" OR ? IS NULL", col)
		}
		if c.Op != Range {
			st.add(")")
		}
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

// emptyCond appends the test for NULL or the empty value of kind k (the empty
// string; [] and {} for JSON), or with empty false for neither. JSON is
// compared as jsonb on PostgreSQL and in json()'s minified text on SQLite,
// so spacing does not matter.
func (s *Store) emptyCond(st *sqlText, col bun.Ident, k Kind, empty bool) {
	switch {
	case k == KindString && empty:
		st.add("(? IS NULL OR ? = ?)", col, col, "")
	case k == KindString:
		st.add("(? IS NOT NULL AND ? <> ?)", col, col, "")
	case k == KindJSON && empty:
		st.add(s.f.EmptyJSON, col, col)
	case k == KindJSON:
		st.add(s.f.NotEmptyJSON, col, col)
	case empty:
		st.add("? IS NULL", col)
	default:
		st.add("? IS NOT NULL", col)
	}
}

// viaAlias names the related table inside the subqueries of Via conditions,
// so that a table related to itself (accounts.referred_by_id) still tells the
// outer row from the related one.
const viaAlias = "via"

// viaCond appends a condition on related rows (see Via and the operators).
// Rows are related when Via.Table's Column holds the queried row's key;
// their Target values are the related keys.
func (s *Store) viaCond(st *sqlText, t *Table, c Cond) error {
	v := c.Via
	if c.Column != "" && c.Column != t.Key {
		return fmt.Errorf("a condition via related rows tests the key, not %q", c.Column)
	}
	colKind, targetKind, err := s.viaKinds(v)
	if err != nil {
		return err
	}
	if colKind != t.Columns[t.Key] {
		return fmt.Errorf("%s.%s is %s, the key %s.%s %s", v.Table, v.Column, kindName(colKind), t.Name, t.Key, kindName(t.Columns[t.Key]))
	}
	key := []any{bun.Ident(t.Name), bun.Ident(t.Key)}
	alias := bun.Ident(viaAlias)
	related := []any{bun.Ident(v.Table), alias, alias, bun.Ident(v.Column)}
	related = append(related, key...)
	not := ""
	switch c.Op {
	case Exists, NotExists, Empty, NotEmpty:
		if len(c.Values) != 0 {
			return fmt.Errorf("operator takes no values, got %d", len(c.Values))
		}
		if c.Op == NotExists || c.Op == Empty {
			not = "NOT "
		}
		st.add(not+"EXISTS (SELECT 1 FROM ? AS ? WHERE ?.? = ?.?)", related...)
		return nil
	case Eq, Neq, NeqOrNull:
		vals, err := viaValues(targetKind, c.Values)
		if err != nil {
			return err
		}
		switch {
		case len(vals) == 0 && c.Op == Eq:
			st.add("1 = 0")
			return nil
		case len(vals) == 0:
			st.add("1 = 1")
			return nil
		case c.Op != Eq:
			not = "NOT "
		}
		// The values are one list parameter where they can be (memberOf),
		// so that the statement's text does not depend on how many there
		// are.
		member, list := s.memberOf(vals, false)
		if c.Op == Eq || s.f.InSubqueries {
			// SQLite runs a correlated EXISTS again for every row of t, and
			// its IN list with it (minutes for thousands of keys over
			// thousands of rows: issue 15); this subquery runs once. IS NOT
			// NULL keeps NOT IN from meeting a NULL.
			col, target := bun.Ident(v.Column), bun.Ident(v.Target)
			if s.f.KeysIn != "" {
				if arr, ok := s.f.JSONList(vals); ok {
					// The related rows are looked up key by key from the
					// values' JSON array (Features.KeysIn).
					st.add("?.? "+not+s.f.KeysIn,
						append(key, alias, col, arr, bun.Ident(v.Table), alias, alias, target, alias, col, alias, col)...)
					return nil
				}
			}
			if c.Op == Eq && s.f.ArrayParams && len(vals) <= customPlanArray {
				// Where the database has arrays (PostgreSQL), the keys
				// related to a few values (the owners of a page, a short
				// filter) are gathered into one array, ARRAY(subquery),
				// run once as an InitPlan, and the array is an index
				// condition on the queried table's key. IN (subquery)
				// became a join whose plan rests on the statistics of both
				// tables: without them (a table never analyzed, autovacuum
				// off or behind the table's growth) organization_id = 1 was
				// costed at 0.3% of the accounts, and the accounts of a
				// page of contacts (include=accounts) were found by
				// reading every account of the organization: 65 ms at
				// 200,000 accounts instead of 0.3 ms, growing with the
				// table (issue 30, item 7; docs/scaling.md, "Data that
				// grows"). Past customPlanArray values the statement is
				// planned for its values at every run, and the join stays:
				// it can stop at a page's end, where the array gathers
				// every related key first (a filter on 5,000 contacts of
				// 20,000 accounts: 5.7 ms as a join, 14.6 ms as an array).
				st.add("?.? = ANY(ARRAY(SELECT ? FROM ? WHERE ? IS NOT NULL AND "+member+"))",
					append(key, col, bun.Ident(v.Table), col, target, list)...)
				return nil
			}
			st.add("?.? "+not+"IN (SELECT ? FROM ? WHERE ? IS NOT NULL AND "+member+")",
				append(key, col, bun.Ident(v.Table), col, target, list)...)
			return nil
		}
		// PostgreSQL turns NOT EXISTS into an anti-join; NOT IN would probe
		// the subquery's rows one outer row at a time once they outgrow
		// work_mem.
		st.add("NOT EXISTS (SELECT 1 FROM ? AS ? WHERE ?.? = ?.? AND ?."+member+")",
			append(related, alias, bun.Ident(v.Target), list)...)
		return nil
	case Contains, NotContains:
		vals, err := viaValues(targetKind, c.Values)
		if err != nil {
			return err
		}
		if len(vals) == 0 {
			return fmt.Errorf("operator takes at least one value")
		}
		if c.Op == NotContains {
			not = "NOT "
		}
		col, target := bun.Ident(v.Column), bun.Ident(v.Target)
		member, list := s.memberOf(vals, false)
		st.add("?.? "+not+"IN (SELECT ? FROM ? WHERE ? IS NOT NULL AND "+member+" GROUP BY ? HAVING count(DISTINCT ?) = ?)",
			append(key, col, bun.Ident(v.Table), col, target, list, col, target, len(vals))...)
		return nil
	}
	return fmt.Errorf("operator %d does not apply to related rows", c.Op)
}

// viaKinds checks that a Via names a join table or table and two of its
// columns, and returns their kinds.
func (s *Store) viaKinds(v *Via) (col, target Kind, err error) {
	var okCol, okTarget bool
	if j, ok := s.joins[v.Table]; ok {
		col, okCol = j.kind(v.Column)
		target, okTarget = j.kind(v.Target)
	} else if t, ok := s.tables[v.Table]; ok {
		col, okCol = t.filterKind(v.Column)
		target, okTarget = t.Columns[v.Target]
	} else {
		return 0, 0, fmt.Errorf("no table %q", v.Table)
	}
	switch {
	case !okCol:
		return 0, 0, fmt.Errorf("no column %q in %s", v.Column, v.Table)
	case !okTarget:
		return 0, 0, fmt.Errorf("no column %q in %s", v.Target, v.Table)
	case v.Column == v.Target:
		return 0, 0, fmt.Errorf("column and target are both %q", v.Column)
	case target == KindJSON:
		return 0, 0, fmt.Errorf("target %s is JSON", v.Target)
	}
	return col, target, nil
}

// viaValues converts related keys, dropping repeats (Contains counts them);
// NULL is no key.
func viaValues(k Kind, values []any) ([]any, error) {
	vals, err := condValues(k, values)
	if err != nil {
		return nil, err
	}
	seen := make(map[any]bool, len(vals))
	out := vals[:0]
	for _, v := range vals {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out, nil
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
func (s *Store) inList(st *sqlText, col bun.Ident, k Kind, values []any, not bool) error {
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
	case len(vals) > 1:
		cond, list := s.memberOf(vals, not)
		parts, args = append(parts, cond), append(args, col, list)
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

// Ordering is the whole order of a query of t sorted by orders: orders,
// then the key as a tie-breaker (unless orders has it) so that the order is
// total and pages never overlap. Query.Seek holds one value per column of it.
func Ordering(t *Table, orders []Order) []Order {
	if slices.ContainsFunc(orders, func(o Order) bool { return o.Column == t.Key && o.Path == nil }) {
		return orders
	}
	return append(slices.Clip(orders), Order{Column: t.Key})
}

// orderBy appends ORDER BY Ordering(q.Table, q.OrderBy), each direction
// turned over when q.Backward. NULLs sort as the largest value on both
// databases (PostgreSQL's default; SQLite needs it spelled out), so turning
// a direction over also moves them to the other end.
func (s *Store) orderBy(st *sqlText, q Query) error {
	t := q.Table
	st.add(" ORDER BY ")
	// Ordering(t, q.OrderBy), without making its slice.
	orders, withKey := q.OrderBy, !slices.ContainsFunc(q.OrderBy, func(o Order) bool { return o.Column == t.Key && o.Path == nil })
	for i := range len(orders) + btoi(withKey) {
		o := Order{Column: t.Key}
		if i < len(orders) {
			o = orders[i]
		}
		if _, ok := t.Columns[o.Column]; !ok && o.Path == nil {
			return fmt.Errorf("storage: %s: cannot sort by unknown column %q", t.Name, o.Column)
		}
		if i > 0 {
			st.add(", ")
		}
		desc := o.Desc != q.Backward
		dir := " ASC"
		if desc {
			dir = " DESC"
		}
		if s.f.NullsSmallest && (o.Column != t.Key || o.Path != nil) {
			if desc {
				dir += " NULLS FIRST"
			} else {
				dir += " NULLS LAST"
			}
		}
		if o.Path != nil {
			if err := s.pathOrder(st, t, o); err != nil {
				return err
			}
		} else {
			st.ident(o.Column)
		}
		st.add(dir)
	}
	return nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}
