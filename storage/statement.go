package storage

import (
	"context"
	"database/sql"
	"github.com/entityapi/entityapi/storage/dialect"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/uptrace/bun"
)

// The generic queries are built as sqlText: SQL with ? marks and their
// arguments. Handing that to Bun would write every value into the SQL text,
// so that no two statements look alike: PostgreSQL would plan each one anew
// and SQLite parse each one anew. bind turns it instead into SQL with bound
// parameters whose text depends only on the shape of the query, and the
// statements are prepared once per connection: by pgx's statement cache on
// PostgreSQL, by preparedCache on SQLite. Identifiers still come only from
// the table declarations, and values only travel as parameters (DESIGN §5).

// StatementHook sees every statement the store sends, through Bun (model
// queries, migrations) or with bound parameters (the generic queries).
type StatementHook interface {
	// BeforeStatement runs before query is sent; the context it returns is
	// the statement's.
	BeforeStatement(ctx context.Context, query string) context.Context
	// AfterStatement runs once the statement has been sent and answered
	// (for a query: once it returned its rows, not once they were read).
	AfterStatement(ctx context.Context, query string, err error)
}

// StatementParamsHook is a StatementHook that also sees the parameters a
// generic query is sent with (Bun's own statements have their values in
// the text), just after BeforeStatement: what a test needs to read the plan
// the database makes of the very statement a request sent
// (server/growth_plans_test.go).
type StatementParamsHook interface {
	StatementHook
	StatementParams(ctx context.Context, query string, params []any)
}

// statementWatch is the store's statement counter and hooks.
type statementWatch struct {
	count atomic.Int64
	hooks atomic.Pointer[[]StatementHook]
}

// AddStatementHook adds h to the hooks every later statement passes.
func (s *Store) AddStatementHook(h StatementHook) {
	for {
		old := s.watch.hooks.Load()
		var next []StatementHook
		if old != nil {
			next = append(next, *old...)
		}
		next = append(next, h)
		if s.watch.hooks.CompareAndSwap(old, &next) {
			return
		}
	}
}

// Statements is how many statements the store has sent since it was opened:
// the figure behind the entityapi_db_statements_total metric.
func (s *Store) Statements() int64 { return s.watch.count.Load() }

func (w *statementWatch) before(ctx context.Context, query string) context.Context {
	w.count.Add(1)
	if hs := w.hooks.Load(); hs != nil {
		for _, h := range *hs {
			ctx = h.BeforeStatement(ctx, query)
		}
	}
	return ctx
}

// params hands a generic query's parameters to the hooks that want them,
// without pgx's query mode (Features.CustomPlan) that bind may put first.
func (s *Store) params(ctx context.Context, query string, params []any) {
	hs := s.watch.hooks.Load()
	if hs == nil {
		return
	}
	if len(params) > 0 && s.f.CustomPlan != nil && params[0] == s.f.CustomPlan {
		params = params[1:]
	}
	for _, h := range *hs {
		if ph, ok := h.(StatementParamsHook); ok {
			ph.StatementParams(ctx, query, params)
		}
	}
}

func (w *statementWatch) after(ctx context.Context, query string, err error) {
	if hs := w.hooks.Load(); hs != nil {
		for _, h := range *hs {
			h.AfterStatement(ctx, query, err)
		}
	}
}

// bunWatch passes Bun's own statements to the store's counter and hooks.
type bunWatch struct{ w *statementWatch }

var _ bun.QueryHook = bunWatch{}

func (b bunWatch) BeforeQuery(ctx context.Context, ev *bun.QueryEvent) context.Context {
	return b.w.before(ctx, ev.Query)
}

func (b bunWatch) AfterQuery(ctx context.Context, ev *bun.QueryEvent) {
	b.w.after(ctx, ev.Query, ev.Err)
}

// sqlList is a list of values for an IN (...) of a generic query.
type sqlList []any

// sqlCount is a LIMIT or OFFSET. SQLite's planner weighs a LIMIT's value, so
// a statement with a bound LIMIT is prepared again at every run as if its
// schema had changed (its VDBE marks the parameter; 40% of a GET by key);
// there the count is written into the text as the decimal digits of an
// integer, which no caller's text can become. On PostgreSQL it stays a
// parameter, so that page sizes share one prepared statement.
type sqlCount int

// memberOf is the condition "? is one of the values" (or none of them,
// with not) and its argument: one list parameter (Features.AnyOf and
// NoneOf) where the database has arrays or the values fit one JSON array
// (Features.JSONList), so that the statement's text does not depend on how
// many there are; else one mark each (IN (?)).
func (s *Store) memberOf(vals []any, not bool) (string, any) {
	if !s.f.ArrayParams {
		list := any(sqlList(vals))
		in, notIn := "? IN (?)", "? NOT IN (?)"
		if arr, ok := s.f.JSONList(vals); ok {
			list, in, notIn = arr, s.f.AnyOf, s.f.NoneOf
		}
		if not {
			return notIn, list
		}
		return in, list
	}
	if not {
		return s.f.NoneOf, pgArray(vals)
	}
	return s.f.AnyOf, pgArray(vals)
}

