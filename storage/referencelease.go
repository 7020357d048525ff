package storage

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"strconv"
	"sync/atomic"
	"time"
)

// The reference lease (docs/answers.md, "Freshness on PostgreSQL";
// migration 0024): on PostgreSQL a process that keeps answers of reference
// data holds an advisory lock shared, on a connection of its own, which
// every transaction that changes reference data must take exclusive before
// it commits. While the process holds it, nothing changes the reference
// tables, and a reading of their generation made after the process took
// it stays true: the answer cache trusts it without reading again for each
// request (ReferenceMark).
//
// Every referenceLeaseCycle the process lets go of the lock, so that a
// waiting change can take it, and asks for it again: a change waiting for
// it goes first, and the lock comes back only once the change committed.
// The process then reads the generation on its connection: when it moved,
// the mark moves, and the next request reads the generation again.
//
// The process trusts its lock for referenceLeaseTerm after it asked for it,
// and no longer: a connection cut without the process knowing (a server
// restart, pg_terminate_backend) loses the lock at once, and a change may
// take it; the change then waits as long (migration 0024's pg_sleep) before
// it commits. The server also ends the session when the process is silent
// for referenceLeaseIdle (idle_session_timeout), so that a process cut off
// by the network holds no change back for long.
const (
	referenceFenceKey   = 734190034 // migration 0024's advisory lock
	referenceLeaseTerm  = 250 * time.Millisecond
	referenceLeaseCycle = 50 * time.Millisecond
	referenceLeaseIdle  = time.Second
	// referenceLeaseRetry spaces the attempts to connect after a failure.
	referenceLeaseRetry = time.Second
)

// referenceLease is a process's hold of the reference fence.
type referenceLease struct {
	// until is when the lease lapses, in nanoseconds on leaseClock; 0 while
	// the process holds no lock (between cycles, after a failure, idle).
	until atomic.Int64
	// epoch moves whenever the generation read after taking the lock is
	// not the one read the time before.
	epoch atomic.Uint32
	// used is when the mark was last asked for (leaseClock, to
	// referenceLeaseTouch); a lease unused for idleAfter lets the lock go
	// and closes its connection, until wake.
	used      atomic.Int64
	idleAfter time.Duration
	wake      chan struct{} // buffered 1: the mark was asked for while no lock was held
}

// An idle process holds no lease: its cycles would cost the database three
// statements every 50 ms for nothing.
const (
	referenceLeaseIdleAfter = 5 * time.Second
	// referenceLeaseTouch is how stale used may get before a request
	// writes it again: most requests only read it.
	referenceLeaseTouch = 100 * time.Millisecond
)

// leaseClock is the monotonic clock the lease is timed by.
var leaseClock = time.Now()

func leaseNow() int64 { return int64(time.Since(leaseClock)) }

// mark is the lease's epoch, ok while the lease holds. It counts as a use,
// and wakes an idle lease.
func (l *referenceLease) mark() (CommitMark, bool) {
	now := leaseNow()
	if now-l.used.Load() > int64(referenceLeaseTouch) {
		l.used.Store(now)
	}
	until := l.until.Load()
	e := l.epoch.Load()
	if until == 0 {
		select {
		case l.wake <- struct{}{}:
		default:
		}
		return CommitMark{}, false
	}
	if now >= until || l.until.Load() != until {
		return CommitMark{}, false
	}
	return CommitMark{e}, true
}

// wanted tells whether the mark was asked for within idleAfter.
func (l *referenceLease) wanted() bool {
	used := l.used.Load()
	return used != 0 && leaseNow()-used < int64(l.idleAfter)
}

// errLeaseIdle ends a lease's connection when nobody asked for the mark
// for a while.
var errLeaseIdle = errors.New("storage: the reference lease is idle")

