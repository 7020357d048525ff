package storage

import (
	"fmt"

	"github.com/uptrace/bun"
)

// Hop is one relationship on the way from a queried table to the related
// rows a condition or an order reads (Cond.Path, Order.Path). Exactly one
// of Column, Back and Through says how the rows are linked:
//
//   - Column: to-one, the foreign key in the table before that refers to
//     To's key;
//   - Back: to-many by an inverse key, the column of To that refers to the
//     key of the table before;
//   - Through: to-many through a join table: Through.Table, its column
//     referring to the table before (Through.Column) and the one referring
//     to To (Through.Target).
//
// Where holds conditions on To besides its organization, which a Scoped
// table always gets: the records of a type a caller sees only some of.
type Hop struct {
	To      *Table
	Column  string
	Back    string
	Through *Via
	Where   []Cond
}

// maxHops bounds a path (the engine declares at most two relationships;
// resource.MaxPathHops); each hop is a nested lookup.
const maxHops = 4

// negatedOps maps each operator that matches the absence of something to
// the operator whose matches it excludes: on a path, such a condition holds
// when no related row matches the positive one.
var negatedOps = map[Op]Op{
	Neq: Eq, NeqOrNull: Eq, NotContains: Contains, NotStartsWith: StartsWith,
	NotEndsWith: EndsWith, NotRange: Range, NotRangeOrNull: Range, NotExists: Exists,
}

// pathCond appends a condition on the rows at the end of c.Path, seen from
// rows of t in organization org (docs/queries.md, "Related fields"): a
// positive operator holds when any related row matches (an IN over the
// related keys, a semi-join: a record is answered once however many of its
// related rows match); a negated one (negatedOps) holds when none does,
// records without related rows included (NOT EXISTS, an anti-join).
// Related rows are read within the organization and the hops' Where, so a
// row the caller cannot see never decides a match.
func (s *Store) pathCond(st *sqlText, t *Table, org int64, c Cond) error {
	if len(c.Path) > maxHops {
		return fmt.Errorf("a path of %d relationships (at most %d)", len(c.Path), maxHops)
	}
	if c.Via != nil {
		return fmt.Errorf("a condition on a path tests a column of its last table, not related keys")
	}
	end := c
	end.Path = nil
	p := pathWriter{s: s, org: org, end: end}
	if pos, negated := negatedOps[c.Op]; negated {
		p.end.Op = pos
		return p.none(st, t, t.Name, c.Path)
	}
	return p.any(st, t, t.Name, c.Path, 1)
}

// pathWriter writes the nested lookups of one path condition.
type pathWriter struct {
	s   *Store
	org int64
	end Cond // the condition on the last table, positive
}

// pathAlias names the related table of the depth-th hop (p1, p2, ...) and its
// join table (j1, j2, ...): a path may reach the table it starts from
// (accounts referred by accounts), and each level must name its own rows.
func pathAlias(prefix string, depth int) bun.Ident {
	return bun.Ident(fmt.Sprintf("%s%d", prefix, depth))
}

// any appends "from.link IN (keys of related rows that match)".
func (p pathWriter) any(st *sqlText, t *Table, from string, hops []Hop, depth int) error {
	h := hops[0]
	if err := p.check(t, h); err != nil {
		return err
	}
	a := pathAlias("p", depth)
	switch {
	case h.Column != "":
		st.add("?.? IN (SELECT ?.? FROM ? AS ? WHERE ", bun.Ident(from), bun.Ident(h.Column), a, bun.Ident(h.To.Key), bun.Ident(h.To.Name), a)
	case h.Back != "":
		st.add("?.? IN (SELECT ?.? FROM ? AS ? WHERE ?.? IS NOT NULL AND ", bun.Ident(from), bun.Ident(t.Key),
			a, bun.Ident(h.Back), bun.Ident(h.To.Name), a, a, bun.Ident(h.Back))
	default:
		j := pathAlias("j", depth)
		st.add("?.? IN (SELECT ?.? FROM ? AS ? WHERE ?.? IN (SELECT ?.? FROM ? AS ? WHERE ", bun.Ident(from), bun.Ident(t.Key),
			j, bun.Ident(h.Through.Column), bun.Ident(h.Through.Table), j,
			j, bun.Ident(h.Through.Target), a, bun.Ident(h.To.Key), bun.Ident(h.To.Name), a)
	}
	if err := p.rest(st, h, hops[1:], depth); err != nil {
		return err
	}
	st.add(")")
	if h.Through != nil {
		st.add(")")
	}
	return nil
}

