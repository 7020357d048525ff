package storage

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"

	"github.com/uptrace/bun"
)

// insertChunk is the most rows per INSERT statement: one round trip per 500
// rows (where the dialect has LongInserts, the unit of longer ones:
// insertRuns). Each value is a bound parameter, and a statement holds at
// most MaxParams of them, so wide rows get fewer per statement.
const insertChunk = 500

// MaxParams is the most bound parameters a statement of the store's holds,
// on either database (SQLite allows 32,766, PostgreSQL 65,535): a writer of
// many rows splits its statements by it (insertRuns, jobs.StageChunks).
const MaxParams = 32000

// InsertMany adds rows to t in the organization, all or none, with
// multi-row INSERTs (COPY for large groups on PostgreSQL, copy.go), and
// returns their keys in the order of rows.
//
// Keys of AutoKey tables are reserved before the insert and written
// explicitly, so that key i belongs to row i by construction rather than by
// the order in which a database happens to return RETURNING rows (which
// neither database promises): PostgreSQL hands out n values of the key's
// identity sequence (nextval, never reused, safe under concurrency); SQLite
// takes the next n values after the table's AUTOINCREMENT counter and largest
// key while this transaction holds the database's only write lock
// (BEGIN IMMEDIATE), and SQLite advances the counter past explicit keys.
//
// On the bulk connection (bulkconn.go) the rows' audit rows follow them,
// with one INSERT ... SELECT over the run of keys (auditInserts).
//
// On a Conn from Noting, every row also gets the note as its change event
// (its key the row's), in the same transaction, after the rows: on SQLite
// one INSERT ... SELECT over the run of keys just reserved
// (recordRunEvents), on PostgreSQL RecordEvents (COPY for many).
func (c *Conn) InsertMany(ctx context.Context, t *Table, org int64, rows []Row) ([]any, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	ts := now()
	// The timestamps every row gets are converted once, to the form the
	// driver is given (see Store.param), not once per row and column.
	tsArg, err := toSQL(KindTime, ts, true)
	if err != nil {
		return nil, err
	}
	tsArg = c.s.param(tsArg)
	lead := 0 // a slot for the key at the head of each row's values
	if t.AutoKey {
		lead = 1
	}
	// Rows that set the same columns (nearly always all of them) share
	// one column list.
	cols := make([][]string, len(rows))
	vals := make([][]any, len(rows))
	var buf []string
	for i, row := range rows {
		var err error
		v := make([]any, lead, lead+len(row)+3)
		if buf, vals[i], err = appendInsertValues(buf[:0], v, t, org, row, ts, tsArg); err != nil {
			return nil, fmt.Errorf("storage: insert %s: row %d: %w", t.Name, i, err)
		}
		if i > 0 && slices.Equal(buf, cols[i-1]) {
			cols[i] = cols[i-1]
			continue
		}
		cols[i], buf = buf, nil
	}
	keys := make([]any, len(rows))
	err = c.atomic(ctx, func(c *Conn) error {
		if t.AutoKey {
			ids, err := c.reserveKeys(ctx, t, len(rows))
			if err != nil {
				return err
			}
			for i, id := range ids {
				keys[i] = id
				vals[i][0] = keys[i]
			}
		} else {
			for i := range rows {
				keys[i] = vals[i][indexOf(cols[i], t.Key)]
			}
		}
		if err := c.insertGroups(ctx, t, cols, vals); err != nil {
			return err
		}
		first, last := keys[0], keys[len(keys)-1]
		run := t.AutoKey && last.(int64)-first.(int64) == int64(len(keys)-1)
		if err := c.auditInserts(ctx, t, keys, run); err != nil {
			return err
		}
		if c.note == nil {
			return nil
		}
		if c.s.f.OneWriter && run {
			return c.recordRunEvents(ctx, t, org, first.(int64), last.(int64))
		}
		events := make([]Event, len(keys))
		for i, k := range keys {
			events[i] = *c.note
			events[i].Key = k
		}
		return c.RecordEvents(ctx, events)
	})
	if err != nil {
		return nil, c.s.mapError("insert", t.Name, err)
	}
	return keys, nil
}

