package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/entityapi/entityapi/server/batch"
	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/server/resource"
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
	e := a.engine
	cl, err := e.begin(c)
	if err != nil {
		a.writeError(c, err)
		return
	}
	if cl.f == plainFormat {
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
	res := cl.rt.res
	if !allowed(cl.roles, res, createAction) || !allowed(cl.roles, res, editAction) {
		a.writeError(c, denied())
		return
	}
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
		a.batchSync(c, cl, body)
		return
	}
	a.batchAsync(c, cl, body, lim)
}

// plainMethods are the methods of an address in the plain format: all but the
// batch PATCH.
func (a *application) plainMethods(path string) []string {
	var out []string
	for _, m := range a.routes.allowed(path) {
		if m != http.MethodPatch {
			out = append(out, m)
		}
	}
	return out
}

// batchAsync stages the request's chunks and answers 202 with the operation.
func (a *application) batchAsync(c *gin.Context, cl *call, body io.Reader, lim batch.Limits) {
	ctx := c.Request.Context()
	store := a.engine.store
	op := &jobs.Operation{OrganizationID: cl.org, EntityType: cl.rt.res.Type}
	if cl.user != 0 {
		op.OwnerID = &cl.user
	}
	if err := jobs.CreateOperation(ctx, store.Conn, op); err != nil {
		a.writeError(c, err)
		return
	}
	chunks := 0
	stager := a.startStaging(ctx)
	_, err := batch.Split(body, cl.rt.res.Type, lim, func(ch batch.Chunk) error {
		chunks++
		e := a.engine
		return stager.stage(&jobs.Chunk{OperationID: op.ID, Number: ch.Number,
			Items: stagedItems(e.sealItems(cl.rt.res, ch.Data)), Included: stagedItems(e.sealItems(nil, ch.Included))})
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
	if op, err = jobs.LoadOperation(ctx, store.Conn, cl.org, op.ID); err != nil {
		a.writeError(c, err)
		return
	}
	numbers := make([]int, chunks)
	for i := range numbers {
		numbers[i] = i + 1
	}
	if err := a.queue.Enqueue(ctx, jobs.ForChunks(op.ID, cl.org, numbers)); err != nil {
		// The operation is published: the housekeeping enqueues its chunks
		// when it sees that they do not move.
		a.log.Error("batch: enqueue", "operation", op.ID, "error", err)
	}
	a.acceptedOperation(c, cl, op)
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
			if err = jobs.StageChunks(ctx, a.engine.store.Conn, waiting); err != nil {
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
func (a *application) acceptedOperation(c *gin.Context, cl *call, op *jobs.Operation) {
	c.Header("Content-Location", cl.link(operationsType, strconv.FormatInt(op.ID, 10)))
	reply := a.engine.operationReply(cl, http.StatusAccepted, op)
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

// stagedItems encodes items as the JSON array of jobs.ChunkItem, copying
// each item's bytes as they are (nil for none).
func stagedItems(items []jobs.ChunkItem) []byte {
	if len(items) == 0 {
		return nil
	}
	size := 2
	for _, it := range items {
		size += len(it.Raw) + 24
	}
	b := make([]byte, 0, size)
	b = append(b, '[')
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"index":`...)
		b = strconv.AppendInt(b, int64(it.Index), 10)
		b = append(b, `,"raw":`...)
		b = append(b, it.Raw...)
		if it.Hashed {
			b = append(b, `,"hashed":true`...)
		}
		if len(it.Problems) > 0 {
			ps, _ := json.Marshal(it.Problems)
			b = append(b, `,"problems":`...)
			b = append(b, ps...)
		}
		b = append(b, '}')
	}
	return append(b, ']')
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
	out *chunkOutcome
	err error
}

// batchSync processes a request of at most one chunk in one transaction and
// answers with the records (200) or the problems; past the timeout it answers
// 202 with an operation that records the end (DESIGN.md §7).
func (a *application) batchSync(c *gin.Context, cl *call, body io.Reader) {
	ctx := c.Request.Context()
	var chunk *batch.Chunk
	lim := batch.SyncLimits
	lim.MaxItemBytes = a.cfg.MaxBatchItem
	_, err := batch.Split(body, cl.rt.res.Type, lim, func(ch batch.Chunk) error {
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
		// Hashing the passwords is the run's work, timed with it.
		data, included := a.engine.sealItems(cl.rt.res, chunk.Data), a.engine.sealItems(nil, chunk.Included)
		locked := false
		out, err := a.engine.runChunk(work, cl, cl.rt.res.Type, data, included, true, func(c *storage.Conn, out *chunkOutcome) error {
			run.mu.Lock()
			locked = true
			if run.opened != 0 {
				return jobs.EndSyncOperation(work, c, run.opened, true, out.counts, nil)
			}
			return nil
		})
		if !locked {
			run.mu.Lock()
		}
		run.finished = true
		if err == nil {
			a.metrics.chunkDone(cl.rt.res.Type, "sync", out.counts)
		}
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
		a.syncAnswer(c, cl, r)
		return
	case <-timer.C:
	}
	op := &jobs.Operation{OrganizationID: cl.org, EntityType: cl.rt.res.Type}
	if cl.user != 0 {
		op.OwnerID = &cl.user
	}
	if err := jobs.OpenSyncOperation(work, a.engine.store.Conn, op); err != nil {
		a.syncAnswer(c, cl, <-done) // no operation to show: wait for the end instead
		return
	}
	run.mu.Lock()
	if run.finished {
		run.mu.Unlock()
		if err := jobs.DeleteOperation(work, a.engine.store.Conn, op.ID); err != nil {
			a.log.Warn("batch: delete a synchronous operation", "operation", op.ID, "error", err)
		}
		a.syncAnswer(c, cl, <-done)
		return
	}
	run.opened = op.ID
	run.mu.Unlock()
	if shown, err := jobs.LoadOperation(ctx, a.engine.store.Conn, cl.org, op.ID); err == nil {
		op = shown
	}
	a.acceptedOperation(c, cl, op)
}

// endOpened records the end of a synchronous batch that outlived its wait
// when its transaction did not record it: its items had problems (nothing
// was written) or it failed.
func (a *application) endOpened(ctx context.Context, id int64, out *chunkOutcome, err error) {
	var rerr error
	switch {
	case err == nil && len(out.problems) > 0:
		counts := out.counts
		counts.Write, counts.Created, counts.Updated = 0, 0, 0
		rerr = jobs.EndSyncOperation(ctx, a.engine.store.Conn, id, false, counts, out.errorRows())
	case err != nil && !errors.Is(err, jobs.ErrFinished):
		rerr = jobs.FailOperation(ctx, a.engine.store.Conn, id, jobs.OperationError{Status: 500, Title: "runtime exception",
			Detail: textPtr("The operation failed; nothing of it was written.")})
	}
	if rerr != nil && !errors.Is(rerr, jobs.ErrFinished) {
		a.log.Error("batch: record the end of a synchronous operation", "operation", id, "error", rerr)
	}
}

// syncAnswer answers a synchronous batch that ended in time.
func (a *application) syncAnswer(c *gin.Context, cl *call, r syncResult) {
	if r.err != nil {
		a.writeError(c, r.err)
		return
	}
	if len(r.out.problems) > 0 {
		a.writeError(c, problem.List(r.out.problems))
		return
	}
	reply, err := a.engine.syncReply(c.Request.Context(), cl, r.out)
	if err != nil {
		a.writeError(c, err)
		return
	}
	if err := reply.Write(c.Writer); err != nil {
		a.log.Debug("batch: write the answer", "error", err)
	}
}

// syncReply renders the written records in request order: primary records
// with the client's id in meta.dataId, the included ones with meta.includeId.
// Records are read back with one query per type (and its linkage), whatever
// their number.
func (e *engine) syncReply(ctx context.Context, cl *call, out *chunkOutcome) (*jsonapi.Reply, error) {
	byType := map[*resource.Resource][]*chunkItem{}
	for _, ci := range append(append([]*chunkItem(nil), out.data...), out.included...) {
		byType[ci.res] = append(byType[ci.res], ci)
	}
	objects := map[*chunkItem]*jsonapi.ResourceObject{}
	for res, items := range byType {
		keys := make([]any, len(items))
		for i, ci := range items {
			keys[i] = ci.key
		}
		rows, err := e.store.Find(ctx, storage.Query{Table: e.table(res), Org: cl.org,
			Where: []storage.Cond{{Column: res.IDColumn, Op: storage.Eq, Values: keys}}})
		if err != nil {
			return nil, err
		}
		links, err := e.loadLinkage(ctx, cl, res, rows, nil)
		if err != nil {
			return nil, err
		}
		byKey := make(map[string]storage.Row, len(rows))
		for _, row := range rows {
			byKey[keyString(row[res.IDColumn])] = row
		}
		for _, ci := range items {
			row, ok := byKey[keyString(ci.key)]
			if !ok {
				return nil, fmt.Errorf("server: batch record %s %v vanished before the answer", res.Type, ci.key)
			}
			objects[ci] = e.resourceObject(cl, res, row, nil, links)
		}
	}
	withMeta := func(ci *chunkItem, name string) *jsonapi.ResourceObject {
		obj := objects[ci]
		if ci.clientID != "" {
			obj.Meta = append(obj.Meta, jsonapi.Member{Name: name, Value: ci.clientID})
		}
		return obj
	}
	data := make(jsonapi.Many, len(out.data))
	for i, ci := range out.data {
		data[i] = withMeta(ci, "dataId")
	}
	doc := &jsonapi.TopLevel{Data: data}
	for _, ci := range out.included {
		doc.Included = append(doc.Included, withMeta(ci, "includeId"))
	}
	return cl.reply(http.StatusOK, doc, nil), nil
}

func textPtr(s string) *string { return &s }
