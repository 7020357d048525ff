package storage

import (
	"context"
	"fmt"

	"github.com/uptrace/bun"
)

// A GET of one record used to take two statements or more: the record, then
// the keys of each to-many relationship it shows (Linkage or Pairs with one
// owner). Each statement is a round trip on PostgreSQL, and on SQLite a read
// transaction of its own whose shared WAL lock costs two fcntl calls: for a
// country and its regions that was half of the request. GetMembers reads
// the record and those keys in one statement, each relationship's keys
// gathered into a JSON array by a scalar subquery (as groupedSelect does
// for a page of owners).

// Members names the keys a to-many relationship of one record holds, read
// with the record by GetMembers: the keys of Table's rows (of Org, when
// Table is Scoped) whose Column is the record's key; or, with Join set, the
// values of the join table's other column in its rows whose Column is the
// record's key.
type Members struct {
	Table  *Table
	Join   *JoinTable
	Org    int64
	Column string
}

// MemberPairs returns (member key, owner key) for the members m names of
// each of the owners keys: Pairs through a join table, Linkage otherwise.
func (c *Conn) MemberPairs(ctx context.Context, m Members, keys []any) ([][2]any, error) {
	if m.Join != nil {
		return c.Pairs(ctx, m.Join, m.Column, keys)
	}
	return c.Linkage(ctx, m.Table, m.Org, m.Column, keys)
}

// memberKind is the kind of the keys m reads, and whether m is valid.
func (m Members) memberKind() (Kind, bool) {
	if m.Join != nil {
		if _, ok := m.Join.kind(m.Column); !ok {
			return 0, false
		}
		return m.Join.kind(m.Join.other(m.Column))
	}
	if m.Table == nil {
		return 0, false
	}
	if _, ok := m.Table.filterKind(m.Column); !ok {
		return 0, false
	}
	return m.Table.filterKind(m.Table.Key)
}

// GetMembers is GetColumns that also reads, for each of members, the keys
// it names, in key order (as Linkage and Pairs order them): keys[i] are
// those of members[i]. A relationship whose keys are not integers or
// strings is read by a statement of its own.
func (c *Conn) GetMembers(ctx context.Context, t *Table, org int64, key any, cols []string, members []Members) (Row, [][]any, error) {
	q := Query{Table: t, Org: org, Limit: 1, Columns: cols, Where: []Cond{{Column: t.Key, Op: Eq, Values: []any{key}}}}
	selected, err := q.selected()
	if err != nil {
		return nil, nil, err
	}
	ms, err := c.s.planMembers(t, members)
	if err != nil {
		return nil, nil, err
	}
	var st sqlText
	st.add("SELECT ")
	c.s.readColumns(&st, t, selected)
	if err := c.s.addMembers(&st, ms, key); err != nil {
		return nil, nil, err
	}
	st.add(" FROM ?", bun.Ident(t.Name))
	if err := c.s.where(&st, q); err != nil {
		return nil, nil, err
	}
	st.add(" LIMIT 1")
	return c.readMembersRow(ctx, "get", t, &st, selected, ms, key)
}

// plannedMembers is a list of Members split by how their keys are read.
type plannedMembers struct {
	members       []Members
	kinds         []Kind
	inline, apart []int // indexes of members read by a subquery, and by a statement of their own
}

// planMembers checks members and splits them: keys that are integers or
// strings come back in the statement, others by Linkage or Pairs.
func (s *Store) planMembers(t *Table, members []Members) (*plannedMembers, error) {
	ms := &plannedMembers{members: members, kinds: make([]Kind, len(members))}
	for i, m := range members {
		k, ok := m.memberKind()
		if !ok {
			return nil, fmt.Errorf("storage: %s: members of %q in an undeclared table or column", t.Name, m.Column)
		}
		ms.kinds[i] = k
		if groupedKinds(k) {
			ms.inline = append(ms.inline, i)
		} else {
			ms.apart = append(ms.apart, i)
		}
	}
	return ms, nil
}

// addMembers appends ", <subquery>" for each inline member.
func (s *Store) addMembers(st *sqlText, ms *plannedMembers, key any) error {
	for _, i := range ms.inline {
		st.add(", ")
		if err := s.membersSubquery(st, ms.members[i], key); err != nil {
			return err
		}
	}
	return nil
}

