package server

import (
	"context"
	"time"

	"github.com/entityapi/entityapi/storage/jobs"
)

// ProcessChunkJob runs a batch's chunk job at once, as a worker would, on a
// server whose queue has no workers: the test decides when it runs.
func (s *Server) ProcessChunkJob(ctx context.Context, job jobs.ChunkJob) error {
	return s.queue.Process(ctx, job)
}

// HoldSyncBatches makes every synchronous batch of s wait, before its chunk
// runs, until release is closed; nil stops holding. It lets a test order a run
// after the moment its request gives up waiting, which timing alone cannot.
func (s *Server) HoldSyncBatches(release chan struct{}) {
	if release == nil {
		s.syncHold.Store(nil)
		return
	}
	s.syncHold.Store(&release)
}

// ShareRateLimit runs one share of the rate limit's buckets with the other
// processes at now, as the ticker does every --rate-limit-share: a test
// decides when the processes learn of each other.
func (s *Server) ShareRateLimit(ctx context.Context, now time.Time) error {
	return s.rates.share(ctx, now)
}

// SetRateClock makes the rate limit read the time from now.
func (s *Server) SetRateClock(now func() time.Time) {
	s.rates.l.clock.Store(&now)
}

// HoldKeyedWrites makes every keyed write of s (Idempotency-Key) stop inside
// its transaction until h.Release (see KeyedHold); nil stops holding.
func (s *Server) HoldKeyedWrites(h *KeyedHold) { s.keyedHold.Store(h) }

// Maintain runs the housekeeping of s once, as its periodic job does.
func (s *Server) Maintain(ctx context.Context) error { return s.queue.Maintain(ctx) }
