package batch

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/entityapi/entityapi/server/batch/split"
	"github.com/entityapi/entityapi/server/batch/stage"
	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/server/telemetry"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
)

// This file serves the batch request, PATCH /api/{type} (docs/decisions.md §7): the
// body streams through server/batch/split, which cuts it into chunks staged
// under an invisible operation; once the body has been read whole and found
// sound, the operation is published and its chunks enqueued. With X-Mode:
// sync, the one chunk is processed at once in one transaction (sync.go).

// Config is what the batch pipeline of an application is told at start:
// the bounds of its requests, and what its jobs need from outside.
type Config struct {
	MaxBody int64 // the largest body, in bytes (413 beyond)
	MaxItem int64 // the largest item, in bytes
	// SyncTimeout is how long a synchronous batch is waited for before it
	// is answered as an asynchronous operation.
	SyncTimeout time.Duration
	// UploadTimeout bounds reading a body and answering it, in place of the
	// HTTP server's own read and write timeouts.
	UploadTimeout time.Duration
	Log           *slog.Logger
	// SyncHold, set only by tests, makes synchronous batches wait before
	// their chunk runs while it holds a channel, until that is closed.
	SyncHold *atomic.Pointer[chan struct{}]
	// Tracer records a span of each chunk job, linked to the request that
	// queued it (job.go); nil: none.
	Tracer trace.Tracer
	// OwnerRoles gives a chunk job the roles of the user who sent the batch,
	// as they are when it runs (nil: the job runs with no role, as a
	// storefront client would).
	OwnerRoles func(ctx context.Context, user int64) ([]string, error)
	// ChunkDone counts a chunk written, in mode "sync" or "async" (nil: not
	// counted).
	ChunkDone func(typ, mode string, counts jobs.ChunkCounts)
}

// Keyed is the Idempotency-Key of an upload (server/idempotency_write.go):
// the pipeline reads the body through Body, which hashes it into the
// request's fingerprint; once the body is read whole and sound, Claim holds
// the key in the transaction that publishes the operation (or, X-Mode: sync,
// that writes its chunk) and finds it unanswered, and Keep keeps the answer
// the pipeline wrote in that same transaction: the upload and its answer
// commit together, and a retry gets the answer again. An error of Claim or
// Keep rolls the upload back and is returned as it is, for the edge.
//
// Kept tells, before the upload is read, whether the key has a kept
// answer: then its body is only read (hashed, to compare), never staged, and
// Claim finds the answer.
type Keyed interface {
	Body(r io.Reader) io.Reader
	Kept(ctx context.Context) (bool, error)
	Claim(ctx context.Context, tx *storage.Conn) error
	Keep(ctx context.Context, tx *storage.Conn) error
}

// errKeyGone answers a retry whose key's answer expired while its body was
// read without being staged: sent again, it runs.
var errKeyGone = problem.Conflict("The answer of this Idempotency-Key expired while the upload was read; send it again.", "")

// readKeptUpload reads a retried upload through (hashed, not staged) and
// returns what the key's Claim finds: the kept answer's error for the edge
// (a replay, or another request's key).
func (p *Pipeline) readKeptUpload(ctx context.Context, body io.Reader, keyed Keyed) error {
	if _, err := io.Copy(io.Discard, body); err != nil {
		return p.splitError(err)
	}
	err := p.engine.Store().Conn.Tx(ctx, func(tx *storage.Conn) error { return keyed.Claim(ctx, tx) })
	if err == nil {
		return errKeyGone
	}
	return err
}

// Pipeline is the batch pipeline of one application: the uploads (Serve)
// and the job that runs their chunks (ProcessChunk).
type Pipeline struct {
	engine *engine.Engine
	queue  *jobs.Queue
	cfg    Config
	log    *slog.Logger
}

// New is the pipeline of the application e serves; its chunks go to queue.
func New(e *engine.Engine, queue *jobs.Queue, cfg Config) *Pipeline {
	log := cfg.Log
	if log == nil {
		log = slog.Default()
	}
	return &Pipeline{engine: e, queue: queue, cfg: cfg, log: log}
}

