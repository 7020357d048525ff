package storage

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"
)

// This file sends reads to a streaming replica while it is close enough to
// the primary, and keeps each principal's reads on the primary until the
// replica has replayed that principal's last write (docs/scaling.md, "Read
// replicas"):
//
//   - A monitor asks the primary for its write position and the replica for
//     its replayed position every ReplicaOptions.Every. The replica's lag is
//     how long ago the primary was where the replica is now (the newest
//     sample of the primary's position the replica has passed); a replica
//     that is down, is not in recovery, or lags more than MaxLag is bypassed.
//   - After a principal's write commits, and before its answer leaves
//     (NoteWrite), the primary's position is recorded as the principal's
//     fence in read_fences, on the primary, which every process reads: a
//     read of that principal goes to the replica only when the replica has
//     replayed past its fence, so a client reads its own writes whichever
//     process serves its next request.
//   - Fences older than twice MaxLag are deleted: a replica that is used
//     lags less than MaxLag, so it has replayed them.

// ReplicaOptions are how a store uses its read replica.
type ReplicaOptions struct {
	// MaxLag is the most a replica may lag and still serve reads
	// (DefaultReplicaMaxLag when 0).
	MaxLag time.Duration
	// Every is how often the positions are read (DefaultReplicaEvery when 0).
	Every time.Duration
	// Logger tells when the replica is bypassed and when it serves again
	// (slog.Default when nil).
	Logger *slog.Logger
}

// The replica's defaults.
const (
	DefaultReplicaMaxLag = 5 * time.Second
	DefaultReplicaEvery  = 100 * time.Millisecond
)

// errNoReplicas reports a replica asked of a database that has none.
var errNoReplicas = errors.New("read replicas need PostgreSQL")

// replica is a store's read replica and what the monitor knows of it.
type replica struct {
	store *Store // on the replica: reads only
	opts  ReplicaOptions
	state atomic.Pointer[replicaState]
	stop  context.CancelFunc
	done  chan struct{}
	reads atomic.Int64 // reads sent to the replica (ReplicaReads)
	// holdUntil (Unix nanoseconds): no read goes to the replica before
	// then, after a fence could not be recorded (noteCommit).
	holdUntil atomic.Int64
}

// replicaState is one reading of the monitor.
type replicaState struct {
	usable   bool  // up, in recovery, lagging at most MaxLag
	replayed int64 // the replica's replayed position
	lag      time.Duration
	reason   string // why it is not usable ("" when it is)
}

// positionSample is the primary's position at a time.
type positionSample struct {
	at  time.Time
	pos int64
}

// AttachReplica opens url, a streaming replica of s's database, with opts,
// and from then on lends it to ReadConn while it is fresh. It checks that the
// replica answers but not that it is fresh: that is the monitor's work,
// which runs until Close.
func (s *Store) AttachReplica(ctx context.Context, url string, opts Options, ro ReplicaOptions) error {
	if s.f.WALPosition == "" {
		return errNoReplicas
	}
	if ro.MaxLag <= 0 {
		ro.MaxLag = DefaultReplicaMaxLag
	}
	if ro.Every <= 0 {
		ro.Every = DefaultReplicaEvery
	}
	if ro.Logger == nil {
		ro.Logger = slog.Default()
	}
	rs, err := OpenWith(ctx, url, opts)
	if err != nil {
		return fmt.Errorf("storage: read replica: %w", err)
	}
	mctx, stop := context.WithCancel(context.Background())
	r := &replica{store: rs, opts: ro, stop: stop, done: make(chan struct{})}
	r.state.Store(&replicaState{reason: "not read yet"})
	s.replica = r
	go s.monitorReplica(mctx, r)
	return nil
}

// closeReplica stops the monitor and closes the replica's pool.
func (s *Store) closeReplica() {
	if s.replica == nil {
		return
	}
	s.replica.stop()
	<-s.replica.done
	_ = s.replica.store.Close()
}

// principalKey keys a context's principal (WithPrincipal).
type principalKey struct{}

// WithPrincipal names, in ctx, who the reads and writes made with it are
// for (a stable key of the token's client and user): the writes that commit
// with it set that principal's fence, and ReadConn keeps its reads on the
// primary until a replica has replayed past it.
func WithPrincipal(ctx context.Context, principal string) context.Context {
	return context.WithValue(ctx, principalKey{}, principal)
}

// principalOf is the principal WithPrincipal put in ctx, "" for none.
func principalOf(ctx context.Context) string {
	p, _ := ctx.Value(principalKey{}).(string)
	return p
}

// ReadConn is the Conn a read runs on: the replica's when it is fresh and
// has replayed past the last write of ctx's principal (its fence), else the
// primary's. A context without a principal has no fence (a storefront
// guest). Any doubt (the fence cannot be read), or a context OnPrimary,
// sends the read to the primary.
func (s *Store) ReadConn(ctx context.Context) *Conn {
	r := s.replica
	if r == nil || ctx.Value(primaryKey{}) != nil {
		return s.Conn
	}
	principal := principalOf(ctx)
	st := r.state.Load()
	if !st.usable || time.Now().UnixNano() < r.holdUntil.Load() {
		return s.Conn
	}
	if principal != "" {
		var fence int64
		var q sqlText
		q.add("SELECT lsn FROM read_fences WHERE principal = ?", principal)
		switch err := s.Conn.queryRow(ctx, &q, &fence); {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return s.Conn
		case fence > st.replayed:
			return s.Conn
		}
	}
	r.reads.Add(1)
	return r.store.Conn
}