// insertGroups sends rows whose columns are cols[i] and values vals[i].
func (c *Conn) insertGroups(ctx context.Context, t *Table, cols [][]string, vals [][]any) error {
	// Rows that set different columns cannot share a VALUES list (SQLite
	// has no DEFAULT there), so each column set gets its own statements.
	for _, group := range groupByColumns(cols) {
		names := cols[group[0]]
		if t.AutoKey {
			names = append([]string{t.Key}, names...)
		}
		if c.canCopy(t, names, len(group)) {
			rows := make([][]any, len(group))
			for j, i := range group {
				rows[j] = vals[i]
			}
			if err := c.copyRows(ctx, t.Name, names, rows); err != nil {
				return err
			}
			continue
		}
		for start, per := range c.s.insertRuns(len(group), len(names)) {
			chunk := group[start : start+per]
			text, params := c.s.insertText(t.Name, names, len(chunk))
			for _, i := range chunk {
				for _, v := range vals[i] {
					params = append(params, c.s.param(v))
				}
			}
			if _, err := c.execBound(ctx, text, params); err != nil {
				return err
			}
		}
	}
	return nil
}

// insertRuns yields the first row and the row count of each multi-row
// INSERT that writes n rows of width values each. Each holds at most
// MaxParams values, and at most insertChunk rows unless the dialect has
// LongInserts. With LongInserts the statements are whole multiples of
// insertChunk rows, then one of what is left: a batch's run of 3,000
// records goes in one, and the lengths, each a text the store keeps
// prepared, stay few (a run with a refused record: 2,500 and 499).
func (s *Store) insertRuns(n, width int) iter.Seq2[int, int] {
	most := max(1, MaxParams/width)
	unit := min(insertChunk, most)
	if s.f.LongInserts {
		most -= most % unit
	} else {
		most = unit
	}
	return func(yield func(int, int) bool) {
		for start := 0; start < n; {
			left := n - start
			rows := min(most, left-left%unit)
			if rows == 0 {
				rows = left
			}
			if !yield(start, rows) {
				return
			}
			start += rows
		}
	}
}

// insertText is the multi-row INSERT of n rows of the columns names into
// table, with the database's parameter marks (the text bind would make of
// it), and room for its parameters.
func (s *Store) insertText(table string, names []string, n int) (string, []any) {
	var b strings.Builder
	b.Grow(len(table) + 32 + 12*len(names) + n*len(names)*6)
	b.WriteString("INSERT INTO ")
	writeIdent(&b, table)
	b.WriteString(" (")
	for i, name := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		writeIdent(&b, name)
	}
	b.WriteString(") VALUES ")
	mark := 0
	for r := range n {
		if r > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('(')
		for i := range names {
			if i > 0 {
				b.WriteString(", ")
			}
			mark++
			if s.f.NumberedMarks {
				b.WriteByte('$')
				b.WriteString(strconv.Itoa(mark))
			} else {
				b.WriteByte('?')
			}
		}
		b.WriteByte(')')
	}
	return b.String(), make([]any, 0, n*len(names))
}

// groupByColumns returns the row indexes grouped by column list, groups in
// order of first appearance and indexes ascending. Rows that share a list
// (InsertMany) are told apart by it without comparing names.
func groupByColumns(cols [][]string) [][]int {
	pos := map[string]int{}
	var groups [][]int
	g := -1
	for i, cs := range cols {
		if i == 0 || !sameList(cs, cols[i-1]) {
			sig := strings.Join(cs, ",")
			var ok bool
			if g, ok = pos[sig]; !ok {
				g = len(groups)
				pos[sig] = g
				groups = append(groups, nil)
			}
		}
		groups[g] = append(groups[g], i)
	}
	return groups
}

// sameList tells whether a and b are the same list (one slice, or equal).
func sameList(a, b []string) bool {
	if len(a) > 0 && len(b) > 0 && &a[0] == &b[0] && len(a) == len(b) {
		return true
	}
	return slices.Equal(a, b)
}

// reserveKeys returns n keys of t that no row has or will get from the
// database (see InsertMany). c is in a transaction.
func (c *Conn) reserveKeys(ctx context.Context, t *Table, n int) ([]int64, error) {
	if c.s.f.NextKeys != "" {
		ids := make([]int64, 0, n)
		var st sqlText
		st.add(c.s.f.NextKeys, t.Name, t.Key, n)
		rows, err := c.query(ctx, &st)
		if err != nil {
			return nil, fmt.Errorf("reserve keys: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return nil, fmt.Errorf("reserve keys: %w", err)
			}
			ids = append(ids, id)
		}
		if err := rows.Err(); err != nil {
			return nil, fmt.Errorf("reserve keys: %w", err)
		}
		if len(ids) != n {
			return nil, fmt.Errorf("reserve keys: got %d of %d", len(ids), n)
		}
		return ids, nil
	}
	var last int64
	var st sqlText
	st.add(c.s.f.LastKey, t.Name, bun.Ident(t.Key), bun.Ident(t.Name))
	err := c.queryRow(ctx, &st, &last)
	if err != nil {
		return nil, fmt.Errorf("reserve keys: %w", err)
	}
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = last + 1 + int64(i)
	}
	return ids, nil
}
