package jobs_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// stageOperation creates an operation of org with chunks staged chunks
// (chunk k holds one item of index k-1), published unless publish is false.
func stageOperation(t *testing.T, s *storage.Store, org int64, owner *int64, chunks int, publish bool) *jobs.Operation {
	t.Helper()
	ctx := context.Background()
	op := &jobs.Operation{OrganizationID: org, OwnerID: owner, EntityType: "accounts"}
	if err := jobs.CreateOperation(ctx, s.Conn, op); err != nil {
		t.Fatalf("CreateOperation: %v", err)
	}
	if op.ID == 0 || op.Status != jobs.StatusStaging {
		t.Fatalf("CreateOperation = %+v", op)
	}
	for k := 1; k <= chunks; k++ {
		items, err := json.Marshal([]jobs.ChunkItem{{Index: k - 1, Raw: json.RawMessage(`{"type":"accounts"}`)}})
		if err != nil {
			t.Fatal(err)
		}
		ch := &jobs.Chunk{OperationID: op.ID, Number: k, Items: items}
		if k == 1 {
			ch.Included = json.RawMessage(`[{"index":0,"raw":{"type":"contacts"}}]`)
		}
		if err := jobs.StageChunk(ctx, s.Conn, ch); err != nil {
			t.Fatalf("StageChunk(%d): %v", k, err)
		}
	}
	if publish {
		if err := jobs.PublishOperation(ctx, s.Conn, op.ID, chunks, nil); err != nil {
			t.Fatalf("PublishOperation: %v", err)
		}
	}
	return op
}

// operation loads an operation, failing the test when that fails.
func operation(t *testing.T, s *storage.Store, org, id int64) *jobs.Operation {
	t.Helper()
	op, err := jobs.LoadOperation(context.Background(), s.Conn, org, id)
	if err != nil {
		t.Fatalf("Operation(%d, %d): %v", org, id, err)
	}
	return op
}

// errorKeys names each error by its chunk, number and pointer, in order.
func errorKeys(rows []jobs.OperationError) []string {
	var keys []string
	for _, e := range rows {
		keys = append(keys, fmt.Sprintf("%d-%d %s", e.Chunk, e.N, *e.Pointer))
	}
	return keys
}

func ptr[T any](v T) *T { return &v }

func isNotFound(err error) bool { return errors.Is(err, storage.ErrNotFound) }

// itemErrors makes n item errors with distinct pointers.
func itemErrors(prefix string, n int) []jobs.OperationError {
	errs := make([]jobs.OperationError, n)
	for i := range errs {
		errs[i] = jobs.OperationError{Status: 400, Title: "not blank constraint",
			Pointer: ptr(fmt.Sprintf("/data/%s%d/attributes/name", prefix, i))}
	}
	return errs
}

// newOwner stores a user of organization 1 to own operations, through the
// generic queries (users are a generic table), and returns its id.
func newOwner(t *testing.T, s *storage.Store, username string) int64 {
	t.Helper()
	users := storagetest.Table(t, s, "users")
	id, err := s.Insert(context.Background(), users, 1, storage.Row{"username": username,
		"email": username + "@example.com", "first_name": "Op", "last_name": "Owner", "enabled": true})
	if err != nil {
		t.Fatalf("insert user %s: %v", username, err)
	}
	return id.(int64)
}