// pgArray is the array parameter of = ANY / <> ALL on PostgreSQL.
type pgArray []any

// customPlanArray is the length past which an array parameter has its
// statement planned for its own values. pgx prepares each statement text
// once per connection, and after five runs PostgreSQL may keep a generic
// plan, costed as if an array held about ten values. For a page of keys
// that is right; for 20,000 (an include three steps deep) it chose to probe
// account_contacts per contact and test each link against the whole array:
// 4 s instead of 20 ms. A statement with a longer array is therefore sent
// through an unnamed statement (pgx's describe-exec mode), which
// PostgreSQL plans at every run with the values at hand: one more round
// trip, small beside the work such an array asks for.
const customPlanArray = 64

// planEach is a parameter whose statement is planned for its values at
// every run (pgx's describe-exec mode, as for a long array: see
// customPlanArray): a full-text query, whose selectivity a generic plan
// cannot know. A generic plan costed one as matching a share of the table
// and walked the accounts' key in order to a page's end: 100,048 rows read
// for a search that matched none (TestRelatedFieldPlansAtScale).
type planEach struct{ v any }

// bind writes st as SQL with the database's parameter marks and returns the
// parameters: identifiers are quoted into the text, a sqlList becomes one
// mark per value, every other argument one parameter. On PostgreSQL the
// parameters may begin with pgx's query mode (see customPlanArray), which
// pgx's database/sql driver takes as an option, not a value.
func (s *Store) bind(st *sqlText) (string, []any) {
	text := st.String()
	var b strings.Builder
	b.Grow(len(text) + 16)
	params := make([]any, 1, 1+len(st.args)) // params[0]: room for pgx's mode
	custom := false
	next := 0
	mark := func(v any) {
		params = append(params, s.param(v))
		if !s.f.NumberedMarks {
			b.WriteByte('?')
			return
		}
		b.WriteByte('$')
		b.WriteString(strconv.Itoa(len(params) - 1))
	}
	for i := 0; i < len(text); i++ {
		c := text[i]
		if c != '?' || next >= len(st.args) {
			b.WriteByte(c)
			continue
		}
		switch a := st.args[next].(type) {
		case bun.Ident:
			writeIdent(&b, string(a))
		case sqlCount:
			if s.f.InlineCounts {
				b.WriteString(strconv.Itoa(int(a)))
			} else {
				mark(int64(a))
			}
		case sqlList:
			for j, v := range a {
				if j > 0 {
					b.WriteString(", ")
				}
				mark(v)
			}
		case pgArray:
			mark([]any(a))
			custom = custom || len(a) > customPlanArray
		case planEach:
			mark(a.v)
			custom = true
		default:
			mark(a)
		}
		next++
	}
	if custom {
		params[0] = s.f.CustomPlan // see customPlanArray
		return b.String(), params
	}
	return b.String(), params[1:]
}

// writeIdent writes name quoted as an identifier.
func writeIdent(b *strings.Builder, name string) {
	b.WriteByte('"')
	b.WriteString(strings.ReplaceAll(name, `"`, `""`))
	b.WriteByte('"')
}

// param is v as the driver should receive it: where values travel as text
// (Features.TextValues, SQLite), in dialect.TextValue's form, the one the
// stored values have.
func (s *Store) param(v any) any {
	if !s.f.TextValues {
		return v
	}
	return dialect.TextValue(v)
}

// rawConn is what database/sql offers both outside and inside a transaction.
type rawConn interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
	StmtContext(ctx context.Context, stmt *sql.Stmt) *sql.Stmt
}

// dbConn is a *sql.DB seen as a rawConn: outside a transaction a prepared
// statement is used as it is.
type dbConn struct{ *sql.DB }

func (dbConn) StmtContext(_ context.Context, stmt *sql.Stmt) *sql.Stmt { return stmt }

// query runs st and returns its rows. On PostgreSQL outside a transaction
// it runs on the pool through pgx itself (see rowSource); inside one, on the
// transaction's connection through database/sql.
func (c *Conn) query(ctx context.Context, st *sqlText) (rowSource, error) {
	text, params := c.s.bind(st)
	ctx = c.s.watch.before(ctx, text)
	c.s.params(ctx, text, params)
	var (
		rows rowSource
		err  error
	)
	switch stmt := c.prepared(ctx, text); {
	case stmt != nil:
		rows.sql, err = stmt.QueryContext(ctx, params...)
	case c.native():
		rows, err = c.s.queryNative(ctx, text, params)
	default:
		rows.sql, err = c.raw.QueryContext(ctx, text, params...)
	}
	c.s.watch.after(ctx, text, err)
	return rows, err
}

