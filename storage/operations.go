package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/uptrace/bun"
)

// This file holds the typed queries of asynchronous batch operations
// (DESIGN.md §7): staging the chunks of a request, publishing the operation,
// recording each chunk's outcome exactly once, cancelling, failing, reading
// the errors and cleaning up. Like every typed query they are methods of Conn,
// so a worker records a chunk's outcome in the transaction of its writes.

// The states of an operation (AsyncOperation.Status). Staging operations are
// invisible; success, failed and cancelled are final.
const (
	OperationStaging   = "staging"
	OperationNew       = "new"
	OperationRunning   = "running"
	OperationSuccess   = "success"
	OperationFailed    = "failed"
	OperationCancelled = "cancelled"
)

// ErrFinished reports a change to an operation that has already ended
// (success, failed or cancelled).
var ErrFinished = errors.New("storage: operation already finished")

// ChunkCounts is what one chunk adds to its operation's summary: items read,
// written, failed, created and updated, and the milliseconds spent.
type ChunkCounts struct {
	Read, Write, Errors, Created, Updated int
	Millis                                int64
}

const (
	opTable    = "async_operations"
	chunkTable = "async_operation_chunks"
	errTable   = "async_operation_errors"
)

// finalStatuses are the states an operation never leaves.
var finalStatuses = []string{OperationSuccess, OperationFailed, OperationCancelled}

// CreateOperation inserts op as a staging operation and sets op.ID; op needs
// OrganizationID and EntityType (OwnerID is optional). Status, counts and
// times are set here, whatever op held. A missing organization or owner is a
// *ForeignKeyError.
func (c *Conn) CreateOperation(ctx context.Context, op *AsyncOperation) error {
	if op.OrganizationID == 0 || op.EntityType == "" {
		return errors.New("storage: an operation needs an organization and an entity type")
	}
	ts := now()
	*op = AsyncOperation{ID: 0, OrganizationID: op.OrganizationID, OwnerID: op.OwnerID, EntityType: op.EntityType,
		Status: OperationStaging, CreatedAt: ts, UpdatedAt: ts}
	return c.atomic(ctx, func(c *Conn) error {
		_, err := c.idb.NewInsert().Model(op).Exec(ctx)
		return c.s.mapError("insert", opTable, err)
	})
}

// StageChunk stores one chunk of a staging operation (Done is stored false)
// and touches the operation's updated_at, so that StaleStaging sees an upload
// that still progresses as alive. Chunk numbers start at 1. ErrNotFound when
// the operation is missing or no longer staging; a number staged twice is a
// *UniqueError.
func (c *Conn) StageChunk(ctx context.Context, ch *AsyncOperationChunk) error {
	return c.StageChunks(ctx, []*AsyncOperationChunk{ch})
}

// StageChunks is StageChunk for chunks of one operation, all or none, with
// the statements of one: an upload stages the chunks it has split while the
// last ones were being written, so that a slow write (a round trip per
// statement to PostgreSQL) does not cost one transaction per chunk.
func (c *Conn) StageChunks(ctx context.Context, chunks []*AsyncOperationChunk) error {
	if len(chunks) == 0 {
		return nil
	}
	for _, ch := range chunks {
		if ch.Number < 1 || len(ch.Items) == 0 {
			return fmt.Errorf("storage: chunk %d: chunks are numbered from 1 and need items", ch.Number)
		}
		if ch.OperationID != chunks[0].OperationID {
			return fmt.Errorf("storage: chunks of operations %d and %d staged together", chunks[0].OperationID, ch.OperationID)
		}
		ch.Done = false
	}
	return c.atomic(ctx, func(c *Conn) error {
		res, err := c.idb.NewUpdate().Table(opTable).
			Set("updated_at = ?", now()).
			Where("id = ? AND status = ?", chunks[0].OperationID, OperationStaging).Exec(ctx)
		if err := updated(c.s, opTable, res, err); err != nil {
			return err
		}
		if len(chunks) == 1 {
			_, err = c.idb.NewInsert().Model(chunks[0]).Exec(ctx)
		} else {
			_, err = c.idb.NewInsert().Model(&chunks).Exec(ctx)
		}
		return c.s.mapError("insert", chunkTable, err)
	})
}