func TestOperationLifeCycle(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		owner := newOwner(t, s, "op-owner")
		before := time.Now()
		op := stageOperation(t, s, 1, &owner, 2, false)

		// Staging: invisible, and stale only once untouched long enough.
		if _, err := jobs.LoadOperation(ctx, s.Conn, 1, op.ID); !isNotFound(err) {
			t.Fatalf("Operation(staging) error = %v, want ErrNotFound", err)
		}
		if err := jobs.StartOperation(ctx, s.Conn, op.ID); !isNotFound(err) {
			t.Errorf("StartOperation(staging) = %v, want ErrNotFound", err)
		}
		if ids, err := jobs.StaleStaging(ctx, s.Conn, time.Now().Add(-time.Hour)); err != nil || len(ids) != 0 {
			t.Errorf("StaleStaging(an hour ago) = %v, %v", ids, err)
		}
		if ids, err := jobs.StaleStaging(ctx, s.Conn, time.Now().Add(2*time.Second)); err != nil || !reflect.DeepEqual(ids, []int64{op.ID}) {
			t.Errorf("StaleStaging(soon) = %v, %v; want [%d]", ids, err, op.ID)
		}
		if err := jobs.PublishOperation(ctx, s.Conn, op.ID, 3, nil); err == nil {
			t.Error("PublishOperation with 3 chunks of 2 staged succeeded")
		}
		if err := jobs.PublishOperation(ctx, s.Conn, op.ID, 2, nil); err != nil {
			t.Fatalf("PublishOperation: %v", err)
		}
		if err := jobs.PublishOperation(ctx, s.Conn, op.ID, 2, nil); !isNotFound(err) {
			t.Errorf("second PublishOperation = %v, want ErrNotFound", err)
		}
		if err := jobs.StageChunk(ctx, s.Conn, &jobs.Chunk{OperationID: op.ID, Number: 3, Items: json.RawMessage(`[]`)}); !isNotFound(err) {
			t.Errorf("StageChunk after publishing = %v, want ErrNotFound", err)
		}
		if ids, err := jobs.StaleStaging(ctx, s.Conn, time.Now().Add(2*time.Second)); err != nil || len(ids) != 0 {
			t.Errorf("StaleStaging after publishing = %v, %v", ids, err)
		}

		got := operation(t, s, 1, op.ID)
		if got.Status != jobs.StatusNew || got.ChunkCount != 2 || got.ChunksDone != 0 || got.EntityType != "accounts" ||
			got.OwnerID == nil || *got.OwnerID != owner || got.StartedAt != nil || got.FinishedAt != nil {
			t.Errorf("published operation = %+v", got)
		}
		storagetest.CheckStamp(t, got.CreatedAt, before)

		chunks, err := jobs.PendingChunks(ctx, s.Conn, op.ID)
		if err != nil || len(chunks) != 2 || chunks[0].Number != 1 || chunks[1].Number != 2 || chunks[0].Done {
			t.Fatalf("PendingChunks = %+v, %v", chunks, err)
		}
		var items []jobs.ChunkItem
		if err := json.Unmarshal(chunks[1].Items, &items); err != nil || len(items) != 1 || items[0].Index != 1 {
			t.Errorf("chunk 2 items = %s (%v)", chunks[1].Items, err)
		}
		if chunks[0].Included == nil || chunks[1].Included != nil {
			t.Errorf("included = %s / %s", chunks[0].Included, chunks[1].Included)
		}

		if err := jobs.StartOperation(ctx, s.Conn, op.ID); err != nil {
			t.Fatalf("StartOperation: %v", err)
		}
		if err := jobs.StartOperation(ctx, s.Conn, op.ID); err != nil {
			t.Errorf("second StartOperation: %v", err)
		}
		got = operation(t, s, 1, op.ID)
		if got.Status != jobs.StatusRunning || got.StartedAt == nil {
			t.Errorf("started operation = %+v", got)
		}

		// Chunk 2 first, in the transaction of its (here: no) writes.
		c2 := jobs.ChunkCounts{Read: 100, Write: 98, Errors: 2, Created: 90, Updated: 8, Millis: 120}
		var done bool
		err = s.Tx(ctx, func(c *storage.Conn) error {
			var err error
			done, err = jobs.FinishChunk(ctx, c, op.ID, 2, c2, itemErrors("b", 2))
			return err
		})
		if err != nil || !done {
			t.Fatalf("FinishChunk(2) = %v, %v", done, err)
		}
		// A re-run: nothing changes.
		if done, err := jobs.FinishChunk(ctx, s.Conn, op.ID, 2, c2, itemErrors("b", 2)); err != nil || done {
			t.Fatalf("FinishChunk(2) again = %v, %v; want false, nil", done, err)
		}
		got = operation(t, s, 1, op.ID)
		if got.Status != jobs.StatusRunning || got.ChunksDone != 1 || got.ReadCount != 100 || got.ErrorCount != 2 || got.FinishedAt != nil {
			t.Errorf("after chunk 2 = %+v", got)
		}
		if n, err := jobs.CountErrors(ctx, s.Conn, op.ID); err != nil || n != 2 {
			t.Errorf("CountOperationErrors = %d, %v; want 2", n, err)
		}
		if chunks, err := jobs.PendingChunks(ctx, s.Conn, op.ID); err != nil || len(chunks) != 1 || chunks[0].Number != 1 {
			t.Errorf("PendingChunks after chunk 2 = %+v, %v", chunks, err)
		}
		if _, err := jobs.FinishChunk(ctx, s.Conn, op.ID, 9, c2, nil); !isNotFound(err) {
			t.Errorf("FinishChunk(missing chunk) = %v, want ErrNotFound", err)
		}

		// A chunk whose transaction rolls back stays pending and counts nothing.
		rollback := errors.New("rollback")
		err = s.Tx(ctx, func(c *storage.Conn) error {
			if done, err := jobs.FinishChunk(ctx, c, op.ID, 1, c2, itemErrors("a", 1)); err != nil || !done {
				t.Errorf("FinishChunk(1) in a rolled back transaction = %v, %v", done, err)
			}
			return rollback
		})
		if !errors.Is(err, rollback) {
			t.Fatalf("Tx = %v", err)
		}
		if got := operation(t, s, 1, op.ID); got.ChunksDone != 1 || got.ReadCount != 100 {
			t.Errorf("after a rolled back chunk = %+v", got)
		}

		c1 := jobs.ChunkCounts{Read: 50, Write: 50, Created: 50, Millis: 30}
		if done, err := jobs.FinishChunk(ctx, s.Conn, op.ID, 1, c1, nil); err != nil || !done {
			t.Fatalf("FinishChunk(1) = %v, %v", done, err)
		}
		got = operation(t, s, 1, op.ID)
		want := jobs.Operation{ChunkCount: 2, ChunksDone: 2, ReadCount: 150, WriteCount: 148, ErrorCount: 2,
			CreateCount: 140, UpdateCount: 8, AggregateMS: 150, Status: jobs.StatusSuccess}
		if got.Status != want.Status || got.ChunkCount != want.ChunkCount || got.ChunksDone != want.ChunksDone ||
			got.ReadCount != want.ReadCount || got.WriteCount != want.WriteCount || got.ErrorCount != want.ErrorCount ||
			got.CreateCount != want.CreateCount || got.UpdateCount != want.UpdateCount || got.AggregateMS != want.AggregateMS {
			t.Errorf("finished operation = %+v, want counts of %+v", got, want)
		}
		if got.FinishedAt == nil || got.FinishedAt.Before(*got.StartedAt) || got.FinishedAt.Location() != time.UTC {
			t.Errorf("finished_at = %v (started %v)", got.FinishedAt, got.StartedAt)
		}
		if chunks, err := jobs.PendingChunks(ctx, s.Conn, op.ID); err != nil || len(chunks) != 0 {
			t.Errorf("PendingChunks after success = %+v, %v", chunks, err)
		}

		for name, err := range map[string]error{
			"StartOperation":  jobs.StartOperation(ctx, s.Conn, op.ID),
			"CancelOperation": jobs.CancelOperation(ctx, s.Conn, 1, op.ID),
			"FailOperation":   jobs.FailOperation(ctx, s.Conn, op.ID, jobs.OperationError{Status: 500, Title: "x"}),
		} {
			if !errors.Is(err, jobs.ErrFinished) {
				t.Errorf("%s on a finished operation = %v, want ErrFinished", name, err)
			}
		}
	})
}

