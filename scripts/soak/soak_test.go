package main

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

func TestPercentile(t *testing.T) {
	t.Parallel()
	hundred := make([]time.Duration, 100)
	for i := range hundred {
		hundred[i] = time.Duration(i+1) * time.Millisecond
	}
	for _, tc := range []struct {
		name   string
		sorted []time.Duration
		p      float64
		want   time.Duration
	}{
		{"none", nil, 50, 0},
		{"one value is every percentile", []time.Duration{7}, 99, 7},
		{"median of three", []time.Duration{1, 2, 3}, 50, 2},
		{"median of four is the lower middle", []time.Duration{1, 2, 3, 4}, 50, 2},
		{"p50 of 1..100 ms", hundred, 50, 50 * time.Millisecond},
		{"p99 of 1..100 ms", hundred, 99, 99 * time.Millisecond},
		{"p99 of three is the largest", []time.Duration{1, 2, 3}, 99, 3},
		{"p100 is the largest", hundred, 100, 100 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := percentile(tc.sorted, tc.p); got != tc.want {
				t.Errorf("percentile(%v, %v) = %v, want %v", tc.sorted, tc.p, got, tc.want)
			}
		})
	}
}

func TestRecorderSummaries(t *testing.T) {
	t.Parallel()
	r := newRecorder()
	for _, ms := range []int{3, 1, 2} {
		r.add("a", time.Duration(ms)*time.Millisecond, nil)
	}
	r.add("b", 10*time.Millisecond, errors.New("status 500"))
	r.fail("c", errors.New("operation failed"))
	got := r.summaries([]string{"a", "b", "c", "never"})
	want := []summary{
		{kind: "a", requests: 3, p50: 2 * time.Millisecond, p99: 3 * time.Millisecond, max: 3 * time.Millisecond},
		{kind: "b", requests: 1, errors: 1, p50: 10 * time.Millisecond, p99: 10 * time.Millisecond, max: 10 * time.Millisecond},
		{kind: "c", errors: 1},
		{kind: "all", requests: 4, errors: 2, p50: 2 * time.Millisecond, p99: 10 * time.Millisecond, max: 10 * time.Millisecond},
	}
	if !slices.Equal(got, want) {
		t.Errorf("summaries:\n got %+v\nwant %+v", got, want)
	}
	if n, shown := r.failures(); n != 2 || len(shown) != 2 || shown[0] != "b: status 500" {
		t.Errorf("failures() = %d, %q", n, shown)
	}
	if r.count() != 4 {
		t.Errorf("count() = %d, want 4", r.count())
	}
}

func TestMixCycle(t *testing.T) {
	t.Parallel()
	cycle := mixCycle(mixWeights)
	if len(cycle) != 100 {
		t.Fatalf("cycle of %d, want 100", len(cycle))
	}
	counts := map[string]int{}
	for _, k := range cycle {
		counts[k]++
	}
	for _, w := range mixWeights {
		if counts[w.kind] != w.n {
			t.Errorf("%s: %d in the cycle, want %d", w.kind, counts[w.kind], w.n)
		}
	}
	// Spread, not runs: the heaviest kind (30 of 100) never comes three times in a row.
	for i := range cycle {
		if cycle[i] == cycle[(i+1)%100] && cycle[i] == cycle[(i+2)%100] {
			t.Errorf("%s three times in a row at %d", cycle[i], i)
		}
	}
}

// fakeClock advances only when slept on, overshooting each wake-up by
// late, as a busy machine's timers do.
type fakeClock struct {
	t      time.Time
	late   time.Duration
	sleeps int
}

func (c *fakeClock) now() time.Time { return c.t }

func (c *fakeClock) sleepUntil(_ context.Context, t time.Time) bool {
	c.sleeps++
	c.t = t.Add(c.late)
	return true
}

