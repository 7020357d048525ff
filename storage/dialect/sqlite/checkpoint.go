package sqlite

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
	"time"

	"modernc.org/sqlite"
)

// Checkpoints (docs/decisions.md §26): in WAL mode a commit appends the
// pages it changed to the log (the "-wal" file), and a checkpoint copies
// them back into the database file, with an fsync of each. By default
// SQLite checkpoints inside the commit that takes the log past 1,000 pages
// (wal_autocheckpoint), so the writer that crosses the line waits for the
// copy and both fsyncs while it holds the file's only write lock: in a
// 100,000-record batch about fifteen times, a tenth of its writer's time.
//
// So no connection of this process checkpoints in its commits
// (wal_autocheckpoint(0) in pragmas). A checkpointer does it on a
// connection of its own, beside the writer: the store tells it each time
// one of its writes ends (Wrote, dialect.Checkpointer), and it checkpoints
// checkpointDelay later, once for all the writes of that time. The log then
// holds at most about that long of writes, far less than 1,000 pages under
// a batch, and that measured faster still: a batch of 100,000 records
// wrote 5 to 10% faster with a checkpoint every 50 ms of writes than with
// SQLite's own (12 of 12 alternating rounds, in each of two runs; issue 34,
// docs/speed.md), and 5% faster than with this
// checkpointer waiting for 1,000 pages as SQLite does (12 of 12); 20 and
// 100 ms measured 6% slower than 50, and a checkpoint right after each
// write gained nothing. An idle process makes no checkpoint and wakes for
// none.
//
// The checkpoint is PASSIVE, as SQLite's automatic one: it copies what no
// reader still needs and never waits for a reader or a writer, so the
// writer goes on meanwhile. What is committed is as safe as before: a commit
// is in the log, which survives a crash of the process, and the log is made
// durable at each checkpoint, as it was (synchronous(NORMAL)), only sooner.
// When the last connection closes, SQLite checkpoints the whole log and
// removes it.

// checkpointDelay is how long after a write its checkpoint runs (see above).
const checkpointDelay = 50 * time.Millisecond

// checkpointTimeout bounds one checkpoint (a PASSIVE one never waits for a
// lock; this is for a disk that stops answering).
const checkpointTimeout = time.Minute

// checkpointer runs the checkpoints of one file.
type checkpointer struct {
	db    *sql.DB       // one connection of its own, with the store's pragmas
	nudge chan struct{} // a write ended; holds one, as many writes are one wake-up
	stop  chan struct{}
	done  chan struct{}
	// stopping closes stop once: a store may be closed twice.
	stopping sync.Once
	// runs counts the checkpoints made, failed counts those that failed
	// (tests).
	runs, failed atomic.Int64
}

// startCheckpointer starts the checkpointer of the file dsn names.
func startCheckpointer(dsn string) *checkpointer {
	db := sql.OpenDB(connector{d: &sqlite.Driver{}, dsn: dsn})
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	c := &checkpointer{db: db, nudge: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go c.loop()
	return c
}

// wrote wakes the checkpointer and returns at once: a wake-up already
// pending stands for this write too.
func (c *checkpointer) wrote() {
	select {
	case c.nudge <- struct{}{}:
	default:
	}
}

func (c *checkpointer) loop() {
	defer close(c.done)
	delay := time.NewTimer(checkpointDelay)
	delay.Stop()
	for {
		select {
		case <-c.stop:
			return
		case <-c.nudge:
		}
		delay.Reset(checkpointDelay)
		select {
		case <-c.stop:
			return
		case <-delay.C:
		}
		// A write from now on wakes it again. An error leaves the log as
		// it is for the next one; a disk that fails fails the writes too.
		_ = c.checkpoint(context.Background())
	}
}

// checkpoint copies into the file what the log holds and no reader needs.
func (c *checkpointer) checkpoint(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, checkpointTimeout)
	defer cancel()
	// It answers busy, the log's pages and those copied; busy (another
	// process's checkpoint under way) leaves the work to that one.
	_, err := c.db.ExecContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)")
	c.runs.Add(1)
	if err != nil {
		c.failed.Add(1)
	}
	return err
}

// close stops the checkpointer and closes its connection; closing again
// does nothing more.
func (c *checkpointer) close() error {
	c.stopping.Do(func() { close(c.stop) })
	<-c.done
	return c.db.Close()
}

// Wrote tells the checkpointer that a write of this process has ended
// (dialect.Checkpointer); nothing for ":memory:", which has no log.
func (d *DB) Wrote() {
	if d.checkpoints != nil {
		d.checkpoints.wrote()
	}
}
