package batch

import (
	"context"
	"errors"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/entityapi/entityapi/server/batch/chunk"
	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/server/identity"
	"github.com/entityapi/entityapi/server/telemetry"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
)

// This file is the job queue's work on a batch (docs/decisions.md §7): a job names a
// run of staged chunks of one operation (jobs.ForChunks). The operation and
// its owner's roles are loaded once per job and the chunks in one query; the
// chunks then go chunksPerTx at a time, each run in one transaction
// (chunk.Write: a run's chunks cost a fixed number of statements and one
// commit whatever their number of items), the next run checked meanwhile
// (chunk.Check).

// ProcessChunk is the job queue's handler of batch chunks: it processes the
// chunks of job as the operation's owner, the outcome of each recorded in the
// transaction of its writes.
func (p *Pipeline) ProcessChunk(ctx context.Context, job jobs.ChunkJob) (err error) {
	if p.cfg.Tracer != nil {
		var span trace.Span
		ctx, span = p.chunkSpan(ctx, job)
		defer func() {
			if err != nil {
				span.RecordError(err)
				span.SetStatus(codes.Error, "chunk job failed")
			}
			span.End()
		}()
	}
	store := p.engine.Store()
	op, err := p.liveOperation(ctx, job)
	if op == nil || err != nil {
		return err // nil: deleted or ended, nothing is left to do
	}
	if op.Status == jobs.StatusNew { // the first job: a write of its own, not one per chunk
		if err := jobs.StartOperation(ctx, store.Conn, op.ID); err != nil {
			if errors.Is(err, jobs.ErrFinished) || errors.Is(err, storage.ErrNotFound) {
				return nil
			}
			return err
		}
	}
	b, err := p.batchOf(ctx, op)
	if err != nil {
		return err
	}
	ctx = storage.WithActor(ctx, actorOf(op)) // the audit rows of its writes
	// A job's chunks are written chunksPerTx at a time, each run in a
	// transaction of its own, so that a job may name more chunks (fewer
	// fetches and completions of jobs) without holding SQLite's one writer
	// longer. The next run is read and checked while this one is written:
	// checking only reads, and the job then keeps the writer busy by itself
	// (on SQLite a worker waiting for its next job, which River fetches only
	// now and then, left it idle). The staged items are read as the runs
	// need them, chunksPerRead chunks at a time (staged), so a job holds at
	// most that many and the run being written, whatever its size.
	var runs [][2]int // the first chunk's number and the count of each run
	end := job.Chunk + job.Chunks()
	for first := job.Chunk; first < end; first += chunksPerTx {
		runs = append(runs, [2]int{first, min(chunksPerTx, end-first)})
	}
	staged := &stagedReader{conn: store.Conn, op: op.ID, end: end}
	next := p.checkAhead(ctx, b, op, staged, runs[0])
	defer func() { next.wait() }() // no check outlives the job
	for i := range runs {
		checked, err := next.wait()
		next = nil
		if err != nil {
			return err
		}
		if i+1 < len(runs) {
			next = p.checkAhead(ctx, b, op, staged, runs[i+1])
		}
		if checked == nil {
			continue // every chunk of the run was done already (a job run again)
		}
		if i > 0 {
			// A cancel takes effect after the transaction under way, as
			// it would between jobs.
			if op, err = p.liveOperation(ctx, job); op == nil || err != nil {
				return err
			}
		}
		written, err := chunk.Write(ctx, b, op, checked)
		for _, counts := range written {
			p.chunkDone(op.EntityType, "async", counts)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// batchOf is the batch of an operation as its job runs it: as the user who
// sent it, with that user's roles now (Config.OwnerRoles).
func (p *Pipeline) batchOf(ctx context.Context, op *jobs.Operation) (*engine.Bulk, error) {
	var caller identity.Principal
	caller.Org = op.OrganizationID
	if op.ClientID != nil {
		caller.ClientID = *op.ClientID // named by the change events of its chunks
	}
	if op.OwnerID != nil {
		caller.UserID = *op.OwnerID
		if p.cfg.OwnerRoles != nil {
			var err error
			if caller.Roles, err = p.cfg.OwnerRoles(ctx, *op.OwnerID); err != nil {
				return nil, err
			}
		}
	}
	return p.engine.BulkAs(caller), nil
}

// actorOf is who makes an operation's writes: who sent it, in the request
// that did.
func actorOf(op *jobs.Operation) storage.Actor {
	a := storage.Actor{Org: op.OrganizationID}
	if op.ClientID != nil {
		a.Client = *op.ClientID
	}
	if op.OwnerID != nil {
		a.User = *op.OwnerID
	}
	if op.RequestID != nil {
		a.Request = *op.RequestID
	}
	return a
}

// chunkDone counts a chunk written (Config.ChunkDone).
func (p *Pipeline) chunkDone(typ, mode string, counts jobs.ChunkCounts) {
	if p.cfg.ChunkDone != nil {
		p.cfg.ChunkDone(typ, mode, counts)
	}
}

// liveOperation loads job's operation: nil when it is gone or has ended
// (succeeded, failed or cancelled), so that the job writes no more.
func (p *Pipeline) liveOperation(ctx context.Context, job jobs.ChunkJob) (*jobs.Operation, error) {
	op, err := jobs.LoadOperation(ctx, p.engine.Store().Conn, job.Org, job.Operation)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	switch op.Status {
	case jobs.StatusSuccess, jobs.StatusFailed, jobs.StatusCancelled:
		return nil, nil
	}
	return op, nil
}

// pendingCheck is a run of chunks being checked in a goroutine of its own.
type pendingCheck struct {
	done    chan struct{}
	checked *chunk.Checked
	err     error
}

// checkAhead starts reading and checking the run of count chunks from
// number first, those not done yet (none: a nil Checked). Runs are checked
// one after the other, so staged is used by one goroutine at a time.
func (p *Pipeline) checkAhead(ctx context.Context, b *engine.Bulk, op *jobs.Operation, staged *stagedReader, run [2]int) *pendingCheck {
	c := &pendingCheck{done: make(chan struct{})}
	go func() {
		defer close(c.done)
		chunks, err := staged.run(ctx, run[0], run[1])
		if err != nil {
			c.err = err
			return
		}
		pending := make([]jobs.Chunk, 0, len(chunks))
		for _, ch := range chunks {
			if !ch.Done {
				pending = append(pending, ch)
			}
		}
		if len(pending) > 0 {
			c.checked, c.err = chunk.Check(ctx, b, op, pending)
		}
	}()
	return c
}

// stagedReader reads the staged chunks of a job, up to end (excluded),
// chunksPerRead at a time as its runs ask for them in order: reading them
// all at the job's start held a whole job's items in memory (500 chunks on
// SQLite), and reading each run's own ten cost the writer a twelfth of a
// batch on SQLite (its reads beside the writer's transactions).
type stagedReader struct {
	conn   *storage.Conn
	op     int64
	end    int
	read   []jobs.Chunk // read, not yet handed to a run
	readTo int          // the number after the last chunk read
}

// run returns the chunks numbered first to first+count-1, reading as many
// times as they need (a run may be longer than a read).
func (r *stagedReader) run(ctx context.Context, first, count int) ([]jobs.Chunk, error) {
	for r.readTo < min(first+count, r.end) {
		from := max(first, r.readTo)
		n := min(chunksPerRead, r.end-from)
		chunks, err := jobs.LoadChunks(ctx, r.conn, r.op, from, n)
		if err != nil {
			return nil, err
		}
		r.read, r.readTo = append(r.read, chunks...), from+n
	}
	var out []jobs.Chunk
	k := 0
	for ; k < len(r.read) && r.read[k].Number < first+count; k++ {
		if r.read[k].Number >= first {
			out = append(out, r.read[k])
		}
	}
	clear(r.read[:k]) // the buffer lets go of them: the run holds what it needs
	r.read = r.read[k:]
	return out, nil
}

// chunksPerRead is how many staged chunks a job reads at once.
const chunksPerRead = 50

// wait returns the check's outcome once it has ended (nothing for nil).
func (c *pendingCheck) wait() (*chunk.Checked, error) {
	if c == nil {
		return nil, nil
	}
	<-c.done
	return c.checked, c.err
}

// chunksPerTx is the most chunks written in one transaction: 3,000 records
// of 100-record chunks. A transaction has costs that do not grow with its
// records, and on SQLite its one writer pays them all: the pages every
// commit rewrites into the log (the tables' and indexes' last pages, the
// full-text index's structure), and a segment of the full-text index per
// commit, which FTS5 then merges again and again. With 30 chunks instead of
// 10, a 100,000-account batch on SQLite took 34 transactions instead of
// 100, and went about 6% faster with 5% less processor time (docs/speed.md,
// "The batch on SQLite: thirty chunks a transaction"); 50 were no faster.
// A transaction holds SQLite's write slot about three times as long (0.1 s
// on that machine): a single write waits at most that long behind a batch.
const chunksPerTx = 30

// chunkSpan starts the span of a chunk job: the root of a trace of its own
// (the job runs long after the request, in any process), linked to the
// span of the request that queued it when the job carries one.
func (p *Pipeline) chunkSpan(ctx context.Context, job jobs.ChunkJob) (context.Context, trace.Span) {
	opts := []trace.SpanStartOption{trace.WithNewRoot(), trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(attribute.Int64("entityapi.asyncoperation.id", job.Operation),
			attribute.Int("entityapi.chunk.first", job.Chunk), attribute.Int("entityapi.chunk.count", job.Chunks()))}
	if queued := telemetry.Stored(job.Trace); queued.IsValid() {
		opts = append(opts, trace.WithLinks(trace.Link{SpanContext: queued}))
	}
	return p.cfg.Tracer.Start(ctx, "batch chunk job", opts...)
}
