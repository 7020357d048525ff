package jobs_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// lockedBuffer is a log destination that River's goroutines may share.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestQueueStopLogsNoError starts and stops a queue at several moments of its
// first seconds, when River's leader is starting its maintenance services
// (a process stopped then logged `ERROR ... context canceled`): a clean stop
// logs no error.
func TestQueueStopLogsNoError(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		for _, after := range []time.Duration{300 * time.Millisecond, time.Second, 1700 * time.Millisecond} {
			var out lockedBuffer
			q, err := jobs.NewQueue(s, jobs.Config{Workers: 1, PollEvery: 100 * time.Millisecond,
				Logger: slog.New(slog.NewTextHandler(&out, nil))})
			if err != nil {
				t.Fatal(err)
			}
			q.Handle(func(context.Context, jobs.ChunkJob) error { return nil })
			if err := q.Start(context.Background()); err != nil {
				t.Fatal(err)
			}
			time.Sleep(after)
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			err = q.Stop(ctx)
			cancel()
			if err != nil {
				t.Errorf("stop after %v: %v", after, err)
			}
			if log := out.String(); strings.Contains(log, "level=ERROR") {
				t.Errorf("stop after %v logged an error:\n%s", after, log)
			}
		}
	})
}