// PublishOperation ends the staging of an operation: it becomes new, with
// chunks chunks, and visible. chunks must be the number of staged chunks
// (at least 1). ErrNotFound when there is no staging operation id.
func (c *Conn) PublishOperation(ctx context.Context, id int64, chunks int) error {
	if chunks < 1 {
		return fmt.Errorf("storage: publish operation %d: %d chunks (want at least 1)", id, chunks)
	}
	return c.atomic(ctx, func(c *Conn) error {
		staged, err := c.idb.NewSelect().Table(chunkTable).Where("operation_id = ?", id).Count(ctx)
		if err != nil {
			return c.s.mapError("count", chunkTable, err)
		}
		res, err := c.idb.NewUpdate().Table(opTable).
			Set("status = ?", OperationNew).
			Set("chunk_count = ?", chunks).
			Set("updated_at = ?", now()).
			Where("id = ? AND status = ?", id, OperationStaging).Exec(ctx)
		if err := updated(c.s, opTable, res, err); err != nil {
			return err
		}
		if staged != int64(chunks) {
			return fmt.Errorf("storage: publish operation %d: %d chunks staged, %d announced", id, staged, chunks)
		}
		return nil
	})
}

// Operation loads an operation of organization org; ErrNotFound when there
// is none, it belongs to another organization, or it is still staging.
func (c *Conn) Operation(ctx context.Context, org, id int64) (*AsyncOperation, error) {
	op := new(AsyncOperation)
	err := c.one(ctx, op, opTable, "id = ? AND organization_id = ? AND status <> ?", id, org, OperationStaging)
	if err != nil {
		return nil, err
	}
	return op.utc(), nil
}

// PendingChunks returns the chunks of an operation that are not done, by
// number (none: empty).
func (c *Conn) PendingChunks(ctx context.Context, opID int64) ([]AsyncOperationChunk, error) {
	chunks := []AsyncOperationChunk{}
	err := c.idb.NewSelect().Model(&chunks).
		Where("operation_id = ? AND done = ?", opID, false).
		OrderExpr("number ASC").Scan(ctx)
	if err != nil {
		return nil, c.s.mapError("select", chunkTable, err)
	}
	return chunks, nil
}

// StartOperation makes a new operation running and sets started_at; on a
// running one it does nothing. ErrFinished when it has ended, ErrNotFound
// when it is missing or still staging.
func (c *Conn) StartOperation(ctx context.Context, id int64) error {
	return c.atomic(ctx, func(c *Conn) error {
		ts := now()
		res, err := c.idb.NewUpdate().Table(opTable).
			Set("status = ?", OperationRunning).
			Set("started_at = ?", ts).
			Set("updated_at = ?", ts).
			Where("id = ? AND status = ?", id, OperationNew).Exec(ctx)
		err = updated(c.s, opTable, res, err)
		if !errors.Is(err, ErrNotFound) {
			return err
		}
		status, err := c.operationStatus(ctx, id)
		switch {
		case err != nil:
			return err
		case status == OperationRunning:
			return nil
		case status == OperationStaging:
			return ErrNotFound
		}
		return ErrFinished
	})
}

// FinishChunk records the outcome of one chunk, in the caller's transaction
// (the one of the chunk's writes) or one of its own: it marks the chunk done
// and drops its items, stores errs as the chunk's errors (numbered 1, 2, ...
// in the given order; their OperationID, Chunk and N are set here), adds
// counts to the operation and counts the chunk as done. A new operation
// becomes running; when its last chunk is done a new or running operation
// becomes success and gets finished_at (a cancelled or failed one keeps its
// state, and still gets the counts of writes that happened).
//
// A chunk already done changes nothing: done is false and err nil, so a
// chunk re-run after a crash has no double effect (the caller then rolls back
// its writes). On PostgreSQL a concurrent run of the same chunk waits for
// this one's transaction and then sees the chunk done. ErrNotFound when
// there is no such chunk.
func (c *Conn) FinishChunk(ctx context.Context, opID int64, number int, counts ChunkCounts, errs []AsyncOperationError) (done bool, err error) {
	return c.FinishChunks(ctx, opID, []ChunkOutcome{{Number: number, Counts: counts, Errors: errs}})
}

// ChunkOutcome is the outcome of one chunk, as FinishChunks records it.
type ChunkOutcome struct {
	Number int
	Counts ChunkCounts
	Errors []AsyncOperationError
}