func TestOperationVisibilityAndCancel(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		id, err := s.Insert(ctx, storagetest.Table(t, s, "organizations"), 0, storage.Row{"name": "Other", "enabled": true})
		if err != nil {
			t.Fatal(err)
		}
		other := id.(int64) // another organization
		op := stageOperation(t, s, 1, nil, 2, true)
		if _, err := jobs.LoadOperation(ctx, s.Conn, other, op.ID); !isNotFound(err) {
			t.Errorf("Operation(other organization) = %v, want ErrNotFound", err)
		}
		if _, err := jobs.LoadOperation(ctx, s.Conn, 1, op.ID+1000); !isNotFound(err) {
			t.Errorf("Operation(missing) = %v, want ErrNotFound", err)
		}
		if err := jobs.CancelOperation(ctx, s.Conn, other, op.ID); !isNotFound(err) {
			t.Errorf("CancelOperation(other organization) = %v, want ErrNotFound", err)
		}
		staging := stageOperation(t, s, 1, nil, 1, false)
		if err := jobs.CancelOperation(ctx, s.Conn, 1, staging.ID); !isNotFound(err) {
			t.Errorf("CancelOperation(staging) = %v, want ErrNotFound", err)
		}

		// new -> cancelled.
		if err := jobs.CancelOperation(ctx, s.Conn, 1, op.ID); err != nil {
			t.Fatalf("CancelOperation(new): %v", err)
		}
		got := operation(t, s, 1, op.ID)
		if got.Status != jobs.StatusCancelled || got.FinishedAt == nil {
			t.Errorf("cancelled operation = %+v", got)
		}
		if err := jobs.CancelOperation(ctx, s.Conn, 1, op.ID); !errors.Is(err, jobs.ErrFinished) {
			t.Errorf("second CancelOperation = %v, want ErrFinished", err)
		}
		if err := jobs.StartOperation(ctx, s.Conn, op.ID); !errors.Is(err, jobs.ErrFinished) {
			t.Errorf("StartOperation(cancelled) = %v, want ErrFinished", err)
		}

		// running -> cancelled; chunks finishing afterwards count but the
		// operation stays cancelled.
		run := stageOperation(t, s, 1, nil, 2, true)
		if err := jobs.StartOperation(ctx, s.Conn, run.ID); err != nil {
			t.Fatal(err)
		}
		if done, err := jobs.FinishChunk(ctx, s.Conn, run.ID, 1, jobs.ChunkCounts{Read: 1, Write: 1, Created: 1}, nil); err != nil || !done {
			t.Fatalf("FinishChunk(1) = %v, %v", done, err)
		}
		if err := jobs.CancelOperation(ctx, s.Conn, 1, run.ID); err != nil {
			t.Fatalf("CancelOperation(running): %v", err)
		}
		finished := operation(t, s, 1, run.ID).FinishedAt
		if done, err := jobs.FinishChunk(ctx, s.Conn, run.ID, 2, jobs.ChunkCounts{Read: 1, Write: 1, Created: 1}, nil); err != nil || !done {
			t.Fatalf("FinishChunk(2) after cancel = %v, %v", done, err)
		}
		got = operation(t, s, 1, run.ID)
		if got.Status != jobs.StatusCancelled || got.ChunksDone != 2 || got.WriteCount != 2 ||
			got.FinishedAt == nil || !got.FinishedAt.Equal(*finished) {
			t.Errorf("cancelled operation after its last chunk = %+v", got)
		}

		// A new operation whose chunk finishes without StartOperation runs.
		auto := stageOperation(t, s, 1, nil, 2, true)
		if _, err := jobs.FinishChunk(ctx, s.Conn, auto.ID, 1, jobs.ChunkCounts{}, nil); err != nil {
			t.Fatal(err)
		}
		if got := operation(t, s, 1, auto.ID); got.Status != jobs.StatusRunning || got.StartedAt == nil {
			t.Errorf("new operation after a chunk = %+v", got)
		}
	})
}