// queryRow runs st, which answers one row, and scans it into dest (through
// pgx itself where query would).
func (c *Conn) queryRow(ctx context.Context, st *sqlText, dest ...any) error {
	text, params := c.s.bind(st)
	ctx = c.s.watch.before(ctx, text)
	c.s.params(ctx, text, params)
	var err error
	switch stmt := c.prepared(ctx, text); {
	case stmt != nil:
		err = stmt.QueryRowContext(ctx, params...).Scan(dest...)
	case c.native():
		err = c.s.native.QueryRow(ctx, text, params, dest)
	default:
		err = c.raw.QueryRowContext(ctx, text, params...).Scan(dest...)
	}
	c.s.watch.after(ctx, text, err)
	return err
}

// exec runs st, which answers no rows.
func (c *Conn) exec(ctx context.Context, st *sqlText) (sql.Result, error) {
	text, params := c.s.bind(st)
	return c.execBound(ctx, text, params)
}

// execBound runs text, which answers no rows, with its parameters as bind
// makes them.
func (c *Conn) execBound(ctx context.Context, text string, params []any) (sql.Result, error) {
	ctx = c.s.watch.before(ctx, text)
	c.s.params(ctx, text, params)
	var (
		res sql.Result
		err error
	)
	if stmt := c.prepared(ctx, text); stmt != nil {
		res, err = stmt.ExecContext(ctx, params...)
	} else {
		res, err = c.raw.ExecContext(ctx, text, params...)
	}
	c.s.watch.after(ctx, text, err)
	return res, err
}

// prepared is the SQLite statement of text prepared on c's connection, or
// nil when it runs unprepared (PostgreSQL, whose driver prepares and caches
// by itself; a shape met for the first time inside a transaction; a full
// cache). Inside a transaction the statement is bound to it (and closed with
// it); database/sql keeps it prepared on the connection for the next one.
func (c *Conn) prepared(ctx context.Context, text string) *sql.Stmt {
	if !c.s.f.Prepare {
		return nil
	}
	db, cache := c.statements()
	stmt := cache.get(db, text, c.tx != nil)
	if stmt == nil {
		return nil
	}
	return c.raw.StmtContext(ctx, stmt)
}

// maxPrepared bounds the SQLite statements kept prepared. The texts come
// from query shapes (a table, its filters, its sort, the length of an IN
// list), so the hot ones are met early and stay; past the bound a new shape
// simply runs unprepared. Nothing is evicted: a statement may be in use.
//
// maxPreparedMarks bounds their parameters as well, all statements
// together: a prepared statement holds about 100 bytes of SQLite's memory
// per parameter (a 3,000-row INSERT of five columns, LongInserts: 1.5 MB),
// outside the Go heap, so that many long INSERTs, of as many column sets
// as a caller's records can choose, would hold hundreds of megabytes by
// the count alone. 200,000 is about 20 MB: the long INSERTs a batch
// repeats fit many times over.
const (
	maxPrepared      = 512
	maxPreparedMarks = 200_000
)

// preparedCache keeps SQLite statements prepared by text. database/sql
// prepares a *sql.Stmt again on each connection that runs it (at most
// sqliteReadConns). A nil entry is a statement being prepared, or one that
// could not be.
type preparedCache struct {
	mu     sync.Mutex
	byText map[string]*sql.Stmt
	marks  int // the parameter marks of byText's texts (maxPreparedMarks)
	closed bool
	// background counts the statements being prepared in the background:
	// close waits for them, so that none holds a connection of a store
	// being closed (on SQLite, a connection closed late touches the
	// database's files after the store's owner may have removed them).
	background sync.WaitGroup
}

// get returns text's statement, preparing it when it is new. Preparing takes
// a connection of the pool: inside a transaction, which already holds one
// (the only one of a :memory: database), that happens in the background and
// this statement runs unprepared.
func (p *preparedCache) get(db *sql.DB, text string, inTx bool) *sql.Stmt {
	p.mu.Lock()
	stmt, known := p.byText[text]
	if known || p.closed || len(p.byText) >= maxPrepared {
		p.mu.Unlock()
		return stmt
	}
	marks := strings.Count(text, "?") // a mark in a literal counts too: a bound, not a census
	if p.marks+marks > maxPreparedMarks {
		p.mu.Unlock()
		return nil
	}
	if p.byText == nil {
		p.byText = map[string]*sql.Stmt{}
	}
	p.byText[text] = nil
	p.marks += marks
	if inTx {
		p.background.Add(1)
		p.mu.Unlock()
		go func() {
			defer p.background.Done()
			p.prepare(db, text)
		}()
		return nil
	}
	p.mu.Unlock()
	return p.prepare(db, text)
}

func (p *preparedCache) prepare(db *sql.DB, text string) *sql.Stmt {
	stmt, err := db.PrepareContext(context.Background(), text)
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		return nil // the statement itself reports the error when it runs
	}
	if p.closed {
		_ = stmt.Close()
		return nil
	}
	p.byText[text] = stmt
	return stmt
}

// close releases every prepared statement, once those being prepared in
// the background are.
func (p *preparedCache) close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.background.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, stmt := range p.byText {
		if stmt != nil {
			_ = stmt.Close()
		}
	}
	p.byText, p.marks = nil, 0
}
