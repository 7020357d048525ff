package jobs_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestQueueRunsEveryChunkOnce enqueues every chunk twice (as a recovery
// would) and checks that each is processed exactly once. The first jobs
// carry the trace of the request that queued them, the recovery's do not:
// they are still the same jobs, and the trace reaches the worker.
func TestQueueRunsEveryChunkOnce(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		op := stageOperation(t, s, 1, nil, 5, true)
		var mu sync.Mutex
		seen := map[int]int{}
		traces := map[int]string{}
		q, err := jobs.NewQueue(s, jobs.Config{Workers: 2, PollEvery: 100 * time.Millisecond})
		if err != nil {
			t.Fatal(err)
		}
		q.Handle(func(ctx context.Context, job jobs.ChunkJob) error {
			mu.Lock()
			seen[job.Chunk]++
			traces[job.Chunk] = job.Trace
			mu.Unlock()
			_, err := jobs.FinishChunk(ctx, s.Conn, job.Operation, job.Chunk, jobs.ChunkCounts{Read: 1, Write: 1, Created: 1}, nil)
			return err
		})
		chunkJobs := []jobs.ChunkJob{}
		for k := 1; k <= 5; k++ {
			chunkJobs = append(chunkJobs, jobs.ChunkJob{Operation: op.ID, Org: 1, Chunk: k})
		}
		const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
		traced := make([]jobs.ChunkJob, 0, len(chunkJobs))
		for _, j := range chunkJobs {
			j.Trace = traceparent
			traced = append(traced, j)
		}
		if err := q.Enqueue(ctx, append(traced, traced...)); err != nil {
			t.Fatal(err)
		}
		if err := q.Enqueue(ctx, chunkJobs); err != nil { // again, as the recovery does, without a trace
			t.Fatal(err)
		}
		if err := q.Start(ctx); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = q.Stop(ctx) }()
		got := awaitStatus(t, s, op.ID, jobs.StatusSuccess)
		if got.WriteCount != 5 || got.ChunksDone != 5 {
			t.Errorf("operation = %+v", got)
		}
		mu.Lock()
		defer mu.Unlock()
		for k := 1; k <= 5; k++ {
			if seen[k] != 1 {
				t.Errorf("chunk %d ran %d times", k, seen[k])
			}
			if traces[k] != traceparent {
				t.Errorf("chunk %d's job carried trace %q, want %q", k, traces[k], traceparent)
			}
		}
	})
}

// TestQueueWakesItsWorkersOnInsert: chunk jobs queued by the process run at
// once, not at the next poll for jobs (an hour here). On SQLite River runs
// poll-only (pollingSQLite): an insert wakes this process's workers itself,
// instead of writing a row into river_notification for a listener that
// polls that table every 50 ms.
func TestQueueWakesItsWorkersOnInsert(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		q, err := jobs.NewQueue(s, jobs.Config{Workers: 1, PollEvery: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		q.Handle(func(ctx context.Context, job jobs.ChunkJob) error {
			for k := job.Chunk; k < job.Chunk+job.Chunks(); k++ {
				if _, err := jobs.FinishChunk(ctx, s.Conn, job.Operation, k, jobs.ChunkCounts{Read: 1, Write: 1, Created: 1}, nil); err != nil {
					return err
				}
			}
			return nil
		})
		if err := q.Start(ctx); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = q.Stop(ctx) }()
		for round := range 3 {
			op := stageOperation(t, s, 1, nil, 2, true)
			if err := q.Enqueue(ctx, jobs.ForChunks(op.ID, 1, []int{1, 2}, q.JobShape())); err != nil {
				t.Fatal(err)
			}
			if got := awaitStatus(t, s, op.ID, jobs.StatusSuccess); got.ChunksDone != 2 {
				t.Errorf("round %d: operation = %+v", round, got)
			}
		}
		if s.Dialect() == "sqlite" {
			var notes int
			if err := s.DB().QueryRowContext(ctx, "SELECT count(*) FROM river_notification").Scan(&notes); err != nil {
				t.Fatal(err)
			}
			if notes != 0 {
				t.Errorf("River wrote %d notifications on SQLite, want none (poll-only)", notes)
			}
		}
	})
}

