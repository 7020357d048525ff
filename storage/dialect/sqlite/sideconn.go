package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"reflect"
	"sync"
)

// The side connection (sideDB: River's, on a SQLite file) queues for this
// process's write slot like every other writer here.
//
// SQLite lets one connection write at a time. The store's own writers wait
// for their turn in Go (storage's Store.writeSlot), woken the moment the slot is
// free. A connection that does not, finding the file locked, waits in
// SQLite's busy handler instead: it sleeps 1, 2, 5, 10, 15, 20, 25, 25, 25,
// 50, 50, 100 ms between tries, and tries only then. Beside a stream of
// batch transactions (each a few milliseconds, back to back) River fetching
// the next job slept there for tens of milliseconds at a time, while the
// worker that asked for the job idled: about a sixth of a 100,000-record
// batch's time on SQLite (BenchmarkBatchAccounts100k: 1.08 s, 0.91 s after).
//
// So every transaction and every statement outside one on the side
// connection first takes the write slot, as long as its context allows, and
// gives it back when the transaction ends or the statement's rows are
// closed. River's statements are few and short, reads among them (taking
// the slot for those costs a wait for at most the transaction under way).
// busy_timeout still covers writers of other processes.
//
// Nothing may hold the write slot while it waits for the side connection:
// River's inserts inside the store's transactions run on that transaction
// (InsertManyTx), not here.

// What database/sql asks of a connection, a statement and rows is all here,
// so that it never falls back to a path that skips the slot.
var (
	_ driver.Connector              = slotConnector{}
	_ driver.ConnBeginTx            = (*slotConn)(nil)
	_ driver.ConnPrepareContext     = (*slotConn)(nil)
	_ driver.ExecerContext          = (*slotConn)(nil)
	_ driver.QueryerContext         = (*slotConn)(nil)
	_ driver.Pinger                 = (*slotConn)(nil)
	_ driver.SessionResetter        = (*slotConn)(nil)
	_ driver.Validator              = (*slotConn)(nil)
	_ driver.StmtExecContext        = (*slotStmt)(nil)
	_ driver.StmtQueryContext       = (*slotStmt)(nil)
	_ driver.RowsColumnTypeScanType = (*slotRows)(nil)
)

// slotConnector opens side connections that take the write slot through
// acquire (the store's, dialect.Host.AcquireWrite).
type slotConnector struct {
	connector
	acquire func(ctx context.Context) (func(), error)
}

func (c slotConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	inner, ok := conn.(sideInner)
	if !ok {
		_ = conn.Close()
		return nil, errors.New("sqlite: side connection: the SQLite driver's connection lacks the context methods")
	}
	return &slotConn{inner: inner, acquire: c.acquire}, nil
}

// sideInner is what slotConn needs of the driver's connection (modernc's
// has all of it).
type sideInner interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
}

// slotConn is a side connection. database/sql uses a connection from one
// goroutine at a time, so its fields need no lock.
type slotConn struct {
	inner   sideInner
	acquire func(ctx context.Context) (func(), error)
	// tx is the transaction under way, which holds the slot; nil between
	// transactions, when each statement takes it for itself.
	tx *slotTx
	// held gives back the slot a statement outside a transaction took,
	// until its rows are wrapped (rows).
	held func()
}

func (c *slotConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *slotConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	st, err := c.inner.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	inner, ok := st.(sideStmt)
	if !ok {
		_ = st.Close()
		return nil, errors.New("sqlite: side connection: the SQLite driver's statement lacks the context methods")
	}
	return &slotStmt{inner: inner, c: c}, nil
}

func (c *slotConn) Close() error {
	if c.tx != nil {
		c.tx.end()
	}
	return c.inner.Close()
}

func (c *slotConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c *slotConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	release, err := c.acquire(ctx)
	if err != nil {
		return nil, err
	}
	tx, err := c.inner.BeginTx(ctx, opts)
	if err != nil {
		release()
		return nil, err
	}
	c.tx = &slotTx{inner: tx, c: c, release: release}
	return c.tx, nil
}

// outside runs one statement holding the slot: the transaction's, or its
// own outside one. run says whether it is done with the slot; a query is
// not (its rows are still to be read), and its rows are then wrapped to
// give the slot back on Close (rows).
func (c *slotConn) outside(ctx context.Context, run func() (done bool, err error)) error {
	if c.tx != nil {
		_, err := run()
		return err
	}
	release, err := c.acquire(ctx)
	if err != nil {
		return err
	}
	done, err := run()
	if err != nil || done {
		release()
		return err
	}
	c.held = release
	return nil
}

