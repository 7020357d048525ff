package storage

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// Group commit of single writes where the database has one writer.
//
// This is the shared mechanism of the Features.OneWriter capability: any
// database that takes one writer at a time would need it, and it asks the
// dialect for nothing but the capability. SQLite is the example: a commit
// there costs far more than the write of one row it commits: the WAL frames
// of every page touched (two system calls each), the shared-memory locks of
// a new transaction, the read mark. Under concurrent requests that cost,
// paid once per write while the write slot is held, is what bounds the
// writes per second.
//
// So a single write (alone) does not take the slot for itself: it joins a
// queue, and whichever writer gets the slot (the leader) runs every write
// queued by then in one transaction and commits them together; each writer
// then gets its own outcome. A writer alone in the queue runs as before, as
// a statement in autocommit: nothing changes for a lone client.
//
// In a group, each write is one statement (with its change event, which the
// statement's trigger records), and the database backs out a statement that
// fails on a constraint by itself (Dialect.Constraint; SQLite does), leaving
// the transaction and the other writes as they were: such an error (a unique
// clash, a foreign key, no row to update) is that write's outcome alone. Any
// other error (the disk, a note no trigger met) or a panic may have ended or
// spoiled the transaction: the group is rolled back and every write of it
// runs again on its own, in order, with its own outcome (the functions a
// write passes are written to be run again: they rebuild nothing they have
// changed).
//
// The statements of a group run with their writer's context without its
// cancellation: SQLite, for one, interrupting one statement of a transaction
// rolls the whole transaction back. A single statement by key is short, and
// a writer that gives up while it waits in the queue is taken out of it.

// maxGroup bounds the writes one transaction commits, so that the last of
// a group waits for at most that many statements.
const maxGroup = 64

// writeQueue is the queue of single writes waiting for the write slot of a
// store whose database has one writer.
type writeQueue struct {
	mu      sync.Mutex
	pending []*queuedWrite
	// groups counts the transactions that committed more than one write
	// (the tests' proof that writes were grouped).
	groups atomic.Int64
}

// queuedWrite is one single write waiting in the queue.
type queuedWrite struct {
	ctx  context.Context
	conn *Conn // the writer's Conn: its note is the write's event
	// table is the table whose triggers may note what the write changed,
	// whose full-text index is written from its notes after it
	// (searchpending.go); "" for none.
	table string
	fn    func(ctx context.Context, c *Conn) error
	// state: waiting, taken by a leader, or given up by its writer.
	state atomic.Int32
	done  chan writeOutcome // buffered: the leader never waits on it
}

const (
	writeWaiting int32 = iota
	writeTaken
	writeAbandoned
)

// writeOutcome is what a write's function returned, or the value it
// panicked with (panicked, raised again in the writer's goroutine).
type writeOutcome struct {
	err      error
	panicked any
	didPanic bool
}

// queued runs fn as the single write of c through the queue (one writer,
// outside a transaction): it returns once fn's statement has committed or failed.
func (c *Conn) queued(ctx context.Context, table string, fn func(ctx context.Context, c *Conn) error) error {
	s := c.s
	w := &queuedWrite{ctx: ctx, conn: c, table: table, fn: fn, done: make(chan writeOutcome, 1)}
	s.queue.mu.Lock()
	s.queue.pending = append(s.queue.pending, w)
	s.queue.mu.Unlock()
	for {
		select {
		case out := <-w.done:
			return out.result()
		case s.writeSlot <- struct{}{}:
			s.lead()
			s.releaseWrite()
			select {
			case out := <-w.done:
				return out.result()
			default: // a full group before it: wait for the slot again
			}
		case <-ctx.Done():
			if w.state.CompareAndSwap(writeWaiting, writeAbandoned) {
				return fmt.Errorf("storage: waiting for the SQLite writer: %w", ctx.Err())
			}
			return (<-w.done).result() // a leader runs it: its outcome stands
		}
	}
}

// result returns the outcome's error, or panics again with its value.
func (o writeOutcome) result() error {
	if o.didPanic {
		panic(o.panicked)
	}
	return o.err
}