// readMembersRow runs st, which reads the columns cols of one row of t and
// then the inline members' arrays, and returns the row (ErrNotFound for
// none) and every member's keys, reading the others apart.
func (c *Conn) readMembersRow(ctx context.Context, op string, t *Table, st *sqlText, cols []string, ms *plannedMembers, key any) (Row, [][]any, error) {
	rows, err := c.query(ctx, st)
	if err != nil {
		return nil, nil, c.s.mapError(op, t.Name, err)
	}
	row, arrays, err := scanMembersRow(rows, t, cols, len(ms.inline))
	if err != nil {
		return nil, nil, c.s.mapError(op, t.Name, err)
	}
	if row == nil {
		return nil, nil, ErrNotFound
	}
	keys := make([][]any, len(ms.members))
	for n, i := range ms.inline {
		list, err := appendKeys(nil, arrays[n], ms.kinds[i])
		if err != nil {
			return nil, nil, c.s.mapError(op, t.Name, fmt.Errorf("members by %s: %w", ms.members[i].Column, err))
		}
		if !c.s.f.OrderedKeysArray {
			sortKeyList(list, ms.kinds[i])
		}
		keys[i] = list
	}
	for _, i := range ms.apart {
		pairs, err := c.MemberPairs(ctx, ms.members[i], []any{key})
		if err != nil {
			return nil, nil, err
		}
		keys[i] = firsts(pairs)
	}
	return row, keys, nil
}

// UpdateRowMembers is UpdateRow that also answers, as GetMembers does, the
// keys each of members names, read by the UPDATE's own RETURNING: a PATCH
// answers the record and its to-many linkage with one statement.
func (c *Conn) UpdateRowMembers(ctx context.Context, t *Table, org int64, key any, values Row, members []Members) (Row, [][]any, error) {
	st, err := updateStatement(t, org, key, values)
	if err != nil {
		return nil, nil, err
	}
	if st == nil {
		if err := c.noteAlone(ctx); err != nil {
			return nil, nil, err
		}
		return c.GetMembers(ctx, t, org, key, nil, members)
	}
	ms, err := c.s.planMembers(t, members)
	if err != nil {
		return nil, nil, err
	}
	var (
		stored Row
		keys   [][]any
	)
	c.s.returningAll(st, t)
	if err := c.s.addMembers(st, ms, key); err != nil {
		return nil, nil, err
	}
	err = c.alone(ctx, t, func(ctx context.Context, c *Conn) error {
		stored, keys, err = c.readMembersRow(ctx, "update", t, c.noted(ctx, st, t), t.Order, ms, key) // errors mapped there
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return stored, keys, nil
}

// membersSubquery appends the scalar subquery that answers m's keys for
// the record with the given key as a JSON array ("[]" for none): in key
// order on PostgreSQL, in SQLite's order there (see groupedSelect).
func (s *Store) membersSubquery(st *sqlText, m Members, key any) error {
	table, member := "", ""
	q := Query{Table: m.Table, Org: m.Org, Where: []Cond{{Column: m.Column, Op: Eq, Values: []any{key}}}}
	if m.Join != nil {
		table, member = m.Join.Name, m.Join.other(m.Column)
	} else {
		table, member = m.Table.Name, m.Table.Key
	}
	// coalesce: PostgreSQL's json_agg of no rows is NULL, SQLite's "[]".
	st.add("(SELECT coalesce(")
	s.keysArray(st, member)
	st.add(", '[]') FROM ?", bun.Ident(table))
	if m.Join != nil {
		k, _ := m.Join.kind(m.Column)
		st.add(" WHERE ")
		if err := s.inList(st, bun.Ident(m.Column), k, []any{key}, false); err != nil {
			return fmt.Errorf("storage: members in %s: %w", table, err)
		}
	} else if err := s.where(st, q); err != nil {
		return err
	}
	st.add(")")
	return nil
}

// scanMembersRow reads the one row of GetMembers' statement, if any: the
// columns cols of t as scanRows does, then n JSON arrays of keys. It closes
// rows.
func scanMembersRow(rows rowSource, t *Table, cols []string, n int) (Row, []string, error) {
	defer rows.Close()
	kinds := make([]Kind, len(cols))
	raw := make([]any, len(cols))
	arrays := make([]string, n)
	dest := make([]any, len(cols)+n)
	for i, col := range cols {
		kinds[i], _ = t.filterKind(col)
		dest[i] = rows.target(kinds[i], &raw[i])
	}
	for i := range arrays {
		dest[len(cols)+i] = &arrays[i]
	}
	if !rows.Next() {
		return nil, nil, rows.Err()
	}
	if err := rows.Scan(dest...); err != nil {
		return nil, nil, err
	}
	r := make(Row, len(cols))
	for i, col := range cols {
		v, err := fromSQL(kinds[i], raw[i])
		if err != nil {
			return nil, nil, fmt.Errorf("column %s: %w", col, err)
		}
		r[col] = v
	}
	for rows.Next() { // LIMIT 1: none; drained so that Err reports the end
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	return r, arrays, nil
}

// firsts returns the first element of each pair.
func firsts(pairs [][2]any) []any {
	if len(pairs) == 0 {
		return nil
	}
	out := make([]any, len(pairs))
	for i, p := range pairs {
		out[i] = p[0]
	}
	return out
}
