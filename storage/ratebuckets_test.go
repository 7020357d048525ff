package storage_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestRateBuckets: two stores on one database, as two processes, share the
// rate limit's buckets: a push reaches the other's reads, a later push adds
// what it allowed to the row or takes its own later time, whichever is
// later; full buckets and old pushes are not read; full rows are deleted;
// a push of more rows than one statement takes is whole.
func TestRateBuckets(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			one, two := storagetest.OpenTwo(t, dialect)
			ctx := context.Background()
			const t0 = int64(1_800_000_000_000_000_000) // nanoseconds since 1970
			push := func(s *storage.Store, at int64, b ...storage.RateBucket) {
				t.Helper()
				if err := s.PushRateBuckets(ctx, b, at); err != nil {
					t.Fatal(err)
				}
			}
			read := func(s *storage.Store, since, now int64) map[string]int64 {
				t.Helper()
				rows, err := s.RateBucketsSince(ctx, since, now)
				if err != nil {
					t.Fatal(err)
				}
				out := map[string]int64{}
				for _, r := range rows {
					out[r.Key] = r.TAT
				}
				return out
			}
			want := func(step string, got map[string]int64, want map[string]int64) {
				t.Helper()
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Errorf("%s: read %v, want %v", step, got, want)
				}
			}

			push(one, t0, storage.RateBucket{Key: "aa", TAT: t0 + 10, Pushed: 10})
			want("a new row", read(two, t0-1, t0), map[string]int64{"aa": t0 + 10})
			push(two, t0+1, storage.RateBucket{Key: "aa", TAT: t0 + 5, Pushed: 3})
			want("the row's time plus what was allowed", read(one, t0, t0), map[string]int64{"aa": t0 + 13})
			push(one, t0+2, storage.RateBucket{Key: "aa", TAT: t0 + 20, Pushed: 1}, storage.RateBucket{Key: "bb", TAT: t0 + 3, Pushed: 1})
			want("the pusher's own later time", read(two, t0+1, t0), map[string]int64{"aa": t0 + 20, "bb": t0 + 3})
			want("only pushes after since", read(two, t0+2, t0), map[string]int64{})
			want("only buckets not full", read(two, t0-1, t0+3), map[string]int64{"aa": t0 + 20})

			if err := one.ForgetRateBuckets(ctx, t0+4); err != nil {
				t.Fatal(err)
			}
			want("full rows deleted, the others kept", read(two, 0, 0), map[string]int64{"aa": t0 + 20})

			many := make([]storage.RateBucket, 2500)
			for i := range many {
				many[i] = storage.RateBucket{Key: fmt.Sprintf("%064x", i), TAT: t0 + 100, Pushed: 1}
			}
			push(two, t0+3, many...)
			if got := len(read(one, t0+2, t0)); got != len(many) {
				t.Errorf("read %d of %d rows pushed at once", got, len(many))
			}
		})
	}
}