func TestDispatchArrivals(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name     string
		rate     float64
		duration time.Duration
		late     time.Duration
		queue    int
		wantSent int64
		wantShed int64
	}{
		{"on time", 100, 10 * time.Second, 0, 10_000, 1000, 0},
		{"late wake-ups catch up without losing arrivals", 100, 10 * time.Second, 35 * time.Millisecond, 10_000, 1000, 0},
		{"a fractional rate", 2.5, 4 * time.Second, 0, 100, 10, 0},
		{"a full queue sheds instead of waiting", 100, time.Second, 0, 30, 30, 70},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clk := &fakeClock{t: start, late: tc.late}
			o := newOpenLoop(start, tc.rate, tc.duration)
			queue := make(chan arrival, tc.queue)
			sent, shed := dispatch(context.Background(), o, queue, clk)
			close(queue)
			if sent != tc.wantSent || shed != tc.wantShed {
				t.Fatalf("sent %d, shed %d; want %d, %d", sent, shed, tc.wantSent, tc.wantShed)
			}
			interval := time.Duration(float64(time.Second) / tc.rate)
			var i int64
			for a := range queue {
				// Each arrival keeps its due time, however late it went out:
				// latency counts from there (no coordinated omission).
				if a.seq != i || a.due != start.Add(time.Duration(i)*interval) {
					t.Fatalf("arrival %d: %+v, want seq %d due %v", i, a, i, start.Add(time.Duration(i)*interval))
				}
				i++
			}
			if tc.late > 0 && clk.sleeps >= int(tc.wantSent) {
				t.Errorf("%d sleeps for %d arrivals: overdue arrivals should go out without sleeping", clk.sleeps, tc.wantSent)
			}
			// The last arrival is due just before the end: the rate holds over the run.
			if last := o.dueAt(o.total - 1); last.Sub(start) > tc.duration || tc.duration-last.Sub(start) > interval {
				t.Errorf("last arrival due at %v of %v", last.Sub(start), tc.duration)
			}
		})
	}
}

func TestDispatchStopsWithContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	sent, shed := dispatch(ctx, newOpenLoop(start.Add(time.Hour), 10, time.Minute), make(chan arrival, 10), wallClock{})
	if sent != 0 || shed != 0 || time.Since(start) > 10*time.Second {
		t.Errorf("sent %d, shed %d after %v; want nothing, at once", sent, shed, time.Since(start))
	}
}

func TestRSSVerdict(t *testing.T) {
	t.Parallel()
	s := func(sec int, kb int64) rssSample { return rssSample{at: time.Duration(sec) * time.Second, kb: kb} }
	for _, tc := range []struct {
		name               string
		samples            []rssSample
		wantStart, wantEnd int64
		wantGrowth         float64
		wantOK             bool
	}{
		{"the warm-up growth does not count", []rssSample{s(0, 10_000), s(10, 40_000), s(60, 44_000)}, 40_000, 44_000, 0.10, true},
		{"growth at the limit passes", []rssSample{s(10, 50_000), s(60, 60_000)}, 50_000, 60_000, 0.20, true},
		{"growth beyond the limit fails", []rssSample{s(10, 50_000), s(30, 55_000), s(60, 60_100)}, 50_000, 60_100, 0.202, false},
		{"a drop passes", []rssSample{s(10, 50_000), s(60, 30_000)}, 50_000, 30_000, -0.40, true},
		{"one swing at either end is not growth", []rssSample{
			s(10, 50_000), s(15, 40_000), s(20, 50_000), s(25, 50_000),
			s(30, 55_000), s(35, 55_000), s(40, 70_000), s(45, 55_000)}, 50_000, 55_000, 0.10, true},
		{"a steady climb is growth", []rssSample{
			s(10, 50_000), s(15, 54_000), s(20, 58_000), s(25, 62_000),
			s(30, 66_000), s(35, 70_000), s(40, 74_000), s(45, 78_000)}, 54_000, 74_000, 20.0 / 54, false},
		{"no sample after the warm-up says nothing", []rssSample{s(0, 10_000), s(5, 20_000)}, 0, 0, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			start, end, growth, ok := rssVerdict(tc.samples, 10*time.Second)
			if start.kb != tc.wantStart || end.kb != tc.wantEnd || ok != tc.wantOK ||
				growth < tc.wantGrowth-1e-9 || growth > tc.wantGrowth+1e-9 {
				t.Errorf("start %d, end %d, growth %.4f, ok %v; want %d, %d, %.4f, %v",
					start.kb, end.kb, growth, ok, tc.wantStart, tc.wantEnd, tc.wantGrowth, tc.wantOK)
			}
		})
	}
}

