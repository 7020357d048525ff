package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strings"

	"modernc.org/sqlite"

	"github.com/entityapi/entityapi/storage/dialect"
)

// The note triggers record a single write's change event in the write's own
// statement (why, and how the store arms them, is told at Arm below): every
// connection of the pool gets, for each table, three TEMP triggers (after
// insert, update and delete of a row) that insert the event of the row they
// fire for when entityapi_noting says a note is armed for it; the event's
// other fields come from entityapi_note. TEMP: they live on each connection,
// not in the file, so other programs that open it are not bound to functions
// only this process has.

// installTriggers creates, on conn, the note triggers of every table of n
// that exists in the database, when the events table exists (before the
// migrations, a connection gets none; the store's Migrate renews the
// connections).
func installTriggers(ctx context.Context, conn dialect.Conn, n *dialect.Notes) error {
	if n == nil {
		return nil
	}
	rows, err := conn.QueryContext(ctx, "SELECT name FROM sqlite_master WHERE type = 'table'", nil)
	if err != nil {
		return fmt.Errorf("storage: note triggers: %w", err)
	}
	present := map[string]bool{}
	dest := make([]driver.Value, 1)
	for {
		if err := rows.Next(dest); err == io.EOF {
			break
		} else if err != nil {
			rows.Close()
			return fmt.Errorf("storage: note triggers: %w", err)
		}
		if name, ok := dest[0].(string); ok {
			present[name] = true
		}
	}
	rows.Close()
	var b strings.Builder
	if n.Audit != nil && present[dialect.AuditsTable] {
		for _, t := range n.Audit.Tables {
			if present[t.Table] {
				writeAuditTriggers(&b, t, !n.InsertsUnaudited)
			}
		}
		for _, j := range n.Audit.Joins {
			if present[j.Table] {
				writeJoinAuditTriggers(&b, j)
			}
		}
	}
	if !present[n.Events] {
		return exec(ctx, conn, b.String())
	}
	for _, t := range n.Tables {
		// The events table gets none: an event is no record's change, and
		// only the store writes events (the triggers here, RecordEvents,
		// a batch chunk's INSERT ... SELECT) and deletes old ones. A
		// trigger fires for every row written, armed or not: a batch's
		// events would pay one for each.
		if present[t.Name] && t.Name != n.Events {
			writeTriggers(&b, n, t)
		}
	}
	return exec(ctx, conn, b.String())
}

// exec runs the trigger texts of text on conn ("": nothing).
func exec(ctx context.Context, conn dialect.Conn, text string) error {
	if text == "" {
		return nil
	}
	if _, err := conn.ExecContext(ctx, text, nil); err != nil {
		return fmt.Errorf("storage: note triggers: %w", err)
	}
	return nil
}

// writeTriggers appends the three note triggers of t: each inserts the
// event of the row it fires for, its key and version from the row, its
// action from the trigger, the rest (n.Fields) from the armed note.
func writeTriggers(b *strings.Builder, n *dialect.Notes, t dialect.NoteTable) {
	cols := []string{"resource_id", "action", "version"}
	for _, f := range n.Fields {
		cols = append(cols, quoteIdent(f))
	}
	for _, on := range []struct{ event, row, action string }{
		{"INSERT", "NEW", n.Actions[0]},
		{"UPDATE", "NEW", n.Actions[1]},
		{"DELETE", "OLD", n.Actions[2]},
	} {
		rowKey := fmt.Sprintf("CAST(%s.%s AS TEXT)", on.row, quoteIdent(t.Key))
		key := rowKey // an update or a delete is for the noted row
		if on.event == "INSERT" {
			key = "NULL" // a new row's key may be the database's
		}
		version := "NULL"
		if t.Version != "" {
			version = on.row + "." + quoteIdent(t.Version)
		}
		values := []string{rowKey, sqlString(on.action), version}
		for i := range n.Fields {
			values = append(values, fmt.Sprintf("entityapi_note(%d)", i))
		}
		fmt.Fprintf(b, "CREATE TEMP TRIGGER IF NOT EXISTS %s AFTER %s ON main.%s FOR EACH ROW WHEN entityapi_noting(%s, %s) "+
			"BEGIN INSERT INTO %s (%s) VALUES (%s); END;\n",
			quoteIdent("entityapi_note_"+strings.ToLower(on.event)+"_"+t.Name), on.event, quoteIdent(t.Name),
			sqlString(t.Name), key, n.Events, strings.Join(cols, ", "), strings.Join(values, ", "))
	}
}

// quoteIdent quotes a table or column name of the models for the trigger
// texts (they come from models.go, never from a request).
func quoteIdent(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// sqlString is s as an SQL string literal.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// A write of one record and its change event go in one statement on SQLite,
// through the note triggers (above): SQLite has no writes in WITH, and
// BEGIN, the write, the event's INSERT and COMMIT cost about twice the write
// alone (each statement is a trip through the driver, and all of them hold
// the single write slot). The store arms the note of the write about to run
// (Arm); the triggers read it through two SQL functions registered on the
// pool's own driver, entityapi_noting (is a note armed for this table and
// row?) and entityapi_note (its fields), which therefore only this process
// has.

var _ dialect.Armer = (*DB)(nil)

// Arm makes n the note of the next write.
func (d *DB) Arm(n *dialect.ArmedNote) { d.armed.Store(n) }

// Disarm takes the armed note away and tells whether a trigger recorded it.
func (d *DB) Disarm() (met bool) {
	n := d.armed.Swap(nil)
	return n != nil && n.Met.Load() == 1
}

// registerNoteFunctions registers entityapi_noting and entityapi_note on drv,
// reading d's armed note.
func (d *DB) registerNoteFunctions(drv *sqlite.Driver) {
	drv.MustRegisterScalarFunction("entityapi_noting", 2, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		return d.noting(args)
	})
	drv.MustRegisterScalarFunction("entityapi_note", 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		return d.note(args)
	})
}

// noting is entityapi_noting(table, key): 1 when the armed note is for that
// table and row and not recorded yet (it then is), else 0.
func (d *DB) noting(args []driver.Value) (driver.Value, error) {
	n := d.armed.Load()
	if n == nil || args[0] != n.Table {
		return int64(0), nil
	}
	// A create's trigger gives no key (the row's may be new); an update's
	// or a delete's must be for the noted row, not one a cascade reaches.
	if key, given := args[1].(string); given && n.Key != "" && key != n.Key {
		return int64(0), nil
	}
	if !n.Met.CompareAndSwap(0, 1) {
		return int64(0), nil // one event per noted statement
	}
	return int64(1), nil
}

// note is entityapi_note(i): the armed note's field i.
func (d *DB) note(args []driver.Value) (driver.Value, error) {
	n := d.armed.Load()
	i, _ := args[0].(int64)
	if n == nil || i < 0 || int(i) >= len(n.Fields) {
		return nil, errors.New("entityapi_note: no change event is armed")
	}
	return n.Fields[i], nil
}