// FinishChunks records the outcomes of several chunks of one operation (each
// number once) as FinishChunk records one, with a fixed number of statements
// whatever their number: a job of the queue writes its chunks in one
// transaction and records them together. When any of them is already done,
// done is false and err nil: in the caller's transaction the caller must then
// roll back (the other chunks may have been marked), in one of its own
// nothing is changed. ErrNotFound when a chunk is missing.
func (c *Conn) FinishChunks(ctx context.Context, opID int64, outcomes []ChunkOutcome) (done bool, err error) {
	if len(outcomes) == 0 {
		return true, nil
	}
	numbers := make([]int, len(outcomes))
	var total ChunkCounts
	var errs []AsyncOperationError
	for i, o := range outcomes {
		numbers[i] = o.Number
		total.Read += o.Counts.Read
		total.Write += o.Counts.Write
		total.Errors += o.Counts.Errors
		total.Created += o.Counts.Created
		total.Updated += o.Counts.Updated
		total.Millis += o.Counts.Millis
		for n, e := range o.Errors {
			e.OperationID, e.Chunk, e.N = opID, o.Number, n+1
			errs = append(errs, e)
		}
	}
	errNotAll := errors.New("storage: a chunk is already done")
	err = c.atomic(ctx, func(c *Conn) error {
		q := c.idb.NewUpdate().Table(chunkTable).
			Set("done = ?", true).
			Set("items = '[]'").
			Set("included = NULL")
		if len(numbers) == 1 {
			q = q.Where("operation_id = ? AND number = ? AND done = ?", opID, numbers[0], false)
		} else {
			q = q.Where("operation_id = ? AND number IN (?) AND done = ?", opID, bun.In(numbers), false)
		}
		res, err := q.Exec(ctx)
		if err != nil {
			return c.s.mapError("update", chunkTable, err)
		}
		marked, err := res.RowsAffected()
		if err != nil {
			return c.s.mapError("update", chunkTable, err)
		}
		if marked != int64(len(numbers)) {
			n, cerr := c.idb.NewSelect().Table(chunkTable).
				Where("operation_id = ? AND number IN (?)", opID, bun.In(numbers)).Count(ctx)
			if cerr != nil {
				return c.s.mapError("count", chunkTable, cerr)
			}
			if n < int64(len(numbers)) {
				return ErrNotFound
			}
			return errNotAll // already done
		}
		if len(errs) > 0 {
			if _, err := c.idb.NewInsert().Model(&errs).Exec(ctx); err != nil {
				return c.s.mapError("insert", errTable, err)
			}
		}
		ts := now()
		k := len(numbers)
		// Every right-hand side reads the row as it was before the update.
		_, err = c.idb.NewUpdate().Table(opTable).
			Set("read_count = read_count + ?", total.Read).
			Set("write_count = write_count + ?", total.Write).
			Set("error_count = error_count + ?", total.Errors).
			Set("create_count = create_count + ?", total.Created).
			Set("update_count = update_count + ?", total.Updated).
			Set("aggregate_ms = aggregate_ms + ?", total.Millis).
			Set("chunks_done = chunks_done + ?", k).
			Set("status = CASE WHEN status IN (?, ?) AND chunks_done + ? >= chunk_count THEN ? WHEN status = ? THEN ? ELSE status END",
				OperationNew, OperationRunning, k, OperationSuccess, OperationNew, OperationRunning).
			Set("started_at = CASE WHEN started_at IS NULL AND status IN (?, ?) THEN ? ELSE started_at END",
				OperationNew, OperationRunning, ts).
			Set("finished_at = CASE WHEN finished_at IS NULL AND status IN (?, ?) AND chunks_done + ? >= chunk_count THEN ? ELSE finished_at END",
				OperationNew, OperationRunning, k, ts).
			Set("updated_at = ?", ts).
			Where("id = ?", opID).Exec(ctx)
		if err != nil {
			return c.s.mapError("update", opTable, err)
		}
		return nil
	})
	if errors.Is(err, errNotAll) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, nil
}

