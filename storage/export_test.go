package storage

import (
	"context"
	"database/sql"
	"github.com/entityapi/entityapi/storage/dialect/sqlite"
	"strings"
	"time"
)

// ExplainFind returns the plan the database chooses for Find(q), one line per
// row of EXPLAIN QUERY PLAN (SQLite) or EXPLAIN (PostgreSQL), so that tests
// can hold query shapes to plans that scale.
func (s *Store) ExplainFind(ctx context.Context, q Query) (string, error) {
	st, _, err := s.findStatement(q)
	if err != nil {
		return "", err
	}
	return s.explain(ctx, st)
}

// ExplainPairs is the plan of Pairs(ctx, j, col, keys).
func (s *Store) ExplainPairs(ctx context.Context, j *JoinTable, col string, keys []any) (string, error) {
	k, _ := j.kind(col)
	st, err := s.pairsStatement(j, col, k, keys)
	if err != nil {
		return "", err
	}
	return s.explain(ctx, st)
}

// explain is the database's plan of st, one step per line.
func (s *Store) explain(ctx context.Context, st *sqlText) (string, error) {
	explain := "EXPLAIN "
	if s.d.Name() == "sqlite" {
		explain = "EXPLAIN QUERY PLAN "
	}
	text, params := s.bind(st)
	rows, err := s.db.DB.QueryContext(ctx, explain+text, params...)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return "", err
	}
	var lines []string
	for rows.Next() {
		vals := make([]any, len(cols))
		dest := make([]any, len(cols))
		for i := range vals {
			dest[i] = &vals[i]
		}
		if err := rows.Scan(dest...); err != nil {
			return "", err
		}
		// SQLite's last column is the plan step; PostgreSQL has only one.
		lines = append(lines, toText(vals[len(vals)-1]))
	}
	return strings.Join(lines, "\n"), rows.Err()
}

func toText(v any) string {
	if b, ok := v.([]byte); ok {
		return string(b)
	}
	s, _ := v.(string)
	return s
}

// Prepared is how many statements the SQLite statement cache holds ready.
func (s *Store) Prepared() int {
	s.stmts.mu.Lock()
	defer s.stmts.mu.Unlock()
	n := 0
	for _, stmt := range s.stmts.byText {
		if stmt != nil {
			n++
		}
	}
	return n
}

// PreparedStatement reports whether text is held prepared in the SQLite
// statement cache.
func (s *Store) PreparedStatement(text string) bool {
	s.stmts.mu.Lock()
	defer s.stmts.mu.Unlock()
	return s.stmts.byText[text] != nil
}

// PreparedStatements is how many statements the connection c runs on holds
// prepared under a name (pgx's statement cache) whose text contains part:
// PostgreSQL only.
func (c *Conn) PreparedStatements(ctx context.Context, part string) (int, error) {
	var n int
	err := c.raw.QueryRowContext(ctx,
		"SELECT count(*) FROM pg_prepared_statements WHERE name <> '' AND strpos(statement, $1) > 0", part).Scan(&n)
	return n, err
}

// WriteGroups is how many transactions have committed more than one single
// write together (writegroup.go).
func (s *Store) WriteGroups() int64 { return s.queue.groups.Load() }

// QueuedWrites is how many single writes wait in the queue (taken or not).
func (s *Store) QueuedWrites() int {
	s.queue.mu.Lock()
	defer s.queue.mu.Unlock()
	return len(s.queue.pending)
}

// HoldWriteSlot takes the SQLite write slot until release is called, so
// that single writes queue behind it.
func (s *Store) HoldWriteSlot(ctx context.Context) (release func(), err error) {
	return s.acquireWrite(ctx)
}

// Alone runs fn as a single write of c to t (through the queue on SQLite).
func (c *Conn) Alone(ctx context.Context, t *Table, fn func(ctx context.Context, c *Conn) error) error {
	return c.alone(ctx, t, fn)
}

// SendInsert sends the INSERT of row on c as it is, outside any write
// queue or transaction of its own (inside an Alone function).
func (c *Conn) SendInsert(ctx context.Context, t *Table, org int64, row Row) error {
	st, _, err := insertStatement(t, org, row)
	if err != nil {
		return err
	}
	_, err = c.exec(ctx, st)
	return err
}

// SideDB is the SQLite dialect's side connection as the store's job queue
// gets it (sqlite.DB.SideDB, taking the store's write slot).
func (s *Store) SideDB() (*sql.DB, bool, error) {
	return s.d.(*sqlite.DB).SideDB(s.acquireWrite)
}

// The reference lease's figures, which migration 0024's function repeats.
const (
	ReferenceFenceKey  = referenceFenceKey
	ReferenceLeaseTerm = referenceLeaseTerm
)

// KeepReferenceLeaseIdle is KeepReferenceLease with the lease let go after
// idle without a use, for a test that waits for it.
func (s *Store) KeepReferenceLeaseIdle(ctx context.Context, idle time.Duration) {
	s.keepReferenceLease(ctx, idle)
}
