package answercache

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fixed is a reading of the generation that answers g.
func fixed(g *atomic.Int64) func(context.Context) (int64, error) {
	return func(context.Context) (int64, error) { return g.Load(), nil }
}

func answer(body string) *Answer {
	return NewAnswer(http.StatusOK, http.Header{"Content-Type": {"application/json"}}, []byte(body))
}

// TestGetPutByGeneration: an answer is found under its key at its
// generation only; a new generation drops every answer; an answer of an
// older generation than one read is not kept.
func TestGetPutByGeneration(t *testing.T) {
	var g atomic.Int64
	c := New(t.Context(), 1<<20, fixed(&g), nil)
	ctx := context.Background()
	gen, err := c.Fresh(ctx)
	if err != nil || gen != 0 {
		t.Fatalf("Fresh: %d, %v", gen, err)
	}
	c.Put("a", gen, answer("A"))
	if got := c.Get("a", gen); got == nil || string(got.Body) != "A" {
		t.Fatalf("Get a: %v", got)
	}
	if c.Get("b", gen) != nil || c.Get("a", gen+1) != nil {
		t.Fatal("found an answer under another key or generation")
	}
	g.Store(5)
	if gen, _ = c.Fresh(ctx); gen != 5 {
		t.Fatalf("Fresh after the change: %d", gen)
	}
	if s := c.Stats(); s.Answers != 0 || s.Bytes != 0 {
		t.Errorf("after a new generation: %+v, want nothing kept", s)
	}
	c.Put("old", 0, answer("stale")) // rendered before the change was read
	if c.Get("old", 0) != nil || c.Stats().Answers != 0 {
		t.Error("an answer of an older generation was kept")
	}
	c.Put("a", 5, answer("A1"))
	c.Put("a", 5, answer("A2"))
	if got := c.Get("a", 5); string(got.Body) != "A2" || c.Stats().Answers != 1 {
		t.Errorf("a replaced answer: %s, %+v", got.Body, c.Stats())
	}
}

// TestNewAnswerCopies: a kept answer shares nothing with what it was made
// of, and an append to a header value it gave copies.
func TestNewAnswerCopies(t *testing.T) {
	h := http.Header{"Vary": make([]string, 1, 4)}
	h["Vary"][0] = "Accept"
	body := []byte("body")
	a := NewAnswer(http.StatusOK, h, body)
	h["Vary"][0], body[0] = "changed", 'X'
	if a.Header.Get("Vary") != "Accept" || string(a.Body) != "body" {
		t.Fatalf("the answer changed with its source: %v %s", a.Header, a.Body)
	}
	given := a.Header["Vary"]
	_ = append(given, "Origin")
	if len(a.Header["Vary"]) != 1 || cap(a.Header["Vary"]) != 1 {
		t.Errorf("an append wrote into the kept value: %v (cap %d)", a.Header["Vary"], cap(a.Header["Vary"]))
	}
}

// TestEvictionBound: the bytes kept stay within the bound however many
// answers come; an answer served since the last pass outlives one that was
// not; an answer over an eighth of the bound is not kept.
func TestEvictionBound(t *testing.T) {
	var g atomic.Int64
	const bound = 64 << 10
	c := New(t.Context(), bound, fixed(&g), nil)
	gen, _ := c.Fresh(context.Background())
	body := string(make([]byte, 1000))
	c.Put("hot", gen, answer(body))
	for i := range 1000 {
		c.Get("hot", gen) // served between every pass
		c.Put("k"+strconv.Itoa(i), gen, answer(body))
		if b := c.Stats().Bytes; b > bound {
			t.Fatalf("after %d answers: %d bytes kept, bound %d", i+1, b, bound)
		}
	}
	if c.Get("hot", gen) == nil {
		t.Error("the answer served all along was dropped")
	}
	if c.Get("k0", gen) != nil {
		t.Error("the first answer, never served, is still kept")
	}
	if n := c.Stats().Answers; n < 40 {
		t.Errorf("%d answers of about 1.3 KiB kept in 64 KiB", n)
	}
	c.Put("big", gen, answer(string(make([]byte, bound/8))))
	if c.Get("big", gen) != nil {
		t.Error("an answer of an eighth of the bound was kept")
	}
	if len(c.order)-c.head > 4*c.Stats().Answers+64 {
		t.Errorf("the eviction order holds %d entries for %d answers", len(c.order)-c.head, c.Stats().Answers)
	}
}

