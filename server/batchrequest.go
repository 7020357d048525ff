package server

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/entityapi/entityapi/server/batch"
	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
)

// This file serves the batch request, PATCH /api/{type} (DESIGN.md §7). It is
// a hand-written Gin handler: the body streams through server/batch, which
// cuts it into chunks staged under an invisible operation; once the body has
// been read whole and found sound, the operation is published and its chunks
// enqueued. With X-Mode: sync, the one chunk is processed at once in one
// transaction.

// batchRequest answers PATCH /api/{type}.
func (a *application) batchRequest(c *gin.Context) {
	r := requestOf(c)
	if r != nil && r.Format == engine.Plain {
		c.Header("Allow", strings.Join(a.plainMethods(c.Request.URL.Path), ", "))
		p := problem.NotAllowed(http.MethodPatch)
		p.Detail = "The batch operation is available in the JSON:API format only (application/vnd.api+json)."
		a.writeError(c, p)
		return
	}
	mode := strings.TrimSpace(c.GetHeader("X-Mode"))
	if mode != "" && mode != "async" && mode != "sync" {
		a.writeError(c, problem.HeaderValue("X-Mode", `The accepted values for the "X-Mode" are "sync" or "async".`))
		return
	}
	b, err := a.engine.BeginBatch(r)
	if err != nil {
		a.writeError(c, err)
		return
	}
	res := b.Resource()
	// A large upload outlasts the server-wide read and write timeouts, which
	// are sized for single requests: this request gets its own deadline.
	deadline := time.Now().Add(a.cfg.BatchUploadTimeout)
	if mode == "sync" {
		deadline = time.Now().Add(a.cfg.SyncBatchTimeout + time.Minute)
	}
	rc := http.NewResponseController(c.Writer)
	_ = rc.SetReadDeadline(deadline) // not every writer supports deadlines (tests' recorders): then the server's apply
	_ = rc.SetWriteDeadline(deadline)
	body := http.MaxBytesReader(c.Writer, c.Request.Body, a.cfg.MaxBatchBody)
	lim := batch.Limits{ChunkSize: res.ChunkSize, IncludedChunkSize: res.IncludedChunkSize, MaxItemBytes: a.cfg.MaxBatchItem}
	if mode == "sync" {
		a.batchSync(c, b, body)
		return
	}
	a.batchAsync(c, b, body, lim)
}

// plainMethods are the methods of an address in the plain format: all but the
// batch PATCH.
func (a *application) plainMethods(path string) []string {
	var out []string
	for _, m := range a.routes.Allowed(path) {
		if m != http.MethodPatch {
			out = append(out, m)
		}
	}
	return out
}

// batchAsync stages the request's chunks and answers 202 with the operation.
func (a *application) batchAsync(c *gin.Context, b *engine.Batch, body io.Reader, lim batch.Limits) {
	ctx := c.Request.Context()
	store := a.engine.Store()
	op := b.Operation()
	if err := jobs.CreateOperation(ctx, store.Conn, op); err != nil {
		a.writeError(c, err)
		return
	}
	chunks := 0
	stager := a.startStaging(ctx)
	_, err := batch.Split(body, b.Resource().Type, lim, func(ch batch.Chunk) error {
		chunks++
		return stager.stage(b.Stage(op.ID, ch))
	})
	if serr := stager.wait(); err == nil {
		err = serr
	}
	if err == nil {
		err = jobs.PublishOperation(ctx, store.Conn, op.ID, chunks)
	}
	if err != nil {
		// Nothing of a refused request stays; the housekeeping deletes what
		// this cannot (the database went away, say).
		if derr := jobs.DeleteOperation(context.WithoutCancel(ctx), store.Conn, op.ID); derr != nil {
			a.log.Warn("batch: discard a refused upload", "operation", op.ID, "error", derr)
		}
		a.writeError(c, a.splitError(err))
		return
	}
	// The answer shows the operation as accepted, read before its chunks
	// are queued: always "new", never whatever a fast worker made of it
	// in the meantime.
	if op, err = jobs.LoadOperation(ctx, store.Conn, op.OrganizationID, op.ID); err != nil {
		a.writeError(c, err)
		return
	}
	numbers := make([]int, chunks)
	for i := range numbers {
		numbers[i] = i + 1
	}
	if err := a.queue.Enqueue(ctx, jobs.ForChunks(op.ID, op.OrganizationID, numbers)); err != nil {
		// The operation is published: the housekeeping enqueues its chunks
		// when it sees that they do not move.
		a.log.Error("batch: enqueue", "operation", op.ID, "error", err)
	}
	a.acceptedOperation(c, b, op)
}

// stager writes the chunks of an upload beside the request's reading and
// splitting of the body (each took about half of an upload of plain
// records), at most stageAhead chunks behind it; the chunks waiting when it
// is free are written in one transaction.
type stager struct {
	chunks chan *jobs.Chunk
	failed atomic.Pointer[error]
	done   chan error
}

const stageAhead = 4

// startStaging starts the stager of one upload; wait must be called.
func (a *application) startStaging(ctx context.Context) *stager {
	s := &stager{chunks: make(chan *jobs.Chunk, stageAhead), done: make(chan error, 1)}
	go func() {
		var err error
		waiting := make([]*jobs.Chunk, 0, stageAhead+1)
		for ch := range s.chunks {
			if err != nil {
				continue // the split stops at its next chunk
			}
			// The chunks split while the last ones were written go
			// together, in one transaction.
			waiting = append(waiting[:0], ch)
		more:
			for len(waiting) <= stageAhead {
				select {
				case next, ok := <-s.chunks:
					if !ok {
						break more
					}
					waiting = append(waiting, next)
				default:
					break more
				}
			}
			if err = jobs.StageChunks(ctx, a.engine.Store().Conn, waiting); err != nil {
				s.failed.Store(&err)
			}
		}
		s.done <- err
	}()
	return s
}

