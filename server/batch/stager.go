package batch

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
)

// stager writes the chunks of an upload beside the request's reading and
// splitting of the body, in transactions of about stageBytes of items each
// (or what came within stageWait).
//
// Why: the split and the staging each take about half of an upload's
// processor time, and the upload comes before anything of the batch may be
// written. Written as they came (a transaction for the one to five chunks
// waiting, four chunks ahead at most), a batch of 100,000 accounts took
// some 250 transactions, each with its statement on the operation and its
// commit, and the split waited on the stager for 50-90 ms of its 350;
// grouped by size and queued by size, the upload took a sixth less time
// (docs/speed.md, "The batch's upload staged in fewer transactions").
//
// Memory: the chunks handed over and not yet written hold at most
// stageQueued bytes of items (a single larger chunk counts as
// stageQueued-stageBytes: the split holds it whole anyway), so a fast split
// waits for the stager rather than holding the body.
type stager struct {
	chunks chan *jobs.Chunk
	failed atomic.Pointer[error]
	done   chan error

	mu     sync.Mutex
	room   *sync.Cond // signalled when queued falls
	queued int        // bytes of chunks handed over, not yet written
}

const (
	stageBytes  = 512 << 10 // the items of one staging transaction, at least (the last one: what is left)
	stageQueued = 4 << 20   // the items handed over and not yet written, at most
	stageAhead  = 256       // chunks handed over and not yet read by the stager, at most (at 100 plain accounts a chunk: 2 MiB)
	// stageWait is the longest a chunk waits for others to share its
	// transaction: a slow upload still stages (and touches its operation,
	// which the housekeeping reads as alive) as its chunks come.
	stageWait = time.Second
)

// queuedSize is what chunk ch counts for against stageQueued. Capped at
// stageQueued-stageBytes, no chunk can wait for room while the stager waits
// for more chunks to fill its transaction: that stager holds less than
// stageBytes, and the two together fit.
func queuedSize(ch *jobs.Chunk) int {
	return min(len(ch.Items)+len(ch.Included), stageQueued-stageBytes)
}

// startStaging starts the stager of one upload into conn; wait must be
// called.
func startStaging(ctx context.Context, conn *storage.Conn) *stager {
	s := &stager{chunks: make(chan *jobs.Chunk, stageAhead), done: make(chan error, 1)}
	s.room = sync.NewCond(&s.mu)
	go func() {
		var err error
		var group []*jobs.Chunk
		for ch := range s.chunks {
			group = append(group[:0], ch)
			size := len(ch.Items) + len(ch.Included)
			due := time.NewTimer(stageWait)
		fill:
			for size < stageBytes {
				select {
				case next, ok := <-s.chunks:
					if !ok {
						break fill
					}
					group = append(group, next)
					size += len(next.Items) + len(next.Included)
				case <-due.C:
					break fill
				}
			}
			due.Stop()
			if err == nil { // after an error, the chunks are only drained: the split stops at its next chunk
				if err = jobs.StageChunks(ctx, conn, group); err != nil {
					s.failed.Store(&err)
				}
			}
			s.written(group)
		}
		s.done <- err
	}()
	return s
}

// stage hands a chunk to the stager once there is room for it, or returns
// the error of an earlier one.
func (s *stager) stage(ch *jobs.Chunk) error {
	if err := s.failed.Load(); err != nil {
		return *err
	}
	n := queuedSize(ch)
	s.mu.Lock()
	for s.queued+n > stageQueued {
		s.room.Wait()
	}
	s.queued += n
	s.mu.Unlock()
	s.chunks <- ch
	return nil
}

// written gives back the room of a group of chunks the stager is done with.
func (s *stager) written(group []*jobs.Chunk) {
	n := 0
	for _, ch := range group {
		n += queuedSize(ch)
	}
	s.mu.Lock()
	s.queued -= n
	s.mu.Unlock()
	s.room.Broadcast()
}

// wait returns once every chunk handed over has been written, with the
// first error.
func (s *stager) wait() error {
	close(s.chunks)
	return <-s.done
}
