package server

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestRateShareOutOfReach: when the shared counts cannot be read or written
// (here their table is renamed away), the process goes on limiting on its
// own, by its local buckets, never refusing for that; it logs the first
// failure once, not each share, and once that the counts are back.
func TestRateShareOutOfReach(t *testing.T) {
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			store := storagetest.Open(t, dialect)
			var logged bytes.Buffer
			l := newLimiter(RateLimitConfig{PerSecond: 0.001, Burst: 3}, 10)
			r := newRateShare(l, store, time.Hour, slog.New(slog.NewTextHandler(&logged, nil)))
			ctx := context.Background()
			now := time.Now()
			rename := func(from, to string) {
				t.Helper()
				if _, err := store.Bun().NewRaw("ALTER TABLE " + from + " RENAME TO " + to).Exec(ctx); err != nil {
					t.Fatal(err)
				}
			}
			lines := func(level string) int { return strings.Count(logged.String(), "level="+level) }

			l.allow("a", now)
			rename("rate_limit_buckets", "rate_limit_buckets_away")
			for range 3 {
				if err := r.share(ctx, now); err == nil {
					t.Fatal("a share without its table succeeded")
				}
			}
			if ok, _ := l.allow("a", now); !ok {
				t.Error("refused within the burst while the shared counts are out of reach")
			}
			l.allow("a", now)
			if ok, _ := l.allow("a", now); ok {
				t.Error("allowed past the burst: the local limit stopped with the shared counts")
			}
			if lines("WARN") != 1 || lines("INFO") != 0 {
				t.Errorf("three failed shares logged:\n%s", logged.String())
			}

			rename("rate_limit_buckets_away", "rate_limit_buckets")
			if err := r.share(ctx, now); err != nil {
				t.Fatal(err)
			}
			if lines("WARN") != 1 || lines("INFO") != 1 {
				t.Errorf("the share that succeeded logged:\n%s", logged.String())
			}
		})
	}
}
