package storage_test

import (
	"context"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestStats reads the operator's figures on both databases: operations by
// state, the job queue's depth and the pool, each moving with what happens.
func TestStats(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		ops, err := s.CountOperationsByState(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, st := range storage.OperationStates {
			if n, ok := ops[st]; !ok || n != 0 {
				t.Errorf("empty database: %s = %d (present %v), want 0", st, n, ok)
			}
		}
		stageOperation(t, s, 1, nil, 2, true)
		stageOperation(t, s, 1, nil, 1, true)
		stageOperation(t, s, 1, nil, 1, false)
		if ops, err = s.CountOperationsByState(ctx); err != nil {
			t.Fatal(err)
		}
		if ops[storage.OperationNew] != 2 || ops[storage.OperationStaging] != 1 || ops[storage.OperationSuccess] != 0 {
			t.Errorf("after two published and one staging operation: %v", ops)
		}

		q, err := s.NewQueue(storage.QueueConfig{NoWorkers: true})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = q.Stop(ctx) })
		if err := q.Enqueue(ctx, []storage.ChunkJob{{Operation: 1, Org: 1, Chunk: 1}, {Operation: 1, Org: 1, Chunk: 2}}); err != nil {
			t.Fatal(err)
		}
		jobs, err := s.CountJobsByState(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if jobs["available"] != 2 || jobs["running"] != 0 || len(jobs) != 2 {
			t.Errorf("two enqueued chunks, no workers: %v", jobs)
		}

		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if st := s.PoolStats(); st.MaxOpen == 0 {
			t.Errorf("the pool is bounded, yet MaxOpen is 0: %+v", st)
		}
		if err := s.Ping(ctx); err != nil {
			t.Fatal(err)
		}
		if st := s.PoolStats(); st.Open == 0 {
			t.Errorf("after a ping no connection is open: %+v", st)
		}
	})
}