func TestOperationErrorsAndFailure(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		op := stageOperation(t, s, 1, nil, 2, true)
		if errs, err := jobs.Errors(ctx, s.Conn, op.ID, 0, 0); err != nil || len(errs) != 0 {
			t.Errorf("OperationErrors(none) = %+v, %v", errs, err)
		}
		if _, err := jobs.FinishChunk(ctx, s.Conn, op.ID, 2, jobs.ChunkCounts{Errors: 2}, itemErrors("b", 2)); err != nil {
			t.Fatal(err)
		}
		detail := "The value must not be blank."
		errs1 := itemErrors("a", 3)
		errs1[1].Detail, errs1[1].PropertyPath, errs1[1].N, errs1[1].Chunk = &detail, ptr("name"), 77, 9
		if _, err := jobs.FinishChunk(ctx, s.Conn, op.ID, 1, jobs.ChunkCounts{Errors: 3}, errs1); err != nil {
			t.Fatal(err)
		}
		// success: failing is refused.
		if err := jobs.FailOperation(ctx, s.Conn, op.ID, jobs.OperationError{Status: 500, Title: "x"}); !errors.Is(err, jobs.ErrFinished) {
			t.Errorf("FailOperation(success) = %v, want ErrFinished", err)
		}

		all, err := jobs.Errors(ctx, s.Conn, op.ID, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		keys := errorKeys(all)
		want := []string{"1-1 /data/a0/attributes/name", "1-2 /data/a1/attributes/name", "1-3 /data/a2/attributes/name",
			"2-1 /data/b0/attributes/name", "2-2 /data/b1/attributes/name"}
		if !reflect.DeepEqual(keys, want) {
			t.Errorf("OperationErrors = %v, want %v", keys, want)
		}
		if e := all[1]; e.OperationID != op.ID || e.Status != 400 || e.Title != "not blank constraint" ||
			e.Detail == nil || *e.Detail != detail || e.PropertyPath == nil || *e.PropertyPath != "name" || all[0].Detail != nil {
			t.Errorf("error 1-2 = %+v", e)
		}
		for _, tc := range []struct{ limit, offset, first, n int }{
			{2, 0, 0, 2}, {2, 2, 2, 2}, {2, 4, 4, 1}, {0, 3, 3, 2}, {10, 5, 0, 0},
		} {
			page, err := jobs.Errors(ctx, s.Conn, op.ID, tc.limit, tc.offset)
			if err != nil || len(page) != tc.n || (tc.n > 0 && !reflect.DeepEqual(page[0], all[tc.first])) {
				t.Errorf("OperationErrors(limit %d, offset %d) = %d errors, %v", tc.limit, tc.offset, len(page), err)
			}
		}
		if n, err := jobs.CountErrors(ctx, s.Conn, op.ID); err != nil || n != 5 {
			t.Errorf("CountOperationErrors = %d, %v; want 5", n, err)
		}

		// failed: the whole request's error comes first, as chunk 0.
		bad := stageOperation(t, s, 1, nil, 1, true)
		if err := jobs.StartOperation(ctx, s.Conn, bad.ID); err != nil {
			t.Fatal(err)
		}
		if err := jobs.FailOperation(ctx, s.Conn, bad.ID, jobs.OperationError{Status: 500, Title: "runtime exception", N: 5}); err != nil {
			t.Fatalf("FailOperation: %v", err)
		}
		got := operation(t, s, 1, bad.ID)
		if got.Status != jobs.StatusFailed || got.FinishedAt == nil {
			t.Errorf("failed operation = %+v", got)
		}
		if errs, err := jobs.Errors(ctx, s.Conn, bad.ID, 0, 0); err != nil || len(errs) != 1 ||
			errs[0].Chunk != 0 || errs[0].N != 1 || errs[0].Status != 500 || errs[0].Pointer != nil {
			t.Errorf("errors of the failed operation = %+v, %v", errs, err)
		}
		if err := jobs.FailOperation(ctx, s.Conn, bad.ID, jobs.OperationError{Status: 500, Title: "x"}); !errors.Is(err, jobs.ErrFinished) {
			t.Errorf("second FailOperation = %v, want ErrFinished", err)
		}
		if err := jobs.FailOperation(ctx, s.Conn, bad.ID+1000, jobs.OperationError{Status: 500, Title: "x"}); !isNotFound(err) {
			t.Errorf("FailOperation(missing) = %v, want ErrNotFound", err)
		}
		// A chunk of a failed operation still counts; the state stays.
		if done, err := jobs.FinishChunk(ctx, s.Conn, bad.ID, 1, jobs.ChunkCounts{Read: 1}, nil); err != nil || !done {
			t.Errorf("FinishChunk(failed operation) = %v, %v", done, err)
		}
		if got := operation(t, s, 1, bad.ID); got.Status != jobs.StatusFailed {
			t.Errorf("failed operation after its chunk = %+v", got)
		}
	})
}

