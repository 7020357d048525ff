package storage

import (
	"context"
	"fmt"
	"strings"

	"github.com/uptrace/bun"
)

// insertChunk is the most rows per INSERT statement: one round trip per 500
// rows. Each value is a bound parameter, and a statement holds at most
// maxParams of them (SQLite allows 32,766, PostgreSQL 65,535), so wide rows
// get fewer per statement.
const (
	insertChunk = 500
	maxParams   = 32000
)

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
func (c *Conn) InsertMany(ctx context.Context, t *Table, org int64, rows []Row) ([]any, error) {
	if len(rows) == 0 {
		return nil, nil
	}
	ts := now()
	cols := make([][]string, len(rows))
	vals := make([][]any, len(rows))
	for i, row := range rows {
		var err error
		if cols[i], vals[i], err = insertValues(t, org, row, ts); err != nil {
			return nil, fmt.Errorf("storage: insert %s: row %d: %w", t.Name, i, err)
		}
	}
	keys := make([]any, len(rows))
	err := c.atomic(ctx, func(c *Conn) error {
		if t.AutoKey {
			ids, err := c.reserveKeys(ctx, t, len(rows))
			if err != nil {
				return err
			}
			for i, id := range ids {
				keys[i] = id
				cols[i] = append([]string{t.Key}, cols[i]...)
				vals[i] = append([]any{id}, vals[i]...)
			}
		} else {
			for i := range rows {
				keys[i] = vals[i][indexOf(cols[i], t.Key)]
			}
		}
		// Rows that set different columns cannot share a VALUES list (SQLite
		// has no DEFAULT there), so each column set gets its own statements.
		for _, group := range groupByColumns(cols) {
			if c.canCopy(t, cols[group[0]], len(group)) {
				rows := make([][]any, len(group))
				for j, i := range group {
					rows[j] = vals[i]
				}
				if err := c.copyRows(ctx, t.Name, cols[group[0]], rows); err != nil {
					return err
				}
				continue
			}
			per := min(insertChunk, max(1, maxParams/len(cols[group[0]])))
			for start := 0; start < len(group); start += per {
				chunk := group[start:min(start+per, len(group))]
				var st sqlText
				st.add("INSERT INTO ? (", bun.Ident(t.Name))
				st.idents(cols[chunk[0]])
				st.add(") VALUES ")
				for j, i := range chunk {
					if j > 0 {
						st.add(", ")
					}
					st.tuple(vals[i])
				}
				if _, err := c.exec(ctx, &st); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, c.s.mapError("insert", t.Name, err)
	}
	return keys, nil
}

// groupByColumns returns the row indexes grouped by column list, groups in
// order of first appearance and indexes ascending.
func groupByColumns(cols [][]string) [][]int {
	pos := map[string]int{}
	var groups [][]int
	for i, cs := range cols {
		sig := strings.Join(cs, ",")
		g, ok := pos[sig]
		if !ok {
			g = len(groups)
			pos[sig] = g
			groups = append(groups, nil)
		}
		groups[g] = append(groups[g], i)
	}
	return groups
}

// reserveKeys returns n keys of t that no row has or will get from the
// database (see InsertMany). c is in a transaction.
func (c *Conn) reserveKeys(ctx context.Context, t *Table, n int) ([]int64, error) {
	if !c.s.sqlite() {
		ids := make([]int64, 0, n)
		var st sqlText
		st.add("SELECT nextval(pg_get_serial_sequence(?, ?)) FROM generate_series(1, ?::integer)", t.Name, t.Key, n)
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
	st.add("SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = ?), 0), coalesce((SELECT max(?) FROM ?), 0))",
		t.Name, bun.Ident(t.Key), bun.Ident(t.Name))
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
