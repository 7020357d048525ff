package jobs_test

import (
	"context"
	"testing"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestStats reads the operator's figures of batch work on both databases:
// operations by state and the job queue's depth, each moving with what
// happens.
func TestStats(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		ops, err := jobs.CountByState(ctx, s.Conn)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range jobs.Statuses {
			if n, ok := ops[st]; !ok || n != 0 {
				t.Errorf("empty database: %s = %d (present %v), want 0", st, n, ok)
			}
		}
		stageOperation(t, s, 1, nil, 2, true)
		stageOperation(t, s, 1, nil, 1, true)
		stageOperation(t, s, 1, nil, 1, false)
		if ops, err = jobs.CountByState(ctx, s.Conn); err != nil {
			t.Fatal(err)
		}
		if ops[jobs.StatusNew] != 2 || ops[jobs.StatusStaging] != 1 || ops[jobs.StatusSuccess] != 0 {
			t.Errorf("after two published and one staging operation: %v", ops)
		}

		q, err := jobs.NewQueue(s, jobs.Config{NoWorkers: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = q.Stop(ctx) })
		if err := q.Enqueue(ctx, []jobs.ChunkJob{{Operation: 1, Org: 1, Chunk: 1}, {Operation: 1, Org: 1, Chunk: 2}}); err != nil {
			t.Fatal(err)
		}
		queued, err := jobs.CountQueued(ctx, s.Conn)
		if err != nil {
			t.Fatal(err)
		}
		if queued["available"] != 2 || queued["running"] != 0 || len(queued) != 2 {
			t.Errorf("two enqueued chunks, no workers: %v", queued)
		}

	})
}
