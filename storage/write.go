package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"
)

// now is the time written to created_at and updated_at: UTC, whole seconds,
// as every stored time is.
func now() time.Time { return time.Now().UTC().Truncate(time.Second) }

// Insert adds one row to t in the organization and returns its key: the
// generated int64 for tables with AutoKey (the row must not carry one), else
// the row's key value. created_at and updated_at default to now.
func (c *Conn) Insert(ctx context.Context, t *Table, org int64, row Row) (any, error) {
	st, key, err := insertStatement(t, org, row)
	if err != nil {
		return nil, err
	}
	err = c.atomic(ctx, func(c *Conn) error {
		if !t.AutoKey {
			if _, err := c.exec(ctx, st); err != nil {
				return err
			}
			return c.auditInserts(ctx, t, []any{key}, false)
		}
		st.add(" RETURNING ?", bun.Ident(t.Key))
		var id int64
		if err := c.queryRow(ctx, st, &id); err != nil {
			return err
		}
		key = id
		return c.auditInserts(ctx, t, []any{key}, false)
	})
	if err != nil {
		return nil, c.s.mapError("insert", t.Name, err)
	}
	return key, nil
}

// InsertRow is Insert answering the row as stored, every column Find reads,
// read back by the INSERT itself (RETURNING): a create that shows what it
// wrote costs one statement, not an INSERT and a SELECT.
func (c *Conn) InsertRow(ctx context.Context, t *Table, org int64, row Row) (Row, error) {
	st, _, err := insertStatement(t, org, row)
	if err != nil {
		return nil, err
	}
	c.s.returningAll(st, t)
	var stored Row
	// nil: a create leaves no notes, its insert trigger writes its words
	// into the index itself (searchpending.go).
	err = c.alone(ctx, nil, func(ctx context.Context, c *Conn) error {
		if stored, err = c.returning(ctx, t, st); err != nil {
			return err
		}
		return c.auditInserts(ctx, t, []any{stored[t.Key]}, false) // on the bulk connection only
	})
	if err != nil {
		return nil, c.s.mapError("insert", t.Name, err)
	}
	return stored, nil
}

// alone runs fn, which sends one write statement: in c's transaction when c
// is in one, else as a transaction of its own (one statement is atomic by
// itself). On SQLite it goes through the write queue (writegroup.go): it
// commits alone, as a statement in autocommit, or together with the single
// writes queued beside it. A single write then costs one round trip, not
// BEGIN, the statement and COMMIT. fn may run more than once (a group
// rolled back runs its writes again one by one), with the ctx it is given:
// it must send the same statement each time.
//
// Outside a transaction the statement has committed when fn returns (its
// rows read): its fence is recorded then, for a read replica (replica.go),
// and so has the full-text index of noted, the table whose triggers may
// note what the write changed (searchpending.go; nil for none).
func (c *Conn) alone(ctx context.Context, noted *Table, fn func(ctx context.Context, c *Conn) error) error {
	var err error
	if c.tx != nil || c.s.writeSlot == nil {
		err = c.armed(func(c *Conn) error { return fn(ctx, c) })
	} else {
		table := ""
		if noted != nil {
			table = noted.Name
		}
		err = c.queued(ctx, table, fn)
	}
	if err == nil && c.tx == nil {
		c.s.noteCommit(ctx)
	}
	return err
}

// insertStatement is the INSERT of one row, and the row's key when the
// client gives it (nil for AutoKey tables).
func insertStatement(t *Table, org int64, row Row) (st *sqlText, key any, err error) {
	cols, vals, err := insertValues(t, org, row, now())
	if err != nil {
		return nil, nil, fmt.Errorf("storage: insert %s: %w", t.Name, err)
	}
	st = &sqlText{}
	st.add("INSERT INTO ? (", bun.Ident(t.Name))
	st.idents(cols)
	st.add(") VALUES ")
	st.tuple(vals)
	if !t.AutoKey {
		key = vals[indexOf(cols, t.Key)]
	}
	return st, key, nil
}

// returningAll ends st, a write of one row of t, with RETURNING every
// column of t.Order.
func (s *Store) returningAll(st *sqlText, t *Table) {
	st.add(" RETURNING ")
	s.readColumns(st, t, t.Order)
}

// returning runs st, a write of one row ended by returningAll, and reads
// that row as Find would; ErrNotFound when the write touched none.
func (c *Conn) returning(ctx context.Context, t *Table, st *sqlText) (Row, error) {
	rows, err := c.query(ctx, c.noted(ctx, st, t))
	if err != nil {
		return nil, err
	}
	found, err := scanRows(rows, t, t.Order, 1)
	if err != nil {
		return nil, err
	}
	if len(found) == 0 {
		return nil, ErrNotFound
	}
	return found[0], nil
}