// TestFreshWaitsForAReadingStartedAfterIt: a request that comes while a
// reading runs is answered by the next one, which sees a change committed
// meanwhile; requests that wait together share one reading.
func TestFreshWaitsForAReadingStartedAfterIt(t *testing.T) {
	var g atomic.Int64
	var readings atomic.Int64
	started := make(chan struct{}, 16)
	release := make(chan struct{})
	c := New(t.Context(), 1<<20, func(context.Context) (int64, error) {
		v := g.Load() // what is committed when the reading starts
		readings.Add(1)
		started <- struct{}{}
		<-release
		return v, nil
	}, nil)
	ctx := context.Background()
	first := make(chan int64)
	go func() { v, _ := c.Fresh(ctx); first <- v }()
	<-started // the first reading runs, and has read 0
	g.Store(1)
	var wg sync.WaitGroup
	late := make([]int64, 8)
	for i := range late {
		wg.Add(1)
		go func() { defer wg.Done(); late[i], _ = c.Fresh(ctx) }()
	}
	waitFor(t, func() bool { c.rounds.mu.Lock(); defer c.rounds.mu.Unlock(); return c.rounds.next != nil })
	time.Sleep(10 * time.Millisecond) // let the other seven join the next reading
	release <- struct{}{}
	if v := <-first; v != 0 {
		t.Errorf("the first request: %d, want 0", v)
	}
	<-started
	release <- struct{}{}
	wg.Wait()
	for i, v := range late {
		if v != 1 {
			t.Errorf("request %d, come while the first reading ran: %d, want 1 (the change before it came)", i, v)
		}
	}
	if n := readings.Load(); n != 2 {
		t.Errorf("%d readings for 9 requests in two groups, want 2", n)
	}
}

// TestFreshFails: a failed reading is every waiter's error; a request whose
// context ends stops waiting.
func TestFreshFails(t *testing.T) {
	down := errors.New("database down")
	c := New(t.Context(), 1<<20, func(context.Context) (int64, error) { return 0, down }, nil)
	if _, err := c.Fresh(context.Background()); !errors.Is(err, down) {
		t.Errorf("Fresh: %v, want %v", err, down)
	}
	block := make(chan struct{})
	defer close(block)
	c = New(t.Context(), 1<<20, func(context.Context) (int64, error) { <-block; return 0, nil }, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := c.Fresh(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Fresh with an ended context: %v", err)
	}
}

// TestFreshAfterLife: once the cache's life ends its reader stops, and
// Fresh fails rather than wait for a reading nobody makes.
func TestFreshAfterLife(t *testing.T) {
	var g atomic.Int64
	life, end := context.WithCancel(context.Background())
	c := New(life, 1<<20, fixed(&g), nil)
	if _, err := c.Fresh(context.Background()); err != nil {
		t.Fatalf("Fresh: %v", err)
	}
	end()
	if _, err := c.Fresh(context.Background()); !errors.Is(err, errClosed) {
		t.Errorf("Fresh after the cache's life: %v, want %v", err, errClosed)
	}
}

// TestFreshByMark: while the commit mark read before the last reading is
// the mark, a request takes that reading's generation without a reading;
// a new mark or an unreadable one sends it to read, and a failed reading
// leaves the last marked reading as it was.
func TestFreshByMark(t *testing.T) {
	var g, readings atomic.Int64
	var fail atomic.Bool
	var mark atomic.Uint32
	var unreadable atomic.Bool
	c := New(t.Context(), 1<<20, func(context.Context) (int64, error) {
		readings.Add(1)
		if fail.Load() {
			return 0, errors.New("database down")
		}
		return g.Load(), nil
	}, func() (Mark, bool) { return Mark{mark.Load()}, !unreadable.Load() })
	ctx := context.Background()
	fresh := func(want int64, wantReadings int64, what string) {
		t.Helper()
		got, err := c.Fresh(ctx)
		if err != nil || got != want || readings.Load() != wantReadings {
			t.Errorf("%s: generation %d (%v) after %d readings, want %d after %d", what, got, err, readings.Load(), want, wantReadings)
		}
	}
	fresh(0, 1, "the first request")
	fresh(0, 1, "a second, the mark unchanged")
	g.Store(5)
	mark.Store(1) // the commit that raised the generation moved the mark
	fresh(5, 2, "after a commit")
	fresh(5, 2, "after a commit, again")
	unreadable.Store(true)
	fresh(5, 3, "with the mark unreadable")
	unreadable.Store(false)
	fresh(5, 3, "the mark readable again, and the one of the last marked reading")
	fail.Store(true)
	mark.Store(2)
	for i := range 2 {
		if _, err := c.Fresh(ctx); err == nil || readings.Load() != int64(4+i) {
			t.Errorf("a commit, then a failed reading %d: %v after %d readings, want an error after %d", i, err, readings.Load(), 4+i)
		}
	}
	fail.Store(false)
	g.Store(6)
	fresh(6, 6, "the database back")
	fresh(6, 6, "then")
	if st := c.Stats(); st.Readings != 6 {
		t.Errorf("Stats().Readings = %d, want 6", st.Readings)
	}
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	for range 500 {
		if ok() {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
	t.Fatal("timed out")
}