// FailOperation ends an operation that could not be processed: it becomes
// failed with finished_at, and e is recorded as an error of the whole request
// (chunk 0, the next n there; e's OperationID, Chunk and N are set here).
// This works from staging too, which makes the operation visible. ErrFinished
// when it has already ended, ErrNotFound when it is missing.
func (c *Conn) FailOperation(ctx context.Context, id int64, e AsyncOperationError) error {
	return c.atomic(ctx, func(c *Conn) error {
		ts := now()
		res, err := c.idb.NewUpdate().Table(opTable).
			Set("status = ?", OperationFailed).
			Set("finished_at = ?", ts).
			Set("updated_at = ?", ts).
			Where("id = ? AND status NOT IN (?)", id, bun.In(finalStatuses)).Exec(ctx)
		if err := updated(c.s, opTable, res, err); err != nil {
			if !errors.Is(err, ErrNotFound) {
				return err
			}
			if _, err := c.operationStatus(ctx, id); err != nil {
				return err
			}
			return ErrFinished
		}
		var last int
		err = c.idb.NewSelect().Table(errTable).ColumnExpr("COALESCE(MAX(n), 0)").
			Where("operation_id = ? AND chunk = 0", id).Scan(ctx, &last)
		if err != nil {
			return c.s.mapError("select", errTable, err)
		}
		e.OperationID, e.Chunk, e.N = id, 0, last+1
		_, err = c.idb.NewInsert().Model(&e).Exec(ctx)
		return c.s.mapError("insert", errTable, err)
	})
}

// CancelOperation cancels a new or running operation of organization org:
// it becomes cancelled with finished_at; chunks not yet done are no longer
// to be processed (a chunk that finishes anyway still adds its counts).
// ErrFinished when it has already ended; ErrNotFound when it is missing, of
// another organization or still staging.
func (c *Conn) CancelOperation(ctx context.Context, org, id int64) error {
	return c.atomic(ctx, func(c *Conn) error {
		ts := now()
		res, err := c.idb.NewUpdate().Table(opTable).
			Set("status = ?", OperationCancelled).
			Set("finished_at = ?", ts).
			Set("updated_at = ?", ts).
			Where("id = ? AND organization_id = ? AND status IN (?, ?)", id, org, OperationNew, OperationRunning).Exec(ctx)
		err = updated(c.s, opTable, res, err)
		if !errors.Is(err, ErrNotFound) {
			return err
		}
		if _, err := c.Operation(ctx, org, id); err != nil {
			return err
		}
		return ErrFinished
	})
}

// OperationErrors returns a page of an operation's errors in chunk, then n
// order; limit 0 means no limit. None: empty.
func (c *Conn) OperationErrors(ctx context.Context, opID int64, limit, offset int) ([]AsyncOperationError, error) {
	errs := []AsyncOperationError{}
	q := c.idb.NewSelect().Model(&errs).
		Where("operation_id = ?", opID).
		OrderExpr("chunk ASC, n ASC")
	if limit > 0 {
		q = q.Limit(int64(limit))
	}
	if offset > 0 {
		if limit <= 0 && c.s.sqlite() {
			q = q.Limit(math.MaxInt64) // SQLite has OFFSET only after a LIMIT (Bun drops -1)
		}
		q = q.Offset(int64(offset))
	}
	if err := q.Scan(ctx); err != nil {
		return nil, c.s.mapError("select", errTable, err)
	}
	return errs, nil
}

// CountOperationErrors returns how many errors an operation has.
func (c *Conn) CountOperationErrors(ctx context.Context, opID int64) (int, error) {
	n, err := c.idb.NewSelect().Table(errTable).Where("operation_id = ?", opID).Count(ctx)
	if err != nil {
		return 0, c.s.mapError("count", errTable, err)
	}
	return int(n), nil
}

// DeleteOperationsFinishedBefore deletes the operations that ended before t
// and have not changed since (with their chunks and errors) and returns how
// many it deleted: the periodic cleanup after the operation lifetime.
func (c *Conn) DeleteOperationsFinishedBefore(ctx context.Context, t time.Time) (int, error) {
	var n int64
	err := c.atomic(ctx, func(c *Conn) error {
		res, err := c.idb.NewDelete().Table(opTable).
			Where("status IN (?) AND updated_at < ? AND finished_at < ?", bun.In(finalStatuses), t.UTC(), t.UTC()).Exec(ctx)
		if err != nil {
			return c.s.mapError("delete", opTable, err)
		}
		n, err = res.RowsAffected()
		return err
	})
	return int(n), err
}

