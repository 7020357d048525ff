package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/entityapi/entityapi/server/batch/split"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
)

// This file is the engine's part of the job queue's work on a batch
// (docs/decisions.md §7; the job itself is server/batch's): the chunks of a run go
// together. Each chunk is checked on its own (its links, problems and
// pointers stay its own), then the items of all are written with the same
// multi-row INSERTs and the outcomes of all recorded (FinishChunks) in one
// transaction, so ten chunks cost a fixed number of statements and one
// commit whatever their number of items. A chunk another run has recorded
// rolls that transaction back, and its chunks then go one by one.

// BatchOf is the batch of an operation as its job runs it: as the user who
// sent it, with that user's roles now (Config.OwnerRoles). Its chunks'
// transactions run on the store's bulk connection (storage.Store.Bulk): they
// record their events themselves (writeRecords is never inline here).
func (e *Engine) BatchOf(ctx context.Context, op *jobs.Operation) (*Batch, error) {
	cl := &call{f: JSONAPI, org: op.OrganizationID, routes: e.routes, xinclude: map[string]bool{}, db: e.store.Bulk()}
	if op.ClientID != nil {
		cl.client = *op.ClientID // named by the change events of its chunks
	}
	if op.OwnerID != nil {
		cl.user = *op.OwnerID
		var err error
		if cl.roles, err = e.ownerRoles(ctx, *op.OwnerID); err != nil {
			return nil, err
		}
	}
	return &Batch{e: e, cl: cl}, nil
}

// Checked is a run of staged chunks of one operation, read and checked
// outside any transaction (Check) and ready to be written (Write).
type Checked struct {
	chunks []jobs.Chunk
	runs   []*checkedChunk
}

// Check reads and checks staged chunks of op (not yet done) outside any
// transaction; it only reads, so a job may check its next chunks while it
// writes these (server/batch). A chunk's items never depend on what
// another chunk writes: the splitter puts linked items, and items naming the
// same record, in one chunk.
func (b *Batch) Check(ctx context.Context, op *jobs.Operation, pending []jobs.Chunk) (*Checked, error) {
	runs := make([]*checkedChunk, len(pending))
	for i := range pending {
		data, included, err := decodeChunk(&pending[i])
		if err != nil {
			return nil, err
		}
		if runs[i], err = b.e.checkChunk(ctx, b.cl, op.EntityType, data, included, false); err != nil {
			return nil, err
		}
	}
	return &Checked{chunks: pending, runs: runs}, nil
}

