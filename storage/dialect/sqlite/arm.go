package sqlite

import (
	"database/sql/driver"
	"errors"

	"modernc.org/sqlite"

	"github.com/entityapi/entityapi/storage/dialect"
)

// A write of one record and its change event go in one statement on SQLite,
// through the note triggers (triggers.go): SQLite has no writes in WITH, and
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
