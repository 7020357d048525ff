package jobs_test

import (
	"context"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestMaintainExpiresEvents: the housekeeping numbers the committed change
// events and deletes those older than the events' lifetime (30 days by
// default), as it does finished operations.
func TestMaintainExpiresEvents(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		for _, id := range []string{"old", "new"} {
			err := s.Tx(ctx, func(c *storage.Conn) error {
				return c.RecordEvents(ctx, []storage.Event{{Org: 1, Type: "accounts", Action: storage.EventCreated, Key: id}})
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		q, err := jobs.NewQueue(s, jobs.Config{Workers: 1, Maintenance: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		remaining := func() []string {
			var ids []string
			err := s.DB().NewSelect().Table("events").Column("resource_id").OrderExpr("id").Scan(ctx, &ids)
			if err != nil {
				t.Fatal(err)
			}
			return ids
		}
		// Numbered by the housekeeping (PostgreSQL: a transaction of
		// another test database may hold it back a moment).
		for deadline := time.Now().Add(60 * time.Second); ; {
			if err := q.Maintain(ctx); err != nil {
				t.Fatal(err)
			}
			if len(remaining()) == 2 {
				break
			}
			if time.Now().After(deadline) {
				storagetest.LogOldTransactions(t, s)
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		old := time.Now().Add(-31 * 24 * time.Hour).UTC().Truncate(time.Second)
		if _, err := s.DB().NewUpdate().Table("events").Set("occurred_at = ?", old).Where("resource_id = ?", "old").Exec(ctx); err != nil {
			t.Fatal(err)
		}
		if err := q.Maintain(ctx); err != nil {
			t.Fatal(err)
		}
		if got := remaining(); len(got) != 1 || got[0] != "new" {
			t.Fatalf("events after the housekeeping: %v, want [new]", got)
		}
	})
}
