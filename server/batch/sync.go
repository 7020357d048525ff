package batch

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/entityapi/entityapi/server/batch/chunk"
	"github.com/entityapi/entityapi/server/batch/split"
	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
)

// This file serves a batch request with X-Mode: sync (docs/decisions.md §7):
// its one chunk runs at once in one transaction (chunk.Run), all or
// nothing, and the answer is the records, or past Config.SyncTimeout an
// operation that records the end.

// syncRun is a synchronous batch running beside the request that waits for
// it. mu orders its end against the request's timeout: whichever comes
// second sees what the first did.
type syncRun struct {
	mu       sync.Mutex
	finished bool  // the chunk's transaction has ended
	opened   int64 // the request timed out and made this operation visible
}

type syncResult struct {
	out *chunk.Outcome
	err error
}

// serveSync processes a request of at most one chunk in one transaction and
// answers with the records (200) or the problems; past the timeout it answers
// 202 with an operation that records the end (docs/decisions.md §7).
func (p *Pipeline) serveSync(ctx context.Context, w http.ResponseWriter, b *engine.Bulk, body io.Reader) error {
	one, err := p.splitSync(b.Resource().Type, body)
	if err != nil {
		return err
	}
	run := &syncRun{}
	done := make(chan syncResult, 1)
	work := context.WithoutCancel(ctx) // the request may go away; the transaction still ends cleanly
	go func() {
		if p.cfg.SyncHold != nil {
			if hold := p.cfg.SyncHold.Load(); hold != nil {
				<-*hold
			}
		}
		locked := false
		out, err := chunk.Run(work, b, *one, func(c *storage.Conn, out *chunk.Outcome) error {
			run.mu.Lock()
			locked = true
			if run.opened != 0 {
				return jobs.EndSyncOperation(work, c, run.opened, true, out.Counts(), nil)
			}
			return nil
		})
		if err == nil {
			p.chunkDone(b.Resource().Type, "sync", out.Counts())
		}
		if !locked {
			run.mu.Lock()
		}
		run.finished = true
		if run.opened != 0 {
			p.endOpened(work, run.opened, out, err)
		}
		run.mu.Unlock()
		done <- syncResult{out, err}
	}()
	timer := time.NewTimer(p.cfg.SyncTimeout)
	defer timer.Stop()
	select {
	case r := <-done:
		return p.syncAnswer(w, b, r)
	case <-timer.C:
	}
	op := operationOf(work, b)
	if err := jobs.OpenSyncOperation(work, p.engine.Store().Conn, op); err != nil {
		return p.syncAnswer(w, b, <-done) // no operation to show: wait for the end instead
	}
	run.mu.Lock()
	if run.finished {
		run.mu.Unlock()
		if err := jobs.DeleteOperation(work, p.engine.Store().Conn, op.ID); err != nil {
			p.log.Warn("batch: delete a synchronous operation", "operation", op.ID, "error", err)
		}
		return p.syncAnswer(w, b, <-done)
	}
	run.opened = op.ID
	run.mu.Unlock()
	if shown, err := jobs.LoadOperation(ctx, p.engine.Store().Conn, op.OrganizationID, op.ID); err == nil {
		op = shown
	}
	p.accepted(w, b, op)
	return nil
}

// endOpened records the end of a synchronous batch that outlived its wait
// when its transaction did not record it: its items had problems (nothing
// was written) or it failed.
func (p *Pipeline) endOpened(ctx context.Context, id int64, out *chunk.Outcome, err error) {
	var rerr error
	switch {
	case err == nil && len(out.Problems()) > 0:
		counts := out.Counts()
		counts.Write, counts.Created, counts.Updated = 0, 0, 0
		rerr = jobs.EndSyncOperation(ctx, p.engine.Store().Conn, id, false, counts, out.ErrorRows())
	case err != nil && !errors.Is(err, jobs.ErrFinished):
		rerr = jobs.FailOperation(ctx, p.engine.Store().Conn, id,
			jobs.RuntimeException("The operation failed; nothing of it was written."))
	}
	if rerr != nil && !errors.Is(rerr, jobs.ErrFinished) {
		p.log.Error("batch: record the end of a synchronous operation", "operation", id, "error", rerr)
	}
}

// syncAnswer answers a synchronous batch that ended in time.
func (p *Pipeline) syncAnswer(w http.ResponseWriter, b *engine.Bulk, r syncResult) error {
	if r.err != nil {
		return r.err
	}
	if ps := r.out.Problems(); len(ps) > 0 {
		return ps
	}
	reply, err := chunk.Reply(b, r.out)
	if err != nil {
		return err
	}
	if err := reply.Write(w); err != nil {
		p.log.Debug("batch: write the answer", "error", err)
	}
	return nil
}

// splitSync reads the one chunk of a synchronous batch of type typ.
func (p *Pipeline) splitSync(typ string, body io.Reader) (*split.Chunk, error) {
	var one *split.Chunk
	lim := split.SyncLimits
	lim.MaxItemBytes = p.cfg.MaxItem
	_, err := split.Split(body, typ, lim, func(ch split.Chunk) error {
		one = &ch
		return nil
	})
	if err != nil {
		return nil, p.splitError(err)
	}
	return one, nil
}

// errSyncRefused rolls back the transaction of a keyed synchronous batch
// whose items have problems (nothing was written: the key keeps nothing).
var errSyncRefused = errors.New("batch: the synchronous batch's items have problems")

// serveSyncKeyed serves a synchronous batch sent with an Idempotency-Key
// (Keyed): its chunk runs in the transaction that holds the key, whose
// answer, the written records, is kept there. It has no timeout after
// which it becomes an operation (serveSync's): the answer a retry gets is
// the chunk's end, however long it takes. Items with problems write
// nothing and keep nothing: a retry checks them again.
func (p *Pipeline) serveSyncKeyed(ctx context.Context, w http.ResponseWriter, r *engine.Request, body io.Reader, keyed Keyed) error {
	typ := r.Route.Resource().Type
	one, err := p.splitSync(typ, body)
	if err != nil {
		return err
	}
	var (
		problems error
		counts   jobs.ChunkCounts
	)
	err = p.engine.Store().Conn.Tx(ctx, func(tx *storage.Conn) error {
		if err := keyed.Claim(ctx, tx); err != nil {
			return err
		}
		r.Tx = tx
		defer func() { r.Tx = nil }()
		b, err := p.engine.BeginBulk(r)
		if err != nil {
			return err
		}
		out, err := chunk.Run(ctx, b, *one, func(*storage.Conn, *chunk.Outcome) error { return nil })
		if err != nil {
			return err
		}
		if ps := out.Problems(); len(ps) > 0 {
			problems = ps
			return errSyncRefused
		}
		reply, err := chunk.Reply(b, out)
		if err != nil {
			return err
		}
		if err := reply.Write(w); err != nil {
			return err
		}
		counts = out.Counts()
		return keyed.Keep(ctx, tx)
	})
	switch {
	case problems != nil:
		return problems
	case err != nil:
		return err
	}
	p.chunkDone(typ, "sync", counts)
	return nil
}
