package main

import (
	"fmt"
	"math"
	"slices"
	"sync"
	"time"
)

// maxShownErrors is how many failed requests the report prints in full; the
// rest are only counted, so that one broken endpoint does not bury the table.
const maxShownErrors = 5

// recorder collects every request's latency by kind and the failed requests.
// It keeps each latency (8 bytes; a 10-minute soak at 1,000 req/s is 5 MB) so
// that percentiles are exact rather than read off buckets.
type recorder struct {
	mu        sync.Mutex
	latencies map[string][]time.Duration
	errors    map[string]int
	shown     []string
	total     int
}

func newRecorder() *recorder {
	return &recorder{latencies: map[string][]time.Duration{}, errors: map[string]int{}}
}

// add records one request of kind that took d; a non-nil err makes it a failure.
func (r *recorder) add(kind string, d time.Duration, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.latencies[kind] = append(r.latencies[kind], d)
	if err == nil {
		return
	}
	r.errors[kind]++
	r.total++
	if len(r.shown) < maxShownErrors {
		r.shown = append(r.shown, kind+": "+err.Error())
	}
}

// fail records a failure that is not one request's, such as a batch whose
// operation ended with failed items.
func (r *recorder) fail(kind string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors[kind]++
	r.total++
	if len(r.shown) < maxShownErrors {
		r.shown = append(r.shown, kind+": "+err.Error())
	}
}

// failures is the number of failures and the first few in full.
func (r *recorder) failures() (int, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.total, append([]string(nil), r.shown...)
}

// count is the number of requests recorded so far, failures included.
func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, l := range r.latencies {
		n += len(l)
	}
	return n
}

// summary is one row of the latency table.
type summary struct {
	kind          string
	requests      int
	errors        int
	p50, p99, max time.Duration
}

// summaries returns a row per kind in the order of kinds (kinds never seen
// are left out) and a last row "all" over every kind listed.
func (r *recorder) summaries(kinds []string) []summary {
	r.mu.Lock()
	defer r.mu.Unlock()
	var rows []summary
	var all []time.Duration
	allErrors := 0
	for _, k := range kinds {
		l := r.latencies[k]
		if len(l) == 0 && r.errors[k] == 0 {
			continue
		}
		rows = append(rows, summarize(k, l, r.errors[k]))
		all = append(all, l...)
		allErrors += r.errors[k]
	}
	return append(rows, summarize("all", all, allErrors))
}

func summarize(kind string, l []time.Duration, errors int) summary {
	sorted := slices.Clone(l)
	slices.Sort(sorted)
	return summary{kind: kind, requests: len(sorted), errors: errors,
		p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: percentile(sorted, 100)}
}

// percentile is the nearest-rank percentile p (0 < p <= 100) of sorted: the
// smallest value that at least p% of the values do not exceed. It is one of
// the measured values, never an interpolation between two; 0 for none.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	rank := int(math.Ceil(float64(len(sorted))*p/100)) - 1
	return sorted[min(max(rank, 0), len(sorted)-1)]
}

// millis formats d in milliseconds with a precision that suits its size.
func millis(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	switch {
	case ms < 10:
		return fmt.Sprintf("%.2f", ms)
	case ms < 100:
		return fmt.Sprintf("%.1f", ms)
	}
	return fmt.Sprintf("%.0f", ms)
}

// timeline keeps the mix's latencies by the window of the soak they ended
// in, all together (the verdict's p99 by minute) and by kind (which request
// a rise comes from).
type timeline struct {
	mu      sync.Mutex
	start   time.Time
	width   time.Duration
	windows [][]time.Duration
	byKind  map[string][][]time.Duration
}

func newTimeline(start time.Time, width time.Duration) *timeline {
	return &timeline{start: start, width: width, byKind: map[string][][]time.Duration{}}
}

// add records a latency d of a request of kind that ended at end.
func (t *timeline) add(kind string, end time.Time, d time.Duration) {
	i := max(0, int(end.Sub(t.start)/t.width))
	t.mu.Lock()
	defer t.mu.Unlock()
	t.windows = appendAt(t.windows, i, d)
	t.byKind[kind] = appendAt(t.byKind[kind], i, d)
}

// appendAt appends d to the i-th window of windows, adding empty ones
// before it as needed.
func appendAt(windows [][]time.Duration, i int, d time.Duration) [][]time.Duration {
	for len(windows) <= i {
		windows = append(windows, nil)
	}
	windows[i] = append(windows[i], d)
	return windows
}

// p99s is the p99 of each window, in order (0 for a window without requests).
func (t *timeline) p99s() []time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	return windowP99s(t.windows)
}

// kindP99s is p99s for the requests of each kind, as many windows as the
// whole timeline.
func (t *timeline) kindP99s() map[string][]time.Duration {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := make(map[string][]time.Duration, len(t.byKind))
	for kind, windows := range t.byKind {
		for len(windows) < len(t.windows) {
			windows = append(windows, nil)
		}
		out[kind] = windowP99s(windows)
	}
	return out
}

func windowP99s(windows [][]time.Duration) []time.Duration {
	out := make([]time.Duration, len(windows))
	for i, w := range windows {
		sorted := slices.Clone(w)
		slices.Sort(sorted)
		out[i] = percentile(sorted, 99)
	}
	return out
}
