package jobs_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestMaintainAuditRetention: the housekeeping deletes the audit rows older
// than --audit-retention, and keeps every one when it is not set.
func TestMaintainAuditRetention(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		accounts := storagetest.Table(t, s, "accounts")
		old, err := s.Conn.InsertRow(ctx, accounts, 1, storage.Row{"name": "Old"})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.DB().NewUpdate().Table("audits").Set("logged_at = ?", time.Now().Add(-48*time.Hour).UTC().Truncate(time.Second)).
			Where("resource_id = ?", fmt.Sprint(old["id"])).Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Conn.InsertRow(ctx, accounts, 1, storage.Row{"name": "New"}); err != nil {
			t.Fatal(err)
		}
		count := func() (n int) {
			if err := s.DB().NewSelect().Table("audits").ColumnExpr("count(*)").Where("resource_type = 'accounts'").Scan(ctx, &n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		for _, c := range []struct {
			retention time.Duration
			want      int
		}{{0, 2}, {24 * time.Hour, 1}} {
			q, err := jobs.NewQueue(s, jobs.Config{Workers: 1, Maintenance: time.Hour, AuditRetention: c.retention})
			if err != nil {
				t.Fatal(err)
			}
			if err := q.Maintain(ctx); err != nil {
				t.Fatal(err)
			}
			if got := count(); got != c.want {
				t.Errorf("retention %v: %d audit rows left, want %d", c.retention, got, c.want)
			}
		}
	})
}
