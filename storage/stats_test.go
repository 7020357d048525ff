package storage_test

import (
	"context"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestPoolStats reads the pool's figures on both databases: bounded, and
// open once a connection was used.
func TestPoolStats(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if st := s.PoolStats(); st.MaxOpen == 0 {
			t.Errorf("the pool is bounded, yet MaxOpen is 0: %+v", st)
		}
		if err := s.Ping(ctx); err != nil {
			t.Fatal(err)
		}
		if st := s.PoolStats(); st.Open == 0 {
			t.Errorf("after a ping no connection is open: %+v", st)
		}
	})
}