func TestOperationCleanup(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		owner := newOwner(t, s, "cleanup-owner")
		finished := stageOperation(t, s, 1, &owner, 2, true)
		if _, err := jobs.FinishChunk(ctx, s.Conn, finished.ID, 1, jobs.ChunkCounts{Errors: 1}, itemErrors("a", 1)); err != nil {
			t.Fatal(err)
		}
		if err := jobs.CancelOperation(ctx, s.Conn, 1, finished.ID); err != nil {
			t.Fatal(err)
		}
		running := stageOperation(t, s, 1, &owner, 1, true)
		staging := stageOperation(t, s, 1, &owner, 1, false)

		// Deleting the owner keeps the operations, without owner.
		if err := s.Delete(ctx, storagetest.Table(t, s, "users"), 1, owner); err != nil {
			t.Fatalf("delete owner: %v", err)
		}
		if got := operation(t, s, 1, running.ID); got.OwnerID != nil {
			t.Errorf("owner after deleting the user = %v", *got.OwnerID)
		}

		if n, err := jobs.DeleteFinishedBefore(ctx, s.Conn, time.Now().Add(-time.Hour)); err != nil || n != 0 {
			t.Errorf("DeleteOperationsFinishedBefore(an hour ago) = %d, %v", n, err)
		}
		n, err := jobs.DeleteFinishedBefore(ctx, s.Conn, time.Now().Add(2*time.Second))
		if err != nil || n != 1 {
			t.Fatalf("DeleteOperationsFinishedBefore(soon) = %d, %v; want 1", n, err)
		}
		if _, err := jobs.LoadOperation(ctx, s.Conn, 1, finished.ID); !isNotFound(err) {
			t.Errorf("Operation(deleted) = %v, want ErrNotFound", err)
		}
		// Its chunks and errors went with it.
		if chunks, err := jobs.PendingChunks(ctx, s.Conn, finished.ID); err != nil || len(chunks) != 0 {
			t.Errorf("PendingChunks(deleted) = %+v, %v", chunks, err)
		}
		if n, err := jobs.CountErrors(ctx, s.Conn, finished.ID); err != nil || n != 0 {
			t.Errorf("CountOperationErrors(deleted) = %d, %v", n, err)
		}
		operation(t, s, 1, running.ID)
		if ids, err := jobs.StaleStaging(ctx, s.Conn, time.Now().Add(2*time.Second)); err != nil || !reflect.DeepEqual(ids, []int64{staging.ID}) {
			t.Errorf("StaleStaging = %v, %v; want [%d]", ids, err, staging.ID)
		}
	})
}