// none appends "NOT EXISTS (a related row that matches)", correlated with
// the row of from by the first hop; the hops after it are lookups (any).
func (p pathWriter) none(st *sqlText, t *Table, from string, hops []Hop) error {
	h := hops[0]
	if err := p.check(t, h); err != nil {
		return err
	}
	a := pathAlias("p", 1)
	switch {
	case h.Column != "":
		st.add("NOT EXISTS (SELECT 1 FROM ? AS ? WHERE ?.? = ?.? AND ", bun.Ident(h.To.Name), a, a, bun.Ident(h.To.Key), bun.Ident(from), bun.Ident(h.Column))
	case h.Back != "":
		st.add("NOT EXISTS (SELECT 1 FROM ? AS ? WHERE ?.? = ?.? AND ", bun.Ident(h.To.Name), a, a, bun.Ident(h.Back), bun.Ident(from), bun.Ident(t.Key))
	default:
		j := pathAlias("j", 1)
		st.add("NOT EXISTS (SELECT 1 FROM ? AS ? WHERE ?.? = ?.? AND ?.? IN (SELECT ?.? FROM ? AS ? WHERE ",
			bun.Ident(h.Through.Table), j, j, bun.Ident(h.Through.Column), bun.Ident(from), bun.Ident(t.Key),
			j, bun.Ident(h.Through.Target), a, bun.Ident(h.To.Key), bun.Ident(h.To.Name), a)
	}
	if err := p.rest(st, h, hops[1:], 1); err != nil {
		return err
	}
	st.add(")")
	if h.Through != nil {
		st.add(")")
	}
	return nil
}

// rest appends what the related rows of hop h (aliased at depth) must hold:
// their organization, the hop's own conditions, then the next hop's lookup
// or, at the path's end, the condition itself. Columns are written bare:
// inside the lookup they name the related table's own.
func (p pathWriter) rest(st *sqlText, h Hop, hops []Hop, depth int) error {
	sep := ""
	if h.To.Scoped {
		st.add("?.? = ?", pathAlias("p", depth), bun.Ident(orgColumn), p.org)
		sep = " AND "
	}
	for _, c := range h.Where {
		st.add(sep)
		if c.Via != nil || len(c.Path) > 0 {
			return fmt.Errorf("a hop's own condition tests a column of %s", h.To.Name)
		}
		if err := p.s.cond(st, h.To, c); err != nil {
			return err
		}
		sep = " AND "
	}
	st.add(sep)
	if len(hops) > 0 {
		return p.any(st, h.To, fmt.Sprintf("p%d", depth), hops, depth+1)
	}
	if err := p.s.cond(st, h.To, p.end); err != nil {
		return fmt.Errorf("%s: %w", h.To.Name, err)
	}
	return nil
}

// check makes sure a hop from t names columns the tables have: names
// reach SQL only from the tables' declarations.
func (p pathWriter) check(t *Table, h Hop) error {
	if h.To == nil {
		return fmt.Errorf("a hop from %s without a table", t.Name)
	}
	set := 0
	if h.Column != "" {
		set++
		if _, ok := t.Columns[h.Column]; !ok {
			return fmt.Errorf("no column %q in %s", h.Column, t.Name)
		}
	}
	if h.Back != "" {
		set++
		if _, ok := h.To.Columns[h.Back]; !ok {
			return fmt.Errorf("no column %q in %s", h.Back, h.To.Name)
		}
	}
	if h.Through != nil {
		set++
		if _, _, err := p.s.viaKinds(h.Through); err != nil {
			return err
		}
	}
	if set != 1 {
		return fmt.Errorf("a hop from %s to %s names %d links (one of Column, Back, Through)", t.Name, h.To.Name, set)
	}
	return nil
}

// pathOrder appends the value a to-one path reads for the row of t, one
// lookup per hop, NULL when a relationship on the way is empty:
// (SELECT (SELECT p2.x FROM T2 AS p2 WHERE p2.key = p1.fk2) FROM T1 AS p1
// WHERE p1.key = t.fk1).
func (s *Store) pathOrder(st *sqlText, t *Table, o Order) error {
	if len(o.Path) > maxHops {
		return fmt.Errorf("storage: %s: a sort path of %d relationships (at most %d)", t.Name, len(o.Path), maxHops)
	}
	var closing sqlText // each lookup's FROM and WHERE, the innermost first
	closers := make([]sqlText, len(o.Path))
	from, cur := t.Name, t
	for i, h := range o.Path {
		if h.Column == "" || h.Back != "" || h.Through != nil || h.To == nil {
			return fmt.Errorf("storage: %s: a sort path follows to-one relationships only", t.Name)
		}
		if _, ok := cur.Columns[h.Column]; !ok {
			return fmt.Errorf("storage: %s: no column %q in %s", t.Name, h.Column, cur.Name)
		}
		a := pathAlias("p", i+1)
		closers[i].add(" FROM ? AS ? WHERE ?.? = ?.?)", bun.Ident(h.To.Name), a, a, bun.Ident(h.To.Key), bun.Ident(from), bun.Ident(h.Column))
		from, cur = fmt.Sprintf("p%d", i+1), h.To
	}
	if _, ok := cur.Columns[o.Column]; !ok {
		return fmt.Errorf("storage: %s: cannot sort by unknown column %q of %s", t.Name, o.Column, cur.Name)
	}
	for range o.Path {
		st.add("(SELECT ")
	}
	st.add("?.?", bun.Ident(from), bun.Ident(o.Column))
	for i := len(closers) - 1; i >= 0; i-- {
		closing.add(closers[i].String(), closers[i].args...)
	}
	st.add(closing.String(), closing.args...)
	return nil
}
