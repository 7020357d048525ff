package server

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