// TestStagedItemsKeepTheirBytes: a staged chunk reads back exactly as sent (key
// order, duplicate keys, escapes), since pointers and item validation read it.
func TestStagedItemsKeepTheirBytes(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		op := &jobs.Operation{OrganizationID: 1, EntityType: "accounts"}
		if err := jobs.CreateOperation(ctx, s.Conn, op); err != nil {
			t.Fatal(err)
		}
		raw := json.RawMessage(`[{"index":0,"raw":{"type":"accounts","attributes":{"name":"a\u0000b","name":"z","b":1,"a":2}}}]`)
		if err := jobs.StageChunk(ctx, s.Conn, &jobs.Chunk{OperationID: op.ID, Number: 1, Items: raw}); err != nil {
			t.Fatal(err)
		}
		if err := jobs.PublishOperation(ctx, s.Conn, op.ID, 1, nil); err != nil {
			t.Fatal(err)
		}
		chunks, err := jobs.PendingChunks(ctx, s.Conn, op.ID)
		if err != nil || len(chunks) != 1 {
			t.Fatalf("PendingChunks: %v %v", chunks, err)
		}
		if string(chunks[0].Items) != string(raw) {
			t.Errorf("staged items changed:\n got %s\nwant %s", chunks[0].Items, raw)
		}
	})
}
