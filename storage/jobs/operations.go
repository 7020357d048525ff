// Package jobs keeps the batch work of entityapi (docs/decisions.md §7, §9): the
// records of asynchronous operations (their staged chunks, outcomes and
// errors) and the River queue whose jobs process the chunks. It sits beside
// storage, on storage's connections, transactions and errors, so that
// storage keeps only the generic tables; like storage it knows nothing of
// HTTP (the server hands the queue the function that processes a chunk).
package jobs

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/entityapi/entityapi/storage"
)

// This file holds the life of an operation: staging the chunks of a
// request, publishing it, recording each chunk's outcome exactly once,
// cancelling and failing (reads are in reads.go, housekeeping in
// cleanup.go). Every query takes the *storage.Conn to run on, the Store's or
// a transaction's, so a worker records a chunk's outcome in the transaction
// of its writes.

// The states of an operation (Operation.Status). Staging operations are
// invisible; success, failed and cancelled are final.
const (
	StatusStaging   = "staging"
	StatusNew       = "new"
	StatusRunning   = "running"
	StatusSuccess   = "success"
	StatusFailed    = "failed"
	StatusCancelled = "cancelled"
)

// ErrFinished reports a change to an operation that has already ended
// (success, failed or cancelled).
var ErrFinished = errors.New("jobs: operation already finished")

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
var finalStatuses = []string{StatusSuccess, StatusFailed, StatusCancelled}

// CreateOperation inserts op as a staging operation and sets op.ID; op needs
// OrganizationID and EntityType (OwnerID is optional). Status, counts and
// times are set here, whatever op held. A missing organization or owner is a
// *ForeignKeyError.
func CreateOperation(ctx context.Context, c *storage.Conn, op *Operation) error {
	if op.OrganizationID == 0 || op.EntityType == "" {
		return errors.New("jobs: an operation needs an organization and an entity type")
	}
	ts := storage.Now()
	*op = Operation{ID: 0, OrganizationID: op.OrganizationID, OwnerID: op.OwnerID, ClientID: op.ClientID, RequestID: op.RequestID, EntityType: op.EntityType,
		Status: StatusStaging, CreatedAt: ts, UpdatedAt: ts}
	return c.Atomic(ctx, func(c *storage.Conn) error {
		_, err := c.Bun().NewInsert().Model(op).Exec(ctx)
		return c.MapError("insert", opTable, err)
	})
}

// StageChunk stores one chunk of a staging operation (Done is stored false)
// and touches the operation's updated_at, so that StaleStaging sees an upload
// that still progresses as alive. Chunk numbers start at 1. storage.ErrNotFound when
// the operation is missing or no longer staging; a number staged twice is a
// *UniqueError.
func StageChunk(ctx context.Context, c *storage.Conn, ch *Chunk) error {
	return StageChunks(ctx, c, []*Chunk{ch})
}

// StageChunks is StageChunk for chunks of one operation, all or none, with
// the statements of one: an upload stages the chunks it has split while the
// last ones were being written, so that a slow write (a round trip per
// statement to PostgreSQL) does not cost one transaction per chunk.
func StageChunks(ctx context.Context, c *storage.Conn, chunks []*Chunk) error {
	if len(chunks) == 0 {
		return nil
	}
	for _, ch := range chunks {
		if ch.Number < 1 || len(ch.Items) == 0 {
			return fmt.Errorf("jobs: chunk %d: chunks are numbered from 1 and need items", ch.Number)
		}
		if ch.OperationID != chunks[0].OperationID {
			return fmt.Errorf("jobs: chunks of operations %d and %d staged together", chunks[0].OperationID, ch.OperationID)
		}
		ch.Done = false
	}
	return c.Atomic(ctx, func(c *storage.Conn) error {
		res, err := c.Bun().NewUpdate().Table(opTable).
			Set("updated_at = ?", storage.Now()).
			Where("id = ? AND status = ?", chunks[0].OperationID, StatusStaging).Exec(ctx)
		if err := c.Affected("update", opTable, res, err); err != nil {
			return err
		}
		// The items go as bound parameters: Bun would write each chunk's
		// JSON into the statement's text as a literal, escaped, for the
		// database to parse again; so many chunks go in several
		// statements, each within the databases' parameter limits.
		for rest := chunks; len(rest) > 0; {
			n := min(len(rest), storage.MaxParams/chunkParams)
			if err := insertChunks(ctx, c, rest[:n]); err != nil {
				return err
			}
			rest = rest[n:]
		}
		return nil
	})
}

// chunkParams is the parameters of one chunk's row (insertChunks).
const chunkParams = 5

