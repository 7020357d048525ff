package chunk

import (
	"context"
	"errors"
	"time"

	"github.com/entityapi/entityapi/server/batch/stage"
	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
)

// This file is the work of the job queue on the staged chunks of a batch
// (docs/decisions.md §7; the job itself is server/batch's): the chunks of a
// run go together. Each chunk is checked on its own (its links, problems and
// pointers stay its own), then the items of all are written with the same
// multi-row INSERTs and the outcomes of all recorded (FinishChunks) in one
// transaction, so a run's chunks (thirty: server/batch's chunksPerTx) cost
// a fixed number of statements and one commit whatever their number of
// items. A chunk another run has recorded
// rolls that transaction back, and its chunks then go one by one.

// Checked is a run of staged chunks of one operation, read and checked
// outside any transaction (Check) and ready to be written (Write).
type Checked struct {
	chunks []jobs.Chunk
	runs   []*checkedChunk
}

// Check reads and checks staged chunks of op (not yet done) outside any
// transaction, as b (engine.Engine.BulkAs: the operation's owner); it only
// reads, so a job may check its next chunks while it writes these
// (server/batch). A chunk's items never depend on what another chunk
// writes: the splitter puts linked items, and items naming the same record,
// in one chunk.
func Check(ctx context.Context, b *engine.Bulk, op *jobs.Operation, pending []jobs.Chunk) (*Checked, error) {
	runs := make([]*checkedChunk, len(pending))
	for i := range pending {
		data, included, err := stage.Decode(&pending[i])
		if err != nil {
			return nil, err
		}
		if runs[i], err = check(ctx, b, op.EntityType, data, included, false); err != nil {
			return nil, err
		}
	}
	return &Checked{chunks: pending, runs: runs}, nil
}

// Write writes checked chunks of op in one transaction and records their
// outcomes there; when another run has recorded one of them meanwhile, each
// chunk goes again on its own, and those already done are left. written
// are the counts of the chunks it wrote, even when it fails after some.
func Write(ctx context.Context, b *engine.Bulk, op *jobs.Operation, checked *Checked) (written []jobs.ChunkCounts, err error) {
	err = writeStaged(ctx, b, op, checked)
	if err == nil {
		written = make([]jobs.ChunkCounts, len(checked.runs))
		for i, run := range checked.runs {
			written[i] = run.out.counts
		}
		return written, nil
	}
	if !errors.Is(err, errAlreadyDone) {
		return nil, err
	}
	// A re-enqueued job over the same chunks recorded one of them: nothing
	// of these was written.
	for _, ch := range checked.chunks {
		fresh, err := jobs.LoadChunk(ctx, b.Conn(), op.ID, ch.Number)
		if errors.Is(err, storage.ErrNotFound) {
			continue
		}
		if err != nil {
			return written, err
		}
		if fresh.Done {
			continue
		}
		out, err := runStaged(ctx, b, op, fresh)
		if err != nil {
			return written, err
		}
		if out != nil {
			written = append(written, out.counts)
		}
	}
	return written, nil
}

// runStaged checks and writes one staged chunk in a transaction of its own:
// nil when another run has recorded it meanwhile.
func runStaged(ctx context.Context, b *engine.Bulk, op *jobs.Operation, ch *jobs.Chunk) (*Outcome, error) {
	data, included, err := stage.Decode(ch)
	if err != nil {
		return nil, err
	}
	out, err := run(ctx, b, op.EntityType, data, included, false, finishChunk(ctx, op.ID, ch.Number))
	if errors.Is(err, errAlreadyDone) {
		return nil, nil
	}
	return out, err
}

// writeStaged writes checked chunks in one transaction: their items
// together, then their outcomes together (a fixed number of statements
// whatever the number of chunks). errAlreadyDone when one of them was
// already recorded (nothing is then written).
func writeStaged(ctx context.Context, b *engine.Bulk, op *jobs.Operation, checked *Checked) error {
	runs, chunks := checked.runs, checked.chunks
	return b.Conn().Tx(ctx, func(c *storage.Conn) error {
		writing := time.Now()
		if err := writeTogether(ctx, c, b, runs); err != nil {
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
}

// writeTogether writes the live items of checked chunks in c's transaction:
// first all at once (multi-row INSERTs across chunks: on SQLite one for the
// run, storage's insertRuns) in a savepoint; when that fails, each chunk as writeChunk does, so that only the
// items to blame are skipped.
func writeTogether(ctx context.Context, c *storage.Conn, b *engine.Bulk, runs []*checkedChunk) error {
	var live []*engine.Item
	for _, run := range runs {
		for _, it := range run.items {
			if !it.Failed() {
				live = append(live, it)
			}
		}
	}
	if len(live) == 0 {
		return nil
	}
	err := c.Tx(ctx, func(sp *storage.Conn) error {
		_, err := b.WriteItems(ctx, sp, live, true)
		return err
	})
	if err == nil {
		return nil
	}
	for _, run := range runs {
		if err := writeChunk(ctx, c, b, run.items, run.adjacent, false); err != nil {
			return err
		}
	}
	return nil
}

// finishChunk records a chunk's outcome; errAlreadyDone rolls back the
// writes of a chunk another run has recorded.
func finishChunk(ctx context.Context, opID int64, number int) func(c *storage.Conn, out *Outcome) error {
	return func(c *storage.Conn, out *Outcome) error {
		done, err := jobs.FinishChunk(ctx, c, opID, number, out.counts, out.ErrorRows())
		if err == nil && !done {
			return errAlreadyDone
		}
		return err
	}
}