// StaleStaging returns the ids of staging operations untouched (neither
// created nor given a chunk) since before, in id order: uploads that were
// abandoned, or whose process died before publishing them.
func (c *Conn) StaleStaging(ctx context.Context, before time.Time) ([]int64, error) {
	ids := []int64{}
	err := c.idb.NewSelect().Table(opTable).Column("id").
		Where("status = ? AND updated_at < ?", OperationStaging, before.UTC()).
		OrderExpr("id ASC").Scan(ctx, &ids)
	if err != nil {
		return nil, c.s.mapError("select", opTable, err)
	}
	return ids, nil
}

// operationStatus returns an operation's state, staging included;
// ErrNotFound when it is missing.
func (c *Conn) operationStatus(ctx context.Context, id int64) (string, error) {
	var status string
	err := c.idb.NewSelect().Table(opTable).Column("status").Where("id = ?", id).Limit(1).Scan(ctx, &status)
	if errors.Is(err, sql.ErrNoRows) {
		return "", ErrNotFound
	}
	if err != nil {
		return "", c.s.mapError("select", opTable, err)
	}
	return status, nil
}

// updated maps an update's error, or ErrNotFound when it matched no row.
func updated(s *Store, table string, res sql.Result, err error) error {
	if err != nil {
		return s.mapError("update", table, err)
	}
	return affected(res, 1)
}

// utc gives the operation's times in UTC, as every time storage returns is.
func (op *AsyncOperation) utc() *AsyncOperation {
	op.CreatedAt, op.UpdatedAt = op.CreatedAt.UTC(), op.UpdatedAt.UTC()
	for _, p := range []*time.Time{op.StartedAt, op.FinishedAt} {
		if p != nil {
			*p = p.UTC()
		}
	}
	return op
}

// Chunk loads one chunk of an operation, done or not; ErrNotFound when there
// is none.
func (c *Conn) Chunk(ctx context.Context, opID int64, number int) (*AsyncOperationChunk, error) {
	ch := new(AsyncOperationChunk)
	err := c.idb.NewSelect().Model(ch).Where("operation_id = ? AND number = ?", opID, number).Limit(1).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, c.s.mapError("select", chunkTable, err)
	}
	return ch, nil
}

// Chunks loads the chunks of an operation numbered from first to
// first+count-1, done or not, by number; missing ones are left out.
func (c *Conn) Chunks(ctx context.Context, opID int64, first, count int) ([]AsyncOperationChunk, error) {
	chunks := []AsyncOperationChunk{}
	err := c.idb.NewSelect().Model(&chunks).
		Where("operation_id = ? AND number >= ? AND number < ?", opID, first, first+count).
		OrderExpr("number ASC").Scan(ctx)
	if err != nil {
		return nil, c.s.mapError("select", chunkTable, err)
	}
	return chunks, nil
}

// PendingChunkNumbers returns the numbers of an operation's chunks that are
// not done, in order (none: empty).
func (c *Conn) PendingChunkNumbers(ctx context.Context, opID int64) ([]int, error) {
	numbers := []int{}
	err := c.idb.NewSelect().Table(chunkTable).Column("number").
		Where("operation_id = ? AND done = ?", opID, false).
		OrderExpr("number ASC").Scan(ctx, &numbers)
	if err != nil {
		return nil, c.s.mapError("select", chunkTable, err)
	}
	return numbers, nil
}

// DeleteOperation deletes an operation in any state with its chunks and
// errors: an upload that failed or was abandoned, or a synchronous batch
// answered in time. ErrNotFound when it is missing.
func (c *Conn) DeleteOperation(ctx context.Context, id int64) error {
	return c.atomic(ctx, func(c *Conn) error {
		for _, table := range []string{errTable, chunkTable} {
			if _, err := c.idb.NewDelete().Table(table).Where("operation_id = ?", id).Exec(ctx); err != nil {
				return c.s.mapError("delete", table, err)
			}
		}
		res, err := c.idb.NewDelete().Table(opTable).Where("id = ?", id).Exec(ctx)
		if err != nil {
			return c.s.mapError("delete", opTable, err)
		}
		return affected(res, 1)
	})
}

