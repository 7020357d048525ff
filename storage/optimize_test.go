package storage_test

import (
	"context"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestOptimizeAnalyzesGrownTables: on PostgreSQL Optimize analyzes a table
// that grew past its size at its last analysis (never analyzed, here), which
// makes PostgreSQL plan again the statements it keeps prepared (issue 30,
// item 7), and leaves it alone while it does not grow again: the
// housekeeping's minute costs one catalog query, not an ANALYZE of every
// table.
func TestOptimizeAnalyzesGrownTables(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		if s.Dialect() != "postgres" {
			return // SQLite's PRAGMA optimize has its own rule (TestOptimizeKeepsPlansOnKeys)
		}
		ctx := context.Background()
		rows := make([]storage.Row, 500)
		for i := range rows {
			rows[i] = storage.Row{"name": "a"}
		}
		if _, err := s.InsertMany(ctx, storagetest.Table(t, s, "accounts"), 1, rows); err != nil {
			t.Fatal(err)
		}
		analyses := func() (n, changes int) {
			t.Helper()
			err := s.DB().DB.QueryRowContext(ctx, "SELECT analyze_count, n_mod_since_analyze FROM pg_stat_user_tables "+
				"WHERE relname = 'accounts' AND schemaname = current_schema()").Scan(&n, &changes)
			if err != nil {
				t.Fatal(err)
			}
			return n, changes
		}
		// A backend reports its changes within seconds of its commit.
		for i := 0; ; i++ {
			if _, changes := analyses(); changes >= 500 {
				break
			}
			if i == 300 {
				t.Fatal("the statistics never counted the 500 new accounts")
			}
			time.Sleep(100 * time.Millisecond)
		}
		for i, want := range []int{1, 1} { // analyzed once grown, then left alone
			if err := s.Optimize(ctx); err != nil {
				t.Fatal(err)
			}
			if n, _ := analyses(); n != want {
				t.Errorf("after Optimize %d: accounts analyzed %d times, want %d", i+1, n, want)
			}
		}
	})
}
