package storagetest

import (
	"context"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
)

// LogOldTransactions logs, on PostgreSQL, the transactions of the whole
// server that hold a transaction id, oldest first: PostgreSQL numbers a
// change event only once every older transaction has ended, and the test
// databases share one server, so a test that waited in vain for its
// events calls it to name what held them back. Nothing on SQLite.
func LogOldTransactions(t testing.TB, s *storage.Store) {
	t.Helper()
	if s.Dialect() != "postgres" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rows, err := s.DB().QueryContext(ctx, `SELECT coalesce(datname, ''), pid, coalesce(state, ''), backend_xid::text,
		coalesce((now() - xact_start)::text, ''), left(coalesce(query, ''), 300)
		FROM pg_stat_activity WHERE backend_xid IS NOT NULL ORDER BY xact_start`)
	if err != nil {
		t.Logf("storagetest: the server's transactions: %v", err)
		return
	}
	defer rows.Close()
	for rows.Next() {
		var db, state, xid, age, query string
		var pid int64
		if err := rows.Scan(&db, &pid, &state, &xid, &age, &query); err != nil {
			t.Logf("storagetest: the server's transactions: %v", err)
			return
		}
		t.Logf("storagetest: a transaction holds xid %s for %s: database %s, pid %d, %s: %s", xid, age, db, pid, state, query)
	}
}