// insertValues lists the columns and converted values of one new row:
// organization_id for scoped tables, the row's columns in table order, and
// created_at/updated_at set to ts unless given (nil counts as not given).
func insertValues(t *Table, org int64, row Row, ts time.Time) (cols []string, vals []any, err error) {
	return appendInsertValues(nil, nil, t, org, row, ts, nil)
}

// appendInsertValues is insertValues appending to cols and vals (InsertMany
// passes a slot for the key in vals, and buffers); tsArg, when not nil, is
// ts already converted, for the timestamps set to ts.
func appendInsertValues(cols []string, vals []any, t *Table, org int64, row Row, ts time.Time, tsArg any) ([]string, []any, error) {
	for name := range row {
		if _, ok := t.Columns[name]; !ok {
			return nil, nil, fmt.Errorf("no column %q", name)
		}
	}
	if t.Scoped {
		cols, vals = append(cols, orgColumn), append(vals, org)
	}
	for _, name := range t.Order {
		v, given := row[name]
		switch {
		case name == t.Key && t.AutoKey:
			if given && v != nil {
				return nil, nil, fmt.Errorf("%s is generated by the database", name)
			}
			continue
		case name == VersionColumn && t.Versioned:
			if given {
				return nil, nil, fmt.Errorf("%s is kept by the database", name)
			}
			continue
		case (!given || v == nil) && (name == createdColumn || name == updatedColumn) && t.Columns[name] == KindTime:
			if tsArg != nil {
				cols, vals = append(cols, name), append(vals, tsArg)
				continue
			}
			v = ts
		case !given:
			continue
		}
		a, err := toSQL(t.Columns[name], v, true)
		if err != nil {
			return nil, nil, fmt.Errorf("column %s: %w", name, err)
		}
		cols, vals = append(cols, name), append(vals, a)
	}
	if !t.AutoKey && indexOf(cols, t.Key) < 0 {
		return nil, nil, fmt.Errorf("key %s is missing", t.Key)
	}
	return cols, vals, nil
}

// tuple appends "(?, ?, ...)" for vals.
func (q *sqlText) tuple(vals []any) {
	q.add("(")
	for i, v := range vals {
		if i > 0 {
			q.add(", ")
		}
		q.add("?", v)
	}
	q.add(")")
}

func indexOf(cols []string, name string) int {
	for i, c := range cols {
		if c == name {
			return i
		}
	}
	return -1
}

// Update sets the given columns of the row with key (plus updated_at, unless
// given) and returns ErrNotFound when no row of the organization has that key.
func (c *Conn) Update(ctx context.Context, t *Table, org int64, key any, values Row) error {
	st, err := updateStatement(t, org, key, values)
	if err != nil {
		return err
	}
	if st == nil {
		_, err := c.Get(ctx, t, org, key)
		return err
	}
	return c.execOne(ctx, "update", t, st)
}

// UpdateRow is Update answering the row as updated, every column Find reads,
// read back by the UPDATE itself (RETURNING).
func (c *Conn) UpdateRow(ctx context.Context, t *Table, org int64, key any, values Row) (Row, error) {
	st, err := updateStatement(t, org, key, values)
	if err != nil {
		return nil, err
	}
	if st == nil {
		if err := c.noteAlone(ctx); err != nil {
			return nil, err
		}
		return c.Get(ctx, t, org, key)
	}
	c.s.returningAll(st, t)
	var stored Row
	err = c.alone(ctx, t, func(ctx context.Context, c *Conn) error {
		stored, err = c.returning(ctx, t, st)
		return err
	})
	if err != nil {
		return nil, c.s.mapError("update", t.Name, err)
	}
	return stored, nil
}

// updateStatement is the UPDATE of the row with key, or nil when it would
// set no column (a table without updated_at, and no values).
func updateStatement(t *Table, org int64, key any, values Row) (*sqlText, error) {
	keyArg, err := toSQL(t.Columns[t.Key], key, false)
	if err != nil {
		return nil, fmt.Errorf("storage: update %s: key: %w", t.Name, err)
	}
	st := &sqlText{}
	st.add("UPDATE ? SET ", bun.Ident(t.Name))
	for name := range values {
		if _, ok := t.Columns[name]; !ok || (name == t.Key && t.AutoKey) || (name == VersionColumn && t.Versioned) {
			return nil, fmt.Errorf("storage: update %s: column %q cannot be set", t.Name, name)
		}
	}
	// In table order, not the map's: one set of columns is one statement
	// text, prepared once per connection.
	n := 0
	for _, name := range t.Order {
		v, given := values[name]
		if !given {
			continue
		}
		a, err := toSQL(t.Columns[name], v, true)
		if err != nil {
			return nil, fmt.Errorf("storage: update %s: column %s: %w", t.Name, name, err)
		}
		if n > 0 {
			st.add(", ")
		}
		st.add("? = ?", bun.Ident(name), a)
		n++
	}
	if _, given := values[updatedColumn]; !given && t.Columns[updatedColumn] == KindTime {
		if n > 0 {
			st.add(", ")
		}
		st.add("? = ?", bun.Ident(updatedColumn), now())
		n++
	}
	if n == 0 {
		return nil, nil
	}
	if t.Versioned {
		st.add(", ")
		bumpVersion(st)
	}
	keyWhere(st, t, org, keyArg)
	return st, nil
}

