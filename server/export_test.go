package server

import (
	"context"

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