// KeepReferenceLease holds the reference fence for this process until ctx
// ends, where the database has one (PostgreSQL reached directly: a pooler
// in transaction mode shares sessions, and an advisory lock is a
// session's), while the mark is asked for: the first ReferenceMark starts
// the lease, and 5 s without one let it go. ReferenceMark reads the lease;
// until a lock is taken, and whenever the lease lapses, it tells the
// caller to read the generation.
func (s *Store) KeepReferenceLease(ctx context.Context) {
	s.keepReferenceLease(ctx, referenceLeaseIdleAfter)
}

func (s *Store) keepReferenceLease(ctx context.Context, idleAfter time.Duration) {
	if s.f.InProcess || s.Pooler() == PoolerTransaction {
		return
	}
	l := &referenceLease{idleAfter: idleAfter, wake: make(chan struct{}, 1)}
	s.lease.Store(l)
	go func() {
		for ctx.Err() == nil {
			if !l.wanted() {
				select {
				case <-l.wake:
				case <-ctx.Done():
				}
				continue
			}
			err := s.holdReferenceLease(ctx, l)
			l.until.Store(0)
			if err != nil && !errors.Is(err, errLeaseIdle) && ctx.Err() == nil {
				select { // the database is down or refused: try again later
				case <-ctx.Done():
				case <-time.After(referenceLeaseRetry):
				}
			}
		}
	}()
}

// holdReferenceLease runs the lease's cycles on a connection of its own
// until ctx ends or the connection fails.
func (s *Store) holdReferenceLease(ctx context.Context, l *referenceLease) error {
	conn, err := s.db.DB.Conn(ctx)
	if err != nil {
		return err
	}
	defer giveBackLeaseConn(conn)
	// PostgreSQL 14 and later: 13 has no idle_session_timeout, and the
	// lease holds there without it.
	_, _ = conn.ExecContext(ctx, "SET idle_session_timeout = "+strconv.FormatInt(referenceLeaseIdle.Milliseconds(), 10))
	last := int64(-1)
	for {
		asked := leaseNow()
		if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_lock_shared($1)", referenceFenceKey); err != nil {
			return err
		}
		var gen int64
		if err := conn.QueryRowContext(ctx, referenceGenerationQuery).Scan(&gen); err != nil {
			return err
		}
		if gen != last {
			l.epoch.Add(1)
			last = gen
		}
		l.until.Store(asked + int64(referenceLeaseTerm))
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(referenceLeaseCycle):
		}
		l.until.Store(0) // before the lock goes: nobody trusts the lease while a change may come
		if !l.wanted() {
			return errLeaseIdle // the session ends, and its lock with it
		}
		if _, err := conn.ExecContext(ctx, "SELECT pg_advisory_unlock_shared($1)", referenceFenceKey); err != nil {
			return err
		}
	}
}

// giveBackLeaseConn returns the lease's connection to the pool as the pool
// gave it: without the lock and the idle timeout, which would stay with the
// session (the pool keeps sessions open: PostgreSQL's database/sql
// connections are pgx's pool's). When that fails the connection is
// discarded: a session that did not answer holds nothing the pool can use.
func giveBackLeaseConn(conn *sql.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), referenceLeaseIdle)
	defer cancel()
	_, err := conn.ExecContext(ctx, "SELECT pg_advisory_unlock_all()")
	if err == nil {
		_, err = conn.ExecContext(ctx, "RESET idle_session_timeout")
	}
	if err != nil {
		_ = conn.Raw(func(any) error { return driver.ErrBadConn })
	}
	_ = conn.Close()
}

// ReferenceMark is a value that moves with every committed change of
// reference data, read without a statement, for the answer cache
// (answercache.New's marks): on PostgreSQL the lease's epoch while
// KeepReferenceLease holds it, on a SQLite file the commit mark (any
// commit moves it); ok is false when neither can tell now, and the caller
// reads the generation.
func (s *Store) ReferenceMark() (CommitMark, bool) {
	if l := s.lease.Load(); l != nil {
		return l.mark()
	}
	return s.CommitMark()
}