// insertChunks writes chunks in one multi-row INSERT.
func insertChunks(ctx context.Context, c *storage.Conn, chunks []*Chunk) error {
	var text strings.Builder
	text.WriteString("INSERT INTO " + chunkTable + " (operation_id, number, items, included, done) VALUES ")
	args := make([]any, 0, chunkParams*len(chunks))
	for i, ch := range chunks {
		if i > 0 {
			text.WriteString(", ")
		}
		text.WriteString("(?, ?, ?, ?, ?)")
		var included any // NULL when the chunk has none
		if ch.Included != nil {
			included = string(ch.Included)
		}
		args = append(args, ch.OperationID, ch.Number, string(ch.Items), included, false)
	}
	_, err := c.Exec(ctx, text.String(), args...)
	return c.MapError("insert", chunkTable, err)
}

// PublishOperation ends the staging of an operation: it becomes new, with
// chunks chunks, and visible. chunks must be the number of staged chunks
// (at least 1). storage.ErrNotFound when there is no staging operation id.
// also, when not nil, runs last in the publishing transaction (a keyed
// upload keeps its answer there); its error rolls the publishing back.
func PublishOperation(ctx context.Context, c *storage.Conn, id int64, chunks int, also func(tx *storage.Conn) error) error {
	if chunks < 1 {
		return fmt.Errorf("jobs: publish operation %d: %d chunks (want at least 1)", id, chunks)
	}
	return c.Atomic(ctx, func(c *storage.Conn) error {
		staged, err := c.Bun().NewSelect().Table(chunkTable).Where("operation_id = ?", id).Count(ctx)
		if err != nil {
			return c.MapError("count", chunkTable, err)
		}
		res, err := c.Bun().NewUpdate().Table(opTable).
			Set("status = ?", StatusNew).
			Set("chunk_count = ?", chunks).
			Set("updated_at = ?", storage.Now()).
			Where("id = ? AND status = ?", id, StatusStaging).Exec(ctx)
		if err := c.Affected("update", opTable, res, err); err != nil {
			return err
		}
		if staged != int64(chunks) {
			return fmt.Errorf("jobs: publish operation %d: %d chunks staged, %d announced", id, staged, chunks)
		}
		if also != nil {
			return also(c)
		}
		return nil
	})
}

// LoadOperation loads an operation of organization org; storage.ErrNotFound when there
// is none, it belongs to another organization, or it is still staging.
func LoadOperation(ctx context.Context, c *storage.Conn, org, id int64) (*Operation, error) {
	op := new(Operation)
	err := c.One(ctx, op, opTable, "id = ? AND organization_id = ? AND status <> ?", id, org, StatusStaging)
	if err != nil {
		return nil, err
	}
	return op.utc(), nil
}