func TestWarmUp(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]time.Duration{
		time.Minute:      10 * time.Second,
		2 * time.Minute:  12 * time.Second,
		10 * time.Minute: time.Minute,
		time.Hour:        time.Minute,
	} {
		if got := warmUp(d); got != want {
			t.Errorf("warmUp(%v) = %v, want %v", d, got, want)
		}
	}
}

// TestTimeline: latencies fall in the window they ended in, for the whole
// mix and for their kind, whose windows are as many as the mix's.
func TestTimeline(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 11, 25, 0, 0, 0, 0, time.UTC)
	tl := newTimeline(start, time.Minute)
	tl.add("a", start.Add(-time.Second), 5*time.Millisecond) // due before the start: the first window
	tl.add("b", start.Add(30*time.Second), 7*time.Millisecond)
	tl.add("a", start.Add(150*time.Second), 40*time.Millisecond)
	want := []time.Duration{7 * time.Millisecond, 0, 40 * time.Millisecond}
	if got := tl.p99s(); !slices.Equal(got, want) {
		t.Errorf("p99s() = %v, want %v", got, want)
	}
	kinds := tl.kindP99s()
	wantKinds := map[string][]time.Duration{
		"a": {5 * time.Millisecond, 0, 40 * time.Millisecond},
		"b": {7 * time.Millisecond, 0, 0},
	}
	for kind, want := range wantKinds {
		if got := kinds[kind]; !slices.Equal(got, want) {
			t.Errorf("kindP99s()[%q] = %v, want %v", kind, got, want)
		}
	}
}

func TestP99Verdict(t *testing.T) {
	t.Parallel()
	ms := func(vs ...int) []time.Duration {
		out := make([]time.Duration, len(vs))
		for i, v := range vs {
			out[i] = time.Duration(v) * time.Millisecond
		}
		return out
	}
	for _, tc := range []struct {
		name            string
		p99s            []time.Duration
		elapsed         time.Duration
		wantLow, wantHi time.Duration
		wantFlat        bool
	}{
		{"flat within twice", ms(50, 10, 12, 20), 4 * time.Minute, 10 * time.Millisecond, 20 * time.Millisecond, true},
		{"a climb past twice fails", ms(5, 10, 15, 21), 4 * time.Minute, 10 * time.Millisecond, 21 * time.Millisecond, false},
		{"the warm-up window does not count", ms(900, 10, 11), 3 * time.Minute, 10 * time.Millisecond, 11 * time.Millisecond, true},
		{"a short last window does not count", ms(1, 10, 11, 90), 3*time.Minute + 20*time.Second, 10 * time.Millisecond, 11 * time.Millisecond, true},
		{"a last window of half a width counts", ms(1, 10, 11, 90), 3*time.Minute + 30*time.Second, 10 * time.Millisecond, 90 * time.Millisecond, false},
		{"nothing to judge is not flat", ms(7), time.Minute, 0, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			low, high, flat := p99Verdict(tc.p99s, time.Minute, time.Minute, tc.elapsed)
			if low != tc.wantLow || high != tc.wantHi || flat != tc.wantFlat {
				t.Errorf("p99Verdict = %v, %v, %v; want %v, %v, %v", low, high, flat, tc.wantLow, tc.wantHi, tc.wantFlat)
			}
		})
	}
}

func TestRateKept(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		achieved, target float64
		shed             int64
		want             bool
	}{
		{600, 600, 0, true}, {570, 600, 0, true}, {569, 600, 0, false}, {600, 600, 1, false},
	} {
		if got := rateKept(tc.achieved, tc.target, tc.shed); got != tc.want {
			t.Errorf("rateKept(%v, %v, %d) = %v, want %v", tc.achieved, tc.target, tc.shed, got, tc.want)
		}
	}
}

func TestWindowWidth(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]time.Duration{
		time.Minute:      10 * time.Second,
		2 * time.Minute:  12 * time.Second,
		10 * time.Minute: time.Minute,
		30 * time.Minute: time.Minute,
	} {
		if got := windowWidth(d); got != want {
			t.Errorf("windowWidth(%v) = %v, want %v", d, got, want)
		}
	}
}