// Delete removes the row with key, or returns ErrNotFound.
func (c *Conn) Delete(ctx context.Context, t *Table, org int64, key any) error {
	keyArg, err := toSQL(t.Columns[t.Key], key, false)
	if err != nil {
		return fmt.Errorf("storage: delete %s: key: %w", t.Name, err)
	}
	var st sqlText
	st.add("DELETE FROM ?", bun.Ident(t.Name))
	keyWhere(&st, t, org, keyArg)
	if c.note != nil {
		// One statement, with its event in it: atomic by itself.
		err := c.alone(ctx, t, func(ctx context.Context, c *Conn) error {
			res, err := c.exec(ctx, c.notedDelete(ctx, &st, t)) // under the write slot
			if err != nil {
				return err
			}
			return affected(res, 1)
		})
		return c.s.mapError("delete", t.Name, err)
	}
	return c.execOne(ctx, "delete", t, &st)
}

// keyWhere appends the WHERE clause that selects one row by key.
func keyWhere(st *sqlText, t *Table, org int64, key any) {
	st.add(" WHERE ? = ?", bun.Ident(t.Key), key)
	if t.Scoped {
		st.add(" AND ? = ?", bun.Ident(orgColumn), org)
	}
}

// execOne runs a write that must touch a row, mapping "none" to ErrNotFound.
func (c *Conn) execOne(ctx context.Context, op string, t *Table, st *sqlText) error {
	err := c.atomic(ctx, func(c *Conn) error {
		res, err := c.exec(ctx, st)
		if err != nil {
			return err
		}
		return affected(res, 1)
	})
	return c.s.mapError(op, t.Name, err)
}

// affected checks a write's row count: ErrNotFound below min.
func affected(res sql.Result, min int64) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n < min {
		return ErrNotFound
	}
	return nil
}

// DeleteWhere deletes the rows matching q's conditions, unless more than max
// match: then it returns ErrTooMany and deletes nothing. Counting and
// deleting happen in one transaction (the caller's, when c is in one). With
// note, each deleted row gets its change event in that transaction: note
// with the row's key and version (RecordEvents).
func (c *Conn) DeleteWhere(ctx context.Context, q Query, max int, note *Event) (deleted int, err error) {
	if q.Table == nil {
		return 0, fmt.Errorf("storage: delete: query without a table")
	}
	t := q.Table
	var st sqlText
	st.add("DELETE FROM ?", bun.Ident(t.Name))
	if err := c.s.where(&st, q); err != nil {
		return 0, err
	}
	err = c.atomic(ctx, func(c *Conn) error {
		n, err := c.deleteEvents(ctx, q, max, note)
		if err != nil {
			return err
		}
		if n > max {
			return ErrTooMany
		}
		if n == 0 {
			return nil
		}
		res, err := c.exec(ctx, &st)
		if err != nil {
			return err
		}
		got, err := res.RowsAffected()
		if err != nil {
			return err
		}
		if got > int64(max) { // rows added since the count: roll back
			return ErrTooMany
		}
		deleted = int(got)
		return nil
	})
	if err != nil {
		if errors.Is(err, ErrTooMany) {
			return 0, err
		}
		return 0, c.s.mapError("delete", t.Name, err)
	}
	return deleted, nil
}

// deleteEvents counts the rows of q, and when note is set and no more than
// max match, records the event of deleting each one (c is in a
// transaction): at most max+1 rows are read.
func (c *Conn) deleteEvents(ctx context.Context, q Query, max int, note *Event) (int, error) {
	if note == nil {
		return c.Count(ctx, q)
	}
	t := q.Table
	cols := []string{t.Key}
	if t.Versioned {
		cols = append(cols, VersionColumn)
	}
	q.Columns, q.Limit, q.Offset, q.OrderBy, q.Seek = cols, max+1, 0, []Order{{Column: t.Key}}, nil
	rows, err := c.Find(ctx, q)
	if err != nil || len(rows) > max {
		return len(rows), err
	}
	events := make([]Event, len(rows))
	for i, row := range rows {
		ev := *note
		ev.Table, ev.Key = t, row[t.Key]
		if v, ok := row[VersionColumn].(int64); ok {
			ev.Version = &v
		}
		events[i] = ev
	}
	return len(rows), c.RecordEvents(ctx, events)
}