// awaitStatus polls an operation of organization 1 until it has status.
func awaitStatus(t *testing.T, s *storage.Store, id int64, status string) *jobs.Operation {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		op := operation(t, s, 1, id)
		if op.Status == status {
			return op
		}
		if time.Now().After(deadline) {
			t.Fatalf("operation %d is %s, want %s", id, op.Status, status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestQueueMaintenance covers the housekeeping: a published operation whose
// chunks were never enqueued is enqueued, an abandoned upload is deleted, a
// synchronous operation whose process died fails, and finished operations
// past their lifetime are deleted.
func TestQueueMaintenance(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		lost := stageOperation(t, s, 1, nil, 2, true)
		abandoned := stageOperation(t, s, 1, nil, 1, false)
		orphan := &jobs.Operation{OrganizationID: 1, EntityType: "accounts"}
		if err := jobs.OpenSyncOperation(ctx, s.Conn, orphan); err != nil {
			t.Fatal(err)
		}
		old := stageOperation(t, s, 1, nil, 1, true)
		if _, err := jobs.FinishChunk(ctx, s.Conn, old.ID, 1, jobs.ChunkCounts{Read: 1}, nil); err != nil {
			t.Fatal(err)
		}
		time.Sleep(1100 * time.Millisecond) // timestamps have whole seconds on PostgreSQL
		processed := make(chan jobs.ChunkJob, 4)
		q, err := jobs.NewQueue(s, jobs.Config{Workers: 1, PollEvery: 100 * time.Millisecond,
			Interrupted: time.Millisecond, StaleUpload: time.Millisecond, Lifetime: time.Millisecond, Maintenance: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		q.Handle(func(ctx context.Context, job jobs.ChunkJob) error {
			processed <- job
			_, err := jobs.FinishChunk(ctx, s.Conn, job.Operation, job.Chunk, jobs.ChunkCounts{Read: 1, Write: 1}, nil)
			return err
		})
		if err := q.Maintain(ctx); err != nil {
			t.Fatal(err)
		}
		if _, err := jobs.LoadOperation(ctx, s.Conn, 1, old.ID); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("a finished operation past its lifetime: %v, want ErrNotFound", err)
		}
		if _, err := jobs.LoadChunk(ctx, s.Conn, abandoned.ID, 1); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("an abandoned upload kept its chunk: %v", err)
		}
		failed := operation(t, s, 1, orphan.ID)
		if failed.Status != jobs.StatusFailed {
			t.Errorf("an orphaned synchronous operation is %s, want failed", failed.Status)
		}
		if errs, _ := jobs.Errors(ctx, s.Conn, orphan.ID, 0, 0); len(errs) != 1 || errs[0].Chunk != 0 || errs[0].Status != 500 {
			t.Errorf("orphan errors = %+v", errs)
		}
		if err := q.Start(ctx); err != nil {
			t.Fatal(err)
		}
		defer func() { _ = q.Stop(ctx) }()
		done := awaitStatus(t, s, lost.ID, jobs.StatusSuccess)
		if done.WriteCount != 2 {
			t.Errorf("the recovered operation wrote %d", done.WriteCount)
		}
	})
}

// TestSyncOperationEnd covers the end of a synchronous batch that outlived
// its wait: success with counts, failed with its errors, and ErrFinished once
// cancelled.
func TestSyncOperationEnd(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		open := func() *jobs.Operation {
			op := &jobs.Operation{OrganizationID: 1, EntityType: "accounts"}
			if err := jobs.OpenSyncOperation(ctx, s.Conn, op); err != nil {
				t.Fatal(err)
			}
			if op.Status != jobs.StatusRunning || op.ChunkCount != 1 {
				t.Fatalf("OpenSyncOperation = %+v", op)
			}
			return op
		}
		ok := open()
		if err := jobs.EndSyncOperation(ctx, s.Conn, ok.ID, true, jobs.ChunkCounts{Read: 3, Write: 3, Created: 3}, nil); err != nil {
			t.Fatal(err)
		}
		if got := operation(t, s, 1, ok.ID); got.Status != jobs.StatusSuccess || got.WriteCount != 3 || got.FinishedAt == nil {
			t.Errorf("success: %+v", got)
		}
		bad := open()
		if err := jobs.EndSyncOperation(ctx, s.Conn, bad.ID, false, jobs.ChunkCounts{Read: 3, Errors: 2}, itemErrors("", 2)); err != nil {
			t.Fatal(err)
		}
		if got := operation(t, s, 1, bad.ID); got.Status != jobs.StatusFailed || got.WriteCount != 0 || got.ErrorCount != 2 {
			t.Errorf("failed: %+v", got)
		}
		if errs, _ := jobs.Errors(ctx, s.Conn, bad.ID, 0, 0); len(errs) != 2 || errs[1].Chunk != 1 || errs[1].N != 2 {
			t.Errorf("errors = %+v", errs)
		}
		cancelled := open()
		if err := jobs.CancelOperation(ctx, s.Conn, 1, cancelled.ID); err != nil {
			t.Fatal(err)
		}
		if err := jobs.EndSyncOperation(ctx, s.Conn, cancelled.ID, true, jobs.ChunkCounts{Read: 1}, nil); !errors.Is(err, jobs.ErrFinished) {
			t.Errorf("ending a cancelled operation: %v, want ErrFinished", err)
		}
		if err := jobs.DeleteOperation(ctx, s.Conn, cancelled.ID); err != nil {
			t.Fatal(err)
		}
		if err := jobs.DeleteOperation(ctx, s.Conn, cancelled.ID); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("deleting twice: %v", err)
		}
		if n, err := jobs.PendingChunkNumbers(ctx, s.Conn, ok.ID); err != nil || len(n) != 0 {
			t.Errorf("PendingChunkNumbers = %v, %v", n, err)
		}
	})
}