func (c *slotConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (res driver.Result, err error) {
	err = c.outside(ctx, func() (bool, error) {
		res, err = c.inner.ExecContext(ctx, query, args)
		return true, err
	})
	return res, err
}

func (c *slotConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	var rows driver.Rows
	err := c.outside(ctx, func() (bool, error) {
		var err error
		rows, err = c.inner.QueryContext(ctx, query, args)
		return false, err
	})
	if err != nil {
		return nil, err
	}
	return c.rows(rows), nil
}

// rows wraps the rows of a statement run outside a transaction, whose Close
// gives the slot back.
func (c *slotConn) rows(rows driver.Rows) driver.Rows {
	release := c.held
	c.held = nil
	if release == nil {
		return rows
	}
	return &slotRows{Rows: rows, release: sync.OnceFunc(release)}
}

func (c *slotConn) Ping(ctx context.Context) error {
	if p, ok := c.inner.(driver.Pinger); ok {
		return p.Ping(ctx)
	}
	return nil
}

func (c *slotConn) ResetSession(ctx context.Context) error {
	if r, ok := c.inner.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c *slotConn) IsValid() bool {
	if v, ok := c.inner.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

// slotTx is the transaction of a side connection, holding the slot until
// it ends.
type slotTx struct {
	inner   driver.Tx
	c       *slotConn
	release func()
}

func (t *slotTx) Commit() error {
	defer t.end()
	return t.inner.Commit()
}

func (t *slotTx) Rollback() error {
	defer t.end()
	return t.inner.Rollback()
}

// end gives the slot back, once.
func (t *slotTx) end() {
	if t.release != nil {
		t.release()
		t.release = nil
	}
	if t.c.tx == t {
		t.c.tx = nil
	}
}

// sideStmt is what slotStmt needs of the driver's prepared statement.
type sideStmt interface {
	driver.Stmt
	driver.StmtExecContext
	driver.StmtQueryContext
}

// slotStmt is a statement prepared on a side connection: run outside a
// transaction, it takes the slot as the connection's own statements do.
type slotStmt struct {
	inner sideStmt
	c     *slotConn
}

func (s *slotStmt) Close() error  { return s.inner.Close() }
func (s *slotStmt) NumInput() int { return s.inner.NumInput() }

func (s *slotStmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.ExecContext(context.Background(), named(args))
}

func (s *slotStmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.QueryContext(context.Background(), named(args))
}

func (s *slotStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (res driver.Result, err error) {
	err = s.c.outside(ctx, func() (bool, error) {
		res, err = s.inner.ExecContext(ctx, args)
		return true, err
	})
	return res, err
}

func (s *slotStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	var rows driver.Rows
	err := s.c.outside(ctx, func() (bool, error) {
		var err error
		rows, err = s.inner.QueryContext(ctx, args)
		return false, err
	})
	if err != nil {
		return nil, err
	}
	return s.c.rows(rows), nil
}

// named turns positional values into the named form of the context methods.
func named(args []driver.Value) []driver.NamedValue {
	out := make([]driver.NamedValue, len(args))
	for i, v := range args {
		out[i] = driver.NamedValue{Ordinal: i + 1, Value: v}
	}
	return out
}

// slotRows are rows read outside a transaction: the slot is held until
// they are closed. The column-type methods pass through when the driver's
// rows have them.
type slotRows struct {
	driver.Rows
	release func()
}

func (r *slotRows) Close() error {
	defer r.release()
	return r.Rows.Close()
}

func (r *slotRows) ColumnTypeDatabaseTypeName(index int) string {
	if t, ok := r.Rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
		return t.ColumnTypeDatabaseTypeName(index)
	}
	return ""
}

func (r *slotRows) ColumnTypeScanType(index int) reflect.Type {
	if t, ok := r.Rows.(driver.RowsColumnTypeScanType); ok {
		return t.ColumnTypeScanType(index)
	}
	return reflect.TypeFor[any]()
}

func (r *slotRows) ColumnTypeNullable(index int) (nullable, ok bool) {
	if t, ok := r.Rows.(driver.RowsColumnTypeNullable); ok {
		return t.ColumnTypeNullable(index)
	}
	return false, false
}