// StartOperation makes a new operation running and sets started_at; on a
// running one it does nothing. ErrFinished when it has ended, storage.ErrNotFound
// when it is missing or still staging.
func StartOperation(ctx context.Context, c *storage.Conn, id int64) error {
	return c.Atomic(ctx, func(c *storage.Conn) error {
		err := transition(ctx, c, StatusRunning, stampStarted, "id = ? AND status = ?", id, StatusNew)
		if !errors.Is(err, storage.ErrNotFound) {
			return err
		}
		status, err := operationStatus(ctx, c, id)
		switch {
		case err != nil:
			return err
		case status == StatusRunning:
			return nil
		case status == StatusStaging:
			return storage.ErrNotFound
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
// this one's transaction and then sees the chunk done. storage.ErrNotFound when
// there is no such chunk.
func FinishChunk(ctx context.Context, c *storage.Conn, opID int64, number int, counts ChunkCounts, errs []OperationError) (done bool, err error) {
	return FinishChunks(ctx, c, opID, []ChunkOutcome{{Number: number, Counts: counts, Errors: errs}})
}

// ChunkOutcome is the outcome of one chunk, as FinishChunks records it.
type ChunkOutcome struct {
	Number int
	Counts ChunkCounts
	Errors []OperationError
}

// FinishChunks records the outcomes of several chunks of one operation (each
// number once) as FinishChunk records one, with a fixed number of statements
// whatever their number: a job of the queue writes its chunks in one
// transaction and records them together. When any of them is already done,
// done is false and err nil: in the caller's transaction the caller must then
// roll back (the other chunks may have been marked), in one of its own
// nothing is changed. storage.ErrNotFound when a chunk is missing.
func FinishChunks(ctx context.Context, c *storage.Conn, opID int64, outcomes []ChunkOutcome) (done bool, err error) {
	if len(outcomes) == 0 {
		return true, nil
	}
	numbers := make([]int, len(outcomes))
	var total ChunkCounts
	var errs []OperationError
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
	errNotAll := errors.New("jobs: a chunk is already done")
	err = c.Atomic(ctx, func(c *storage.Conn) error {
		q := c.Bun().NewUpdate().Table(chunkTable).
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
			return c.MapError("update", chunkTable, err)
		}
		marked, err := res.RowsAffected()
		if err != nil {
			return c.MapError("update", chunkTable, err)
		}
		if marked != int64(len(numbers)) {
			n, cerr := c.Bun().NewSelect().Table(chunkTable).
				Where("operation_id = ? AND number IN (?)", opID, bun.In(numbers)).Count(ctx)
			if cerr != nil {
				return c.MapError("count", chunkTable, cerr)
			}
			if n < int64(len(numbers)) {
				return storage.ErrNotFound
			}
			return errNotAll // already done
		}
		if len(errs) > 0 {
			if _, err := c.Bun().NewInsert().Model(&errs).Exec(ctx); err != nil {
				return c.MapError("insert", errTable, err)
			}
		}
		ts := storage.Now()
		k := len(numbers)
		// Every right-hand side reads the row as it was before the update.
		_, err = setCounts(c.Bun().NewUpdate().Table(opTable), total, true).
			Set("chunks_done = chunks_done + ?", k).
			Set("status = CASE WHEN status IN (?, ?) AND chunks_done + ? >= chunk_count THEN ? WHEN status = ? THEN ? ELSE status END",
				StatusNew, StatusRunning, k, StatusSuccess, StatusNew, StatusRunning).
			Set("started_at = CASE WHEN started_at IS NULL AND status IN (?, ?) THEN ? ELSE started_at END",
				StatusNew, StatusRunning, ts).
			Set("finished_at = CASE WHEN finished_at IS NULL AND status IN (?, ?) AND chunks_done + ? >= chunk_count THEN ? ELSE finished_at END",
				StatusNew, StatusRunning, k, ts).
			Set("updated_at = ?", ts).
			Where("id = ?", opID).Exec(ctx)
		if err != nil {
			return c.MapError("update", opTable, err)
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
// when it has already ended, storage.ErrNotFound when it is missing.
func FailOperation(ctx context.Context, c *storage.Conn, id int64, e OperationError) error {
	return c.Atomic(ctx, func(c *storage.Conn) error {
		if err := transition(ctx, c, StatusFailed, stampFinished, "id = ? AND status NOT IN (?)", id, bun.In(finalStatuses)); err != nil {
			if !errors.Is(err, storage.ErrNotFound) {
				return err
			}
			if _, err := operationStatus(ctx, c, id); err != nil {
				return err
			}
			return ErrFinished
		}
		var last int
		err := c.Bun().NewSelect().Table(errTable).ColumnExpr("COALESCE(MAX(n), 0)").
			Where("operation_id = ? AND chunk = 0", id).Scan(ctx, &last)
		if err != nil {
			return c.MapError("select", errTable, err)
		}
		e.OperationID, e.Chunk, e.N = id, 0, last+1
		_, err = c.Bun().NewInsert().Model(&e).Exec(ctx)
		return c.MapError("insert", errTable, err)
	})
}

// CancelOperation cancels a new or running operation of organization org:
// it becomes cancelled with finished_at; chunks not yet done are no longer
// to be processed (a chunk that finishes anyway still adds its counts).
// ErrFinished when it has already ended; storage.ErrNotFound when it is missing, of
// another organization or still staging.
func CancelOperation(ctx context.Context, c *storage.Conn, org, id int64) error {
	return c.Atomic(ctx, func(c *storage.Conn) error {
		err := transition(ctx, c, StatusCancelled, stampFinished, "id = ? AND organization_id = ? AND status IN (?, ?)",
			id, org, StatusNew, StatusRunning)
		if !errors.Is(err, storage.ErrNotFound) {
			return err
		}
		if _, err := LoadOperation(ctx, c, org, id); err != nil {
			return err
		}
		return ErrFinished
	})
}

// The time columns a transition stamps besides updated_at.
const (
	stampStarted  = "started_at"
	stampFinished = "finished_at"
)

// transition moves the operations that where (with args) selects to status,
// stamping the time column stamp and updated_at with one time: a start or an
// end is recorded the same way wherever it happens. storage.ErrNotFound when
// where selects none, which the caller tells apart (ended, staging, missing).
func transition(ctx context.Context, c *storage.Conn, status, stamp, where string, args ...any) error {
	ts := storage.Now()
	res, err := c.Bun().NewUpdate().Table(opTable).
		Set("status = ?", status).
		Set(stamp+" = ?", ts).
		Set("updated_at = ?", ts).
		Where(where, args...).Exec(ctx)
	return c.Affected("update", opTable, res, err)
}

// operationStatus returns an operation's state, staging included;
// storage.ErrNotFound when it is missing.
func operationStatus(ctx context.Context, c *storage.Conn, id int64) (string, error) {
	var status string
	err := c.Bun().NewSelect().Table(opTable).Column("status").Where("id = ?", id).Limit(1).Scan(ctx, &status)
	if errors.Is(err, sql.ErrNoRows) {
		return "", storage.ErrNotFound
	}
	if err != nil {
		return "", c.MapError("select", opTable, err)
	}
	return status, nil
}

// utc gives the operation's times in UTC, as every time storage returns is.
func (op *Operation) utc() *Operation {
	op.CreatedAt, op.UpdatedAt = op.CreatedAt.UTC(), op.UpdatedAt.UTC()
	for _, p := range []*time.Time{op.StartedAt, op.FinishedAt} {
		if p != nil {
			*p = p.UTC()
		}
	}
	return op
}

// OpenSyncOperation makes a synchronous batch that outlived its wait visible
// (docs/decisions.md §7): op (OrganizationID, OwnerID, EntityType) is inserted as a
// running operation of one chunk that has no staged items, since the
// request's own goroutine still holds them. Its end is recorded by
// EndSyncOperation, in the transaction of its writes.
func OpenSyncOperation(ctx context.Context, c *storage.Conn, op *Operation) error {
	if op.OrganizationID == 0 || op.EntityType == "" {
		return errors.New("jobs: an operation needs an organization and an entity type")
	}
	ts := storage.Now()
	*op = Operation{OrganizationID: op.OrganizationID, OwnerID: op.OwnerID, ClientID: op.ClientID, RequestID: op.RequestID, EntityType: op.EntityType,
		Status: StatusRunning, ChunkCount: 1, CreatedAt: ts, UpdatedAt: ts, StartedAt: &ts}
	return c.Atomic(ctx, func(c *storage.Conn) error {
		_, err := c.Bun().NewInsert().Model(op).Exec(ctx)
		return c.MapError("insert", opTable, err)
	})
}

// EndSyncOperation records the end of an operation opened by
// OpenSyncOperation: success with counts, or failed with counts and errs
// (chunk 1, numbered in order). ErrFinished when it has already ended (it
// was cancelled: the caller then rolls its writes back).
func EndSyncOperation(ctx context.Context, c *storage.Conn, id int64, success bool, counts ChunkCounts, errs []OperationError) error {
	status := StatusFailed
	if success {
		status = StatusSuccess
	}
	return c.Atomic(ctx, func(c *storage.Conn) error {
		ts := storage.Now()
		res, err := setCounts(c.Bun().NewUpdate().Table(opTable), counts, false).
			Set("status = ?", status).
			Set("chunks_done = 1").
			Set("finished_at = ?", ts).
			Set("updated_at = ?", ts).
			Where("id = ? AND status = ?", id, StatusRunning).Exec(ctx)
		if err := c.Affected("update", opTable, res, err); err != nil {
			if errors.Is(err, storage.ErrNotFound) {
				if _, serr := operationStatus(ctx, c, id); serr != nil {
					return serr
				}
				return ErrFinished
			}
			return err
		}
		return insertErrors(ctx, c, id, 1, errs)
	})
}

// insertErrors stores errs as the errors of one chunk of an operation,
// numbered 1, 2, ... in order (their OperationID, Chunk and N are set here).
func insertErrors(ctx context.Context, c *storage.Conn, opID int64, chunk int, errs []OperationError) error {
	if len(errs) == 0 {
		return nil
	}
	rows := make([]OperationError, len(errs))
	for i, e := range errs {
		e.OperationID, e.Chunk, e.N = opID, chunk, i+1
		rows[i] = e
	}
	_, err := c.Bun().NewInsert().Model(&rows).Exec(ctx)
	return c.MapError("insert", errTable, err)
}

// setCounts sets an operation's counters to counts, or adds counts to them
// when add is set (a chunk's share of the whole).
func setCounts(q *bun.UpdateQuery, counts ChunkCounts, add bool) *bun.UpdateQuery {
	for _, col := range []struct {
		name  string
		value int64
	}{
		{"read_count", int64(counts.Read)}, {"write_count", int64(counts.Write)}, {"error_count", int64(counts.Errors)},
		{"create_count", int64(counts.Created)}, {"update_count", int64(counts.Updated)}, {"aggregate_ms", counts.Millis},
	} {
		if add {
			q = q.Set(col.name+" = "+col.name+" + ?", col.value)
		} else {
			q = q.Set(col.name+" = ?", col.value)
		}
	}
	return q
}