// stage hands a chunk to the stager, or returns the error of an earlier one.
func (s *stager) stage(ch *jobs.Chunk) error {
	if err := s.failed.Load(); err != nil {
		return *err
	}
	s.chunks <- ch
	return nil
}

// wait returns once every chunk handed over has been written, with the
// first error.
func (s *stager) wait() error {
	close(s.chunks)
	return <-s.done
}

// acceptedOperation answers 202 with the operation and its address.
func (a *application) acceptedOperation(c *gin.Context, b *engine.Batch, op *jobs.Operation) {
	location, reply := b.Accepted(op)
	c.Header("Content-Location", location)
	if err := reply.Write(c.Writer); err != nil {
		a.log.Debug("batch: write the answer", "error", err)
	}
}

// splitError maps what a split returns: problems of the body are a 400, a body
// over the limit a 413; anything else is the server's.
func (a *application) splitError(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return problem.BodyTooLarge(a.cfg.MaxBatchBody)
	}
	return err
}

// syncRun is a synchronous batch running beside the request that waits for
// it. mu orders its end against the request's timeout: whichever comes
// second sees what the first did.
type syncRun struct {
	mu       sync.Mutex
	finished bool  // the chunk's transaction has ended
	opened   int64 // the request timed out and made this operation visible
}

type syncResult struct {
	out *engine.ChunkOutcome
	err error
}

// batchSync processes a request of at most one chunk in one transaction and
// answers with the records (200) or the problems; past the timeout it answers
// 202 with an operation that records the end (DESIGN.md §7).
func (a *application) batchSync(c *gin.Context, b *engine.Batch, body io.Reader) {
	ctx := c.Request.Context()
	var chunk *batch.Chunk
	lim := batch.SyncLimits
	lim.MaxItemBytes = a.cfg.MaxBatchItem
	_, err := batch.Split(body, b.Resource().Type, lim, func(ch batch.Chunk) error {
		chunk = &ch
		return nil
	})
	if err != nil {
		a.writeError(c, a.splitError(err))
		return
	}
	run := &syncRun{}
	done := make(chan syncResult, 1)
	work := context.WithoutCancel(ctx) // the request may go away; the transaction still ends cleanly
	go func() {
		if a.syncHold != nil {
			if hold := a.syncHold.Load(); hold != nil {
				<-*hold
			}
		}
		locked := false
		out, err := b.Run(work, *chunk, func(c *storage.Conn, out *engine.ChunkOutcome) error {
			run.mu.Lock()
			locked = true
			if run.opened != 0 {
				return jobs.EndSyncOperation(work, c, run.opened, true, out.Counts(), nil)
			}
			return nil
		})
		if !locked {
			run.mu.Lock()
		}
		run.finished = true
		if run.opened != 0 {
			a.endOpened(work, run.opened, out, err)
		}
		run.mu.Unlock()
		done <- syncResult{out, err}
	}()
	timer := time.NewTimer(a.cfg.SyncBatchTimeout)
	defer timer.Stop()
	select {
	case r := <-done:
		a.syncAnswer(c, b, r)
		return
	case <-timer.C:
	}
	op := b.Operation()
	if err := jobs.OpenSyncOperation(work, a.engine.Store().Conn, op); err != nil {
		a.syncAnswer(c, b, <-done) // no operation to show: wait for the end instead
		return
	}
	run.mu.Lock()
	if run.finished {
		run.mu.Unlock()
		if err := jobs.DeleteOperation(work, a.engine.Store().Conn, op.ID); err != nil {
			a.log.Warn("batch: delete a synchronous operation", "operation", op.ID, "error", err)
		}
		a.syncAnswer(c, b, <-done)
		return
	}
	run.opened = op.ID
	run.mu.Unlock()
	if shown, err := jobs.LoadOperation(ctx, a.engine.Store().Conn, op.OrganizationID, op.ID); err == nil {
		op = shown
	}
	a.acceptedOperation(c, b, op)
}

// endOpened records the end of a synchronous batch that outlived its wait
// when its transaction did not record it: its items had problems (nothing
// was written) or it failed.
func (a *application) endOpened(ctx context.Context, id int64, out *engine.ChunkOutcome, err error) {
	var rerr error
	switch {
	case err == nil && len(out.Problems()) > 0:
		counts := out.Counts()
		counts.Write, counts.Created, counts.Updated = 0, 0, 0
		rerr = jobs.EndSyncOperation(ctx, a.engine.Store().Conn, id, false, counts, out.ErrorRows())
	case err != nil && !errors.Is(err, jobs.ErrFinished):
		rerr = jobs.FailOperation(ctx, a.engine.Store().Conn, id, jobs.OperationError{Status: 500, Title: "runtime exception",
			Detail: textPtr("The operation failed; nothing of it was written.")})
	}
	if rerr != nil && !errors.Is(rerr, jobs.ErrFinished) {
		a.log.Error("batch: record the end of a synchronous operation", "operation", id, "error", rerr)
	}
}

// syncAnswer answers a synchronous batch that ended in time.
func (a *application) syncAnswer(c *gin.Context, b *engine.Batch, r syncResult) {
	if r.err != nil {
		a.writeError(c, r.err)
		return
	}
	if ps := r.out.Problems(); len(ps) > 0 {
		a.writeError(c, ps)
		return
	}
	reply, err := b.Reply(r.out)
	if err != nil {
		a.writeError(c, err)
		return
	}
	if err := reply.Write(c.Writer); err != nil {
		a.log.Debug("batch: write the answer", "error", err)
	}
}

func textPtr(s string) *string { return &s }
