package storage

import (
	"context"
	"database/sql"
	"sync"

	"github.com/uptrace/bun"

	"github.com/entityapi/entityapi/storage/dialect"
)

// The transactions of batch chunks run, on a SQLite file, on a connection
// of their own that has no note triggers (eventtrigger.go). Every row a
// statement writes runs the AFTER triggers of its table, armed or not: on a
// multi-row INSERT of a batch that was about a sixth of the INSERT's time
// (BenchmarkInsertMany1000), and a batch chunk records its events without
// them (InsertMany with Noting, RecordEvents).
//
// A noted single write (InsertRow, UpdateRow, UpdateRowMembers, Delete on a
// Conn from Noting) inside such a transaction finds no trigger and fails
// (Conn.armed): a change without its event never commits.
//
// Nor has it the audit triggers of inserts (a third of a batch's INSERT
// time): every insert there (InsertMany, Insert, InsertRow) writes its rows'
// audit rows itself, in its transaction, with one INSERT ... SELECT
// (auditInserts, dialect.InsertAuditor). Updates, deletes and links keep
// their audit triggers.

// bulkPool is the SQLite connection of Bulk transactions (the dialect's,
// sqlite.DB.Bulk, which closes it) and the statements prepared on it.
type bulkPool struct {
	db    *bun.DB
	stmts preparedCache

	auditor    dialect.InsertAuditor
	auditsOnce sync.Once
	audits     map[string]string // InsertedAudits of each audited table
}

// Bulk is the store's Conn for the transactions of batch chunks, which
// record their events themselves: on a SQLite file its transactions (Tx,
// and the writes that make their own) run on the bulk connection, which has
// no note triggers; its reads outside a transaction, and everything on
// PostgreSQL or ":memory:", are the Store's.
func (s *Store) Bulk() *Conn {
	c := *s.Conn
	c.bulk = s.bulk != nil
	return &c
}

// txDB is the database a transaction of c begins on.
func (c *Conn) txDB() *bun.DB {
	if c.bulk {
		return c.s.bulk.db
	}
	return c.s.db
}

// statements is the pool c's statements are prepared on, with their cache.
func (c *Conn) statements() (*sql.DB, *preparedCache) {
	if c.bulk && c.tx != nil {
		return c.s.bulk.db.DB, &c.s.bulk.stmts
	}
	return c.s.db.DB, &c.s.stmts
}

// onBulk tells whether c's statements run on the bulk connection: c is in
// a transaction of Store.Bulk's, on a SQLite file.
func (c *Conn) onBulk() bool { return c.bulk && c.tx != nil && c.s.bulk != nil }

// auditInserts writes, on the bulk connection, the audit rows of the rows of
// t just inserted whose keys are keys, or first..last when run (InsertMany's
// run of reserved keys), naming ctx's actor; elsewhere the insert triggers
// wrote them and it does nothing.
func (c *Conn) auditInserts(ctx context.Context, t *Table, keys []any, run bool) error {
	if !c.onBulk() || len(keys) == 0 {
		return nil
	}
	p := c.s.bulk
	p.auditsOnce.Do(func() {
		p.audits = map[string]string{}
		for _, at := range c.s.audit().Tables {
			p.audits[at.Table] = p.auditor.InsertedAudits(at)
		}
	})
	head, ok := p.audits[t.Name]
	if !ok {
		return nil // not audited
	}
	var actor dialect.Actor
	if a := actorOf(ctx); a != nil {
		actor = *a
	}
	// write sends the statement for the rows whose key matches: BETWEEN the
	// ends of a run, else IN a part of keys.
	write := func(match func(st *sqlText)) error {
		var st sqlText
		st.add(head, actor[0], actor[1], actor[2], actor[3])
		st.add(dialect.InsertedRow + ".")
		st.ident(t.Key)
		match(&st)
		st.add(" ORDER BY " + dialect.InsertedRow + ".")
		st.ident(t.Key)
		if _, err := c.exec(ctx, &st); err != nil {
			return c.s.mapError("insert", dialect.AuditsTable, err)
		}
		return nil
	}
	if run {
		return write(func(st *sqlText) { st.add(" BETWEEN ? AND ?", keys[0], keys[len(keys)-1]) })
	}
	for start := 0; start < len(keys); start += insertChunk {
		part := keys[start:min(start+insertChunk, len(keys))]
		if err := write(func(st *sqlText) { st.add(" IN "); st.tuple(part) }); err != nil {
			return err
		}
	}
	return nil
}