// Serve answers PATCH /api/{type}, or returns the error to answer with when
// it has written nothing (the edge maps errors to HTTP in one place). r is
// the engine's view of the request; hr and w its HTTP exchange, for the
// body, the headers and the upload's deadlines; keyed its Idempotency-Key
// (nil: none).
func (p *Pipeline) Serve(w http.ResponseWriter, hr *http.Request, r *engine.Request, keyed Keyed) error {
	if r != nil && r.Format == engine.Plain {
		w.Header().Set("Allow", strings.Join(p.plainMethods(hr.URL.Path), ", "))
		pr := problem.NotAllowed(http.MethodPatch)
		pr.Detail = "The batch operation is available in the JSON:API format only (application/vnd.api+json)."
		return pr
	}
	mode := strings.TrimSpace(hr.Header.Get("X-Mode"))
	if mode != "" && mode != "async" && mode != "sync" {
		return problem.HeaderValue("X-Mode", `The accepted values for the "X-Mode" are "sync" or "async".`)
	}
	b, err := p.engine.BeginBulk(r)
	if err != nil {
		return err
	}
	res := b.Resource()
	// A large upload outlasts the server-wide read and write timeouts, which
	// are sized for single requests: this request gets its own deadline.
	deadline := time.Now().Add(p.cfg.UploadTimeout)
	if mode == "sync" {
		deadline = time.Now().Add(p.cfg.SyncTimeout + time.Minute)
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(deadline) // not every writer supports deadlines (tests' recorders): then the server's apply
	_ = rc.SetWriteDeadline(deadline)
	var body io.Reader = http.MaxBytesReader(w, hr.Body, p.cfg.MaxBody)
	if keyed != nil {
		body = keyed.Body(body)
	}
	lim := split.Limits{ChunkSize: res.ChunkSize, IncludedChunkSize: res.IncludedChunkSize, MaxItemBytes: p.cfg.MaxItem}
	if keyed != nil {
		switch kept, err := keyed.Kept(hr.Context()); {
		case err != nil:
			return err
		case kept:
			return p.readKeptUpload(hr.Context(), body, keyed)
		}
	}
	if mode == "sync" && keyed != nil {
		return p.serveSyncKeyed(hr.Context(), w, r, body, keyed)
	}
	if mode == "sync" {
		return p.serveSync(hr.Context(), w, b, body)
	}
	return p.serveAsync(hr.Context(), w, b, body, lim, keyed)
}

// plainMethods are the methods of an address in the plain format: all but the
// batch PATCH.
func (p *Pipeline) plainMethods(path string) []string {
	var out []string
	for _, m := range p.engine.Routes().Allowed(path) {
		if m != http.MethodPatch {
			out = append(out, m)
		}
	}
	return out
}

// serveAsync stages the request's chunks and answers 202 with the operation.
//
// A keyed upload (keyed not nil) is answered in the transaction that
// publishes it, where its answer is kept.
func (p *Pipeline) serveAsync(ctx context.Context, w http.ResponseWriter, b *engine.Bulk, body io.Reader, lim split.Limits, keyed Keyed) error {
	store := p.engine.Store()
	op := operationOf(ctx, b)
	if err := jobs.CreateOperation(ctx, store.Conn, op); err != nil {
		return err
	}
	chunks := 0
	stager := startStaging(ctx, store.Conn)
	_, err := split.Split(body, b.Resource().Type, lim, func(ch split.Chunk) error {
		chunks++
		return stager.stage(stage.Chunk(b, op.ID, ch))
	})
	if serr := stager.wait(); err == nil {
		err = serr
	}
	if err == nil {
		var answer func(tx *storage.Conn) error
		if keyed != nil {
			answer = func(tx *storage.Conn) error {
				if err := keyed.Claim(ctx, tx); err != nil {
					return err
				}
				shown, err := jobs.LoadOperation(ctx, tx, op.OrganizationID, op.ID)
				if err != nil {
					return err
				}
				p.accepted(w, b, shown)
				return keyed.Keep(ctx, tx)
			}
		}
		err = jobs.PublishOperation(ctx, store.Conn, op.ID, chunks, answer)
	}
	if err != nil {
		// Nothing of a refused request stays; the housekeeping deletes what
		// this cannot (the database went away, say).
		if derr := jobs.DeleteOperation(context.WithoutCancel(ctx), store.Conn, op.ID); derr != nil {
			p.log.Warn("batch: discard a refused upload", "operation", op.ID, "error", derr)
		}
		return p.splitError(err)
	}
	// The answer shows the operation as accepted, read before its chunks
	// are queued: always "new", never whatever a fast worker made of it
	// in the meantime. (A keyed upload's was written as it was kept.)
	if keyed == nil {
		if op, err = jobs.LoadOperation(ctx, store.Conn, op.OrganizationID, op.ID); err != nil {
			return err
		}
	}
	numbers := make([]int, chunks)
	for i := range numbers {
		numbers[i] = i + 1
	}
	queued := jobs.ForChunks(op.ID, op.OrganizationID, numbers, p.queue.JobShape())
	if p.cfg.Tracer != nil {
		parent := telemetry.RequestTraceparent(ctx) // the chunk jobs' spans link to this request (job.go)
		for i := range queued {
			queued[i].Trace = parent
		}
	}
	if err := p.queue.Enqueue(ctx, queued); err != nil {
		// The operation is published: the housekeeping enqueues its chunks
		// when it sees that they do not move.
		p.log.Error("batch: enqueue", "operation", op.ID, "error", err)
	}
	if keyed == nil {
		p.accepted(w, b, op)
	}
	return nil
}

// accepted answers 202 with the operation and its address.
func (p *Pipeline) accepted(w http.ResponseWriter, b *engine.Bulk, op *jobs.Operation) {
	v := b.View()
	reply := operationReply(v, http.StatusAccepted, op)
	w.Header().Set("Content-Location", v.Link(engine.OperationsType, strconv.FormatInt(op.ID, 10)))
	if err := reply.Write(w); err != nil {
		p.log.Debug("batch: write the answer", "error", err)
	}
}

// splitError maps what a split returns: problems of the body are a 400, a body
// over the limit a 413; anything else is the server's.
func (p *Pipeline) splitError(err error) error {
	var tooLarge *http.MaxBytesError
	if errors.As(err, &tooLarge) {
		return problem.BodyTooLarge(p.cfg.MaxBody)
	}
	return err
}