// take claims up to maxGroup waiting writes, in the order they came.
func (q *writeQueue) take() []*queuedWrite {
	q.mu.Lock()
	defer q.mu.Unlock()
	var group []*queuedWrite
	i := 0
	for ; i < len(q.pending) && len(group) < maxGroup; i++ {
		if w := q.pending[i]; w.state.CompareAndSwap(writeWaiting, writeTaken) {
			group = append(group, w)
		}
	}
	n := copy(q.pending, q.pending[i:])
	clear(q.pending[n:])
	q.pending = q.pending[:n]
	return group
}

// lead runs the waiting writes, holding the write slot.
func (s *Store) lead() {
	s.queue.mu.Lock()
	alone := len(s.queue.pending) == 1
	s.queue.mu.Unlock()
	if alone {
		// Let the goroutines ready to run reach the queue first: on a busy
		// process other writes are on their way, and one commit for them
		// all costs less than the time given up here (nothing, when no
		// other goroutine is ready).
		runtime.Gosched()
	}
	group := s.queue.take()
	switch len(group) {
	case 0:
		return
	case 1:
		out := runWrite(group[0].ctx, group[0].conn, group[0].fn)
		if out.err == nil && !out.didPanic {
			s.writeNotesAfter(context.WithoutCancel(group[0].ctx), group)
		}
		group[0].done <- out
		return
	}
	outcomes, ok := s.runGroup(group)
	if !ok {
		// The transaction may be spoiled: each write again, on its own.
		for i, w := range group {
			outcomes[i] = runWrite(w.ctx, w.conn, w.fn)
		}
		s.writeNotesAfter(context.WithoutCancel(group[0].ctx), group)
	} else {
		s.queue.groups.Add(1)
	}
	for i, w := range group {
		w.done <- outcomes[i]
	}
}

// runGroup runs group's writes in one transaction and commits it. ok is
// false when the transaction was rolled back instead (the outcomes are then
// to be replaced); an error of one write that the database backed out by itself
// is that write's outcome.
func (s *Store) runGroup(group []*queuedWrite) (outcomes []writeOutcome, ok bool) {
	outcomes = make([]writeOutcome, len(group))
	// BEGIN and COMMIT are statements of the first write's (its trace shows
	// the group's commit), without its cancellation.
	tx, err := s.db.BeginTx(context.WithoutCancel(group[0].ctx), nil)
	if err != nil {
		return outcomes, false
	}
	in := Conn{s: s, idb: tx, raw: tx.Tx, tx: &tx}
	for i, w := range group {
		c := in
		c.note = w.conn.note
		outcomes[i] = runWrite(context.WithoutCancel(w.ctx), &c, w.fn)
		if outcomes[i].didPanic || (outcomes[i].err != nil && !s.backedOut(outcomes[i].err)) {
			_ = tx.Rollback()
			return outcomes, false
		}
	}
	if s.notedIn(group) {
		if err := in.writeNotes(context.WithoutCancel(group[0].ctx)); err != nil {
			_ = tx.Rollback()
			return outcomes, false
		}
	}
	if err := tx.Commit(); err != nil {
		_ = tx.Rollback()
		return outcomes, false
	}
	return outcomes, true
}

// runWrite runs fn on c as the write of c's note (armed), catching a panic.
func runWrite(ctx context.Context, c *Conn, fn func(ctx context.Context, c *Conn) error) (out writeOutcome) {
	defer func() {
		if v := recover(); v != nil {
			out = writeOutcome{panicked: v, didPanic: true}
		}
	}()
	defer c.s.act(ctx)() // the leader holds the write slot
	return writeOutcome{err: c.armed(func(c *Conn) error { return fn(ctx, c) })}
}

// backedOut reports whether err is the failure of one statement that
// changed nothing and left its transaction going: no row to write, or a
// constraint (SQLite backs the statement out by itself: the dialect's
// Constraint).
func (s *Store) backedOut(err error) bool {
	if errors.Is(err, ErrNotFound) {
		return true
	}
	var ue *UniqueError
	var fe *ForeignKeyError
	if errors.As(err, &ue) || errors.As(err, &fe) {
		return true
	}
	return s.d.Constraint(err)
}