// StalledOperations returns the new and running operations unchanged since
// before, oldest first: their chunks were never enqueued or their process
// died (see Queue.maintain).
func (c *Conn) StalledOperations(ctx context.Context, before time.Time) ([]AsyncOperation, error) {
	ops := []AsyncOperation{}
	err := c.idb.NewSelect().Model(&ops).
		Where("status IN (?, ?) AND updated_at < ?", OperationNew, OperationRunning, before.UTC()).
		OrderExpr("id ASC").Limit(1000).Scan(ctx)
	if err != nil {
		return nil, c.s.mapError("select", opTable, err)
	}
	return ops, nil
}

// TouchOperation sets an operation's updated_at to now, so that a stalled
// operation whose chunks were just re-enqueued is not re-enqueued again at
// once. ErrNotFound when it is missing.
func (c *Conn) TouchOperation(ctx context.Context, id int64) error {
	return c.atomic(ctx, func(c *Conn) error {
		res, err := c.idb.NewUpdate().Table(opTable).Set("updated_at = ?", now()).Where("id = ?", id).Exec(ctx)
		return updated(c.s, opTable, res, err)
	})
}

// OpenSyncOperation makes a synchronous batch that outlived its wait visible
// (DESIGN.md §7): op (OrganizationID, OwnerID, EntityType) is inserted as a
// running operation of one chunk that has no staged items, since the
// request's own goroutine still holds them. Its end is recorded by
// EndSyncOperation, in the transaction of its writes.
func (c *Conn) OpenSyncOperation(ctx context.Context, op *AsyncOperation) error {
	if op.OrganizationID == 0 || op.EntityType == "" {
		return errors.New("storage: an operation needs an organization and an entity type")
	}
	ts := now()
	*op = AsyncOperation{OrganizationID: op.OrganizationID, OwnerID: op.OwnerID, EntityType: op.EntityType,
		Status: OperationRunning, ChunkCount: 1, CreatedAt: ts, UpdatedAt: ts, StartedAt: &ts}
	return c.atomic(ctx, func(c *Conn) error {
		_, err := c.idb.NewInsert().Model(op).Exec(ctx)
		return c.s.mapError("insert", opTable, err)
	})
}

// EndSyncOperation records the end of an operation opened by
// OpenSyncOperation: success with counts, or failed with counts and errs
// (chunk 1, numbered in order). ErrFinished when it has already ended (it
// was cancelled: the caller then rolls its writes back).
func (c *Conn) EndSyncOperation(ctx context.Context, id int64, success bool, counts ChunkCounts, errs []AsyncOperationError) error {
	status := OperationFailed
	if success {
		status = OperationSuccess
	}
	return c.atomic(ctx, func(c *Conn) error {
		ts := now()
		res, err := c.idb.NewUpdate().Table(opTable).
			Set("status = ?", status).
			Set("read_count = ?", counts.Read).
			Set("write_count = ?", counts.Write).
			Set("error_count = ?", counts.Errors).
			Set("create_count = ?", counts.Created).
			Set("update_count = ?", counts.Updated).
			Set("aggregate_ms = ?", counts.Millis).
			Set("chunks_done = 1").
			Set("finished_at = ?", ts).
			Set("updated_at = ?", ts).
			Where("id = ? AND status = ?", id, OperationRunning).Exec(ctx)
		if err := updated(c.s, opTable, res, err); err != nil {
			if errors.Is(err, ErrNotFound) {
				if _, serr := c.operationStatus(ctx, id); serr != nil {
					return serr
				}
				return ErrFinished
			}
			return err
		}
		return c.insertErrors(ctx, id, 1, errs)
	})
}

// insertErrors stores errs as the errors of one chunk of an operation,
// numbered 1, 2, ... in order (their OperationID, Chunk and N are set here).
func (c *Conn) insertErrors(ctx context.Context, opID int64, chunk int, errs []AsyncOperationError) error {
	if len(errs) == 0 {
		return nil
	}
	rows := make([]AsyncOperationError, len(errs))
	for i, e := range errs {
		e.OperationID, e.Chunk, e.N = opID, chunk, i+1
		rows[i] = e
	}
	_, err := c.idb.NewInsert().Model(&rows).Exec(ctx)
	return c.s.mapError("insert", errTable, err)
}
