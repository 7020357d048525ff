package authstore_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/authstore"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestFailureCounter: counts in fixed windows from the first attempt, up to
// a ceiling, forgotten on request, on both databases.
func TestFailureCounter(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		a := authstore.New(s)
		ctx := context.Background()
		fc := a.FailureCounter()
		if a.FailureCounter() != fc {
			t.Fatal("FailureCounter() returns other counts on a second call")
		}
		t0 := time.Date(2026, 11, 24, 12, 0, 0, 123456789, time.UTC)
		const window = time.Minute
		add := func(key string, at time.Duration, ceiling int) authstore.FailureCount {
			t.Helper()
			c, err := fc.Add(ctx, key, t0.Add(at), window, ceiling)
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
		peek := func(key string, at time.Duration) authstore.FailureCount {
			t.Helper()
			c, err := fc.Peek(ctx, key, t0.Add(at))
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
		ends := t0.Add(window).Truncate(time.Microsecond)
		steps := []struct {
			name string
			got  func() authstore.FailureCount
			want authstore.FailureCount
		}{
			{"nothing counted", func() authstore.FailureCount { return peek("a", 0) }, authstore.FailureCount{}},
			{"a first attempt starts a window", func() authstore.FailureCount { return add("a", 0, 3) }, authstore.FailureCount{N: 1, Ends: ends}},
			{"a second one later in it keeps its end", func() authstore.FailureCount { return add("a", 30*time.Second, 3) }, authstore.FailureCount{N: 2, Ends: ends}},
			{"the third reaches the ceiling", func() authstore.FailureCount { return add("a", 40*time.Second, 3) }, authstore.FailureCount{N: 3, Ends: ends}},
			{"a fourth stays at the ceiling", func() authstore.FailureCount { return add("a", 50*time.Second, 3) }, authstore.FailureCount{N: 3, Ends: ends}},
			{"peek sees the count", func() authstore.FailureCount { return peek("a", 59*time.Second) }, authstore.FailureCount{N: 3, Ends: ends}},
			{"other keys are apart", func() authstore.FailureCount { return peek("b", 0) }, authstore.FailureCount{}},
			{"the window ends", func() authstore.FailureCount { return peek("a", window) }, authstore.FailureCount{}},
			{"after it a new one starts", func() authstore.FailureCount { return add("a", window, 3) },
				authstore.FailureCount{N: 1, Ends: t0.Add(2 * window).Truncate(time.Microsecond)}},
		}
		for _, st := range steps {
			got := st.got()
			if got.N != st.want.N || !got.Ends.Truncate(time.Microsecond).Equal(st.want.Ends) {
				t.Errorf("%s: %d until %v, want %d until %v", st.name, got.N, got.Ends, st.want.N, st.want.Ends)
			}
		}
		if err := fc.Forget(ctx, "a"); err != nil {
			t.Fatal(err)
		}
		if c := peek("a", window); c.N != 0 {
			t.Errorf("after Forget: %d", c.N)
		}
		if err := fc.Forget(ctx, "never counted"); err != nil {
			t.Errorf("Forget of an unknown key: %v", err)
		}
	})
}

// TestFailureCounterIsAtomic: concurrent attempts against one key are all
// counted and never pass the ceiling, so exactly ceiling of them are
// allowed by a caller that refuses counts above it.
func TestFailureCounterIsAtomic(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		a := authstore.New(s)
		const attempts, ceiling = 40, 11
		now := time.Now()
		var wg sync.WaitGroup
		counts := make(chan int, attempts)
		for range attempts {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := a.FailureCounter().Add(context.Background(), "k", now, time.Minute, ceiling)
				if err != nil {
					t.Error(err)
					return
				}
				counts <- c.N
			}()
		}
		wg.Wait()
		close(counts)
		below := 0
		for n := range counts {
			if n < ceiling {
				below++
			}
		}
		if below != ceiling-1 {
			t.Errorf("%d attempts saw a count below %d, want %d", below, ceiling, ceiling-1)
		}
	})
}

// TestFailureCountsAreShared: two stores on one PostgreSQL database (two
// processes) see one count; SQLite has one process, so it is not run there.
func TestFailureCountsAreShared(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		if dialect == "sqlite" {
			continue
		}
		t.Run(dialect, func(t *testing.T) {
			one, two := storagetest.OpenTwo(t, dialect)
			ctx, now := context.Background(), time.Now()
			a, b := authstore.New(one), authstore.New(two)
			for i, s := range []*authstore.Store{a, b, a, b} {
				c, err := s.FailureCounter().Add(ctx, "shared", now, time.Minute, 100)
				if err != nil {
					t.Fatal(err)
				}
				if c.N != i+1 {
					t.Errorf("attempt %d: count %d", i+1, c.N)
				}
			}
			if err := a.FailureCounter().Forget(ctx, "shared"); err != nil {
				t.Fatal(err)
			}
			if c, err := b.FailureCounter().Peek(ctx, "shared", now); err != nil || c.N != 0 {
				t.Errorf("after Forget on the other store: %d, %v", c.N, err)
			}
		})
	}
}