// Write writes checked chunks of op in one transaction and records their
// outcomes there; when another run has recorded one of them meanwhile, each
// chunk goes again on its own, and those already done are left.
func (b *Batch) Write(ctx context.Context, op *jobs.Operation, checked *Checked) error {
	e, cl := b.e, b.cl
	err := e.writeStaged(ctx, cl, op, checked)
	if !errors.Is(err, errAlreadyDone) {
		return err
	}
	// A re-enqueued job over the same chunks recorded one of them: nothing
	// of these was written.
	store := e.store
	for _, ch := range checked.chunks {
		fresh, err := jobs.LoadChunk(ctx, store.Conn, op.ID, ch.Number)
		if errors.Is(err, storage.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if fresh.Done {
			continue
		}
		if err := e.runStaged(ctx, cl, op, fresh); err != nil {
			return err
		}
	}
	return nil
}

// runStaged checks and writes one staged chunk in a transaction of its own.
func (e *Engine) runStaged(ctx context.Context, cl *call, op *jobs.Operation, ch *jobs.Chunk) error {
	data, included, err := decodeChunk(ch)
	if err != nil {
		return err
	}
	out, err := e.runChunk(ctx, cl, op.EntityType, data, included, false, finishChunk(ctx, op.ID, ch.Number))
	if errors.Is(err, errAlreadyDone) {
		return nil
	}
	if err == nil {
		e.chunkDone(op.EntityType, "async", out.counts)
	}
	return err
}

// writeStaged writes checked chunks in one transaction: their items
// together, then their outcomes together (a fixed number of statements
// whatever the number of chunks). errAlreadyDone when one of them was
// already recorded (nothing is then written).
func (e *Engine) writeStaged(ctx context.Context, cl *call, op *jobs.Operation, checked *Checked) error {
	runs, chunks := checked.runs, checked.chunks
	err := cl.db.Tx(ctx, func(c *storage.Conn) error {
		writing := time.Now()
		if err := e.writeTogether(ctx, c, cl, runs); err != nil {
			return err
		}
		// Each chunk's time (the operation's aggregateTime adds them up) is
		// its own checks and its share of the writes.
		share := time.Since(writing) / time.Duration(len(runs))
		outcomes := make([]jobs.ChunkOutcome, len(runs))
		for i, run := range runs {
			run.finish(true)
			run.out.counts.Millis = (run.checking + share).Milliseconds()
			outcomes[i] = jobs.ChunkOutcome{Number: chunks[i].Number, Counts: run.out.counts, Errors: run.out.ErrorRows()}
		}
		done, err := jobs.FinishChunks(ctx, c, op.ID, outcomes)
		if err == nil && !done {
			return errAlreadyDone
		}
		return err
	})
	if err != nil {
		return err
	}
	for _, run := range runs {
		e.chunkDone(op.EntityType, "async", run.out.counts)
	}
	return nil
}

// writeTogether writes the live items of checked chunks in c's transaction:
// first all at once (multi-row INSERTs of up to 500 rows across chunks) in a
// savepoint; when that fails, each chunk as writeChunk does, so that only the
// items to blame are skipped.
func (e *Engine) writeTogether(ctx context.Context, c *storage.Conn, cl *call, runs []*checkedChunk) error {
	var live []*item
	for _, run := range runs {
		for _, ci := range run.all {
			if !ci.failed {
				live = append(live, ci.item)
			}
		}
	}
	if len(live) == 0 {
		return nil
	}
	err := c.Tx(ctx, func(sp *storage.Conn) error {
		_, err := e.writeRecords(ctx, sp, cl, live, true, false)
		return err
	})
	if err == nil {
		return nil
	}
	for _, run := range runs {
		if err := e.writeChunk(ctx, c, cl, run.all, run.adjacent, false); err != nil {
			return err
		}
	}
	return nil
}

// finishChunk records a chunk's outcome; errAlreadyDone rolls back the
// writes of a chunk another run has recorded.
func finishChunk(ctx context.Context, opID int64, number int) func(c *storage.Conn, out *ChunkOutcome) error {
	return func(c *storage.Conn, out *ChunkOutcome) error {
		done, err := jobs.FinishChunk(ctx, c, opID, number, out.counts, out.ErrorRows())
		if err == nil && !done {
			return errAlreadyDone
		}
		return err
	}
}

// decodeChunk reads the items of a staged chunk.
func decodeChunk(ch *jobs.Chunk) (data, included []jobs.ChunkItem, err error) {
	if data, err = decodeStaged(ch.Items); err != nil {
		return nil, nil, err
	}
	if included, err = decodeStaged(ch.Included); err != nil {
		return nil, nil, err
	}
	return data, included, nil
}

// decodeStaged reads the items of a staged chunk (nil: none).
func decodeStaged(raw []byte) ([]jobs.ChunkItem, error) {
	if len(raw) == 0 {
		return nil, nil
	}
	if items, ok := readStaged(raw); ok {
		return items, nil
	}
	var items []jobs.ChunkItem
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, fmt.Errorf("engine: a staged chunk is not readable: %w", err)
	}
	return items, nil
}

// readStaged reads staged items as stagedItems writes them, each item's
// bytes a sub-slice of raw rather than a copy made through reflection; ok is
// false for any other form (then encoding/json reads it, or says why not).
func readStaged(raw []byte) (items []jobs.ChunkItem, ok bool) {
	if !json.Valid(raw) {
		return nil, false
	}
	ok = true
	items = make([]jobs.ChunkItem, 0, 128) // a chunk holds 100 items unless configured otherwise
	isArray := split.Elements(raw, func(el []byte) {
		var it jobs.ChunkItem
		isObject := split.Members(el, func(key, val []byte) {
			switch string(key) {
			case `"index"`:
				n, err := strconv.Atoi(string(val))
				it.Index, ok = n, ok && err == nil
			case `"raw"`:
				it.Raw = val
			case `"hashed"`:
				it.Hashed, ok = string(val) == "true", ok && (string(val) == "true" || string(val) == "false")
			case `"problems"`:
				ok = ok && json.Unmarshal(val, &it.Problems) == nil
			default:
				ok = false
			}
		})
		if !isObject || it.Raw == nil {
			ok = false
		}
		items = append(items, it)
	})
	return items, ok && isArray
}