// NoteWrite records where the primary's log is now as the fence of ctx's
// principal, which its later reads wait for on a replica (ReadConn). Every
// write transaction that commits with a principal calls it (Conn.Tx),
// before its caller can answer; others call it when what their principal
// will read next was written without one (a batch's chunks, by the job
// queue's workers). It does nothing without a replica.
func (s *Store) NoteWrite(ctx context.Context) error {
	principal := principalOf(ctx)
	if s.replica == nil || principal == "" {
		return nil
	}
	var q sqlText
	q.add("INSERT INTO read_fences (principal, lsn, written_at) VALUES (?, "+s.f.WALPosition+", ?) "+
		"ON CONFLICT (principal) DO UPDATE SET lsn = excluded.lsn, written_at = excluded.written_at", principal, now())
	_, err := s.Conn.exec(ctx, &q)
	return s.mapError("note a write", "read_fences", err)
}

// noteCommit records the fence of a write transaction that has committed
// (Conn.Tx). When it cannot, the write stands, and the replica serves no
// read for MaxLag: by then one that serves again has replayed the write.
func (s *Store) noteCommit(ctx context.Context) {
	if s.replica == nil || principalOf(ctx) == "" {
		return
	}
	if err := s.NoteWrite(context.WithoutCancel(ctx)); err != nil {
		s.replica.holdUntil.Store(time.Now().Add(s.replica.opts.MaxLag).UnixNano())
		s.replica.opts.Logger.Warn("read replica held off: a write's fence could not be recorded", "error", err.Error())
	}
}

// HasReplica tells whether a read replica is attached (AttachReplica).
func (s *Store) HasReplica() bool { return s.replica != nil }

// ReplicaReads is how many reads ReadConn has sent to the replica.
func (s *Store) ReplicaReads() int64 {
	if s.replica == nil {
		return 0
	}
	return s.replica.reads.Load()
}

// ReplicaStatus says whether the replica serves reads now, its lag, and
// why not when it does not ("no replica" without one).
func (s *Store) ReplicaStatus() (usable bool, lag time.Duration, reason string) {
	if s.replica == nil {
		return false, 0, "no replica"
	}
	st := s.replica.state.Load()
	return st.usable, st.lag, st.reason
}

// monitorReplica reads both positions every r.opts.Every until ctx ends.
func (s *Store) monitorReplica(ctx context.Context, r *replica) {
	defer close(r.done)
	tick := time.NewTicker(r.opts.Every)
	defer tick.Stop()
	var (
		samples []positionSample // the primary's, oldest first, covering 2*MaxLag
		cleaned time.Time
	)
	for {
		now := time.Now()
		st, sample := s.readReplica(ctx, r, samples, now)
		if sample.pos > 0 {
			samples = append(samples, sample)
			cut := 0
			for cut < len(samples)-1 && now.Sub(samples[cut].at) > 2*r.opts.MaxLag {
				cut++
			}
			samples = samples[cut:]
		}
		if old := r.state.Swap(st); old.usable != st.usable && ctx.Err() == nil {
			if st.usable {
				r.opts.Logger.Info("read replica serves reads", "lag", st.lag.String())
			} else {
				r.opts.Logger.Warn("read replica bypassed: reads go to the primary", "reason", st.reason)
			}
		}
		if now.Sub(cleaned) > r.opts.MaxLag {
			cleaned = now
			var q sqlText
			q.add("DELETE FROM read_fences WHERE written_at < ?", now.Add(-2*r.opts.MaxLag).UTC())
			_, _ = s.Conn.exec(ctx, &q)
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// readReplica reads the primary's position and the replica's, and judges
// the replica against the primary's earlier positions.
func (s *Store) readReplica(ctx context.Context, r *replica, samples []positionSample, now time.Time) (*replicaState, positionSample) {
	rctx, cancel := context.WithTimeout(ctx, max(r.opts.Every, time.Second))
	defer cancel()
	var primary positionSample
	var q sqlText
	q.add("SELECT " + s.f.WALPosition)
	if err := s.Conn.queryRow(rctx, &q, &primary.pos); err != nil {
		return &replicaState{reason: "the primary's position: " + err.Error()}, positionSample{}
	}
	primary.at = now
	var replayed *int64
	var rq sqlText
	rq.add("SELECT " + s.f.ReplayPosition)
	if err := r.store.Conn.queryRow(rctx, &rq, &replayed); err != nil {
		return &replicaState{reason: "unreachable: " + err.Error()}, primary
	}
	if replayed == nil {
		return &replicaState{reason: "not a streaming replica (not in recovery)"}, primary
	}
	st := &replicaState{replayed: *replayed}
	switch {
	case *replayed >= primary.pos:
		st.lag = 0
	default:
		// The newest earlier sample the replica has passed: the primary
		// was there at its time, so everything committed before it is on
		// the replica. None: the replica is behind all the history kept.
		st.lag = 2*r.opts.MaxLag + time.Nanosecond
		for i := len(samples) - 1; i >= 0; i-- {
			if samples[i].pos <= *replayed {
				st.lag = now.Sub(samples[i].at)
				break
			}
		}
	}
	st.usable = st.lag <= r.opts.MaxLag
	if !st.usable {
		st.reason = fmt.Sprintf("lags %s, more than %s", st.lag.Round(time.Millisecond), r.opts.MaxLag)
	}
	return st, primary
}
