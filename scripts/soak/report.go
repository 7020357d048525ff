package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"
)

// report is what the soak prints: enough to rerun it and to judge it.
type report struct {
	command, database, machine string
	started                    time.Time
	options                    options
	loadBefore, loadAfter      string

	peak       float64 // answers a second of the closed loop; 0 with -rate
	peakRows   []summary
	peakErrors int
	peakShown  []string

	target     float64
	sent, shed int64
	elapsed    time.Duration
	rows       []summary
	batchRows  []summary
	errors     int
	shown      []string
	p99s       []time.Duration            // p99 of the mix per window of the soak
	kindP99s   map[string][]time.Duration // the same, of each kind of the mix
	window     time.Duration

	rss  []rssSample
	warm time.Duration
	hwm  int64 // kB

	accountsBefore, accountsAfter int64 // in the organization, around the soak
}

// print writes the report to w and returns whether the soak passed: no
// failure in either phase, the rate kept, the p99 by window flat within
// p99Spread and RSS within the limit.
func (r report) print(w io.Writer) bool {
	o := r.options
	fmt.Fprintf(w, "\nsoak of entityapi on %s, %s\n", r.database, r.started.Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(w, "command:  %s\n", r.command)
	fmt.Fprintf(w, "machine:  %s, %s\n", r.machine, runtime.Version())
	fmt.Fprintf(w, "load:     %s before, %s after (1, 5, 15 min)\n", r.loadBefore, r.loadAfter)
	if r.peak > 0 {
		all := r.peakRows[len(r.peakRows)-1]
		fmt.Fprintf(w, "peak:     %.0f req/s (closed loop, %d workers, %s after 5s of warm-up; p50 %s ms, p99 %s ms; %d errors)\n",
			r.peak, o.workers, o.peakDuration, millis(all.p50), millis(all.p99), r.peakErrors)
		fmt.Fprintf(w, "target:   %.0f req/s (%.2f of the peak)\n", r.target, o.fraction)
	} else {
		fmt.Fprintf(w, "target:   %.0f req/s (-rate; no peak measured)\n", r.target)
	}
	done := r.rows[len(r.rows)-1].requests
	achieved := float64(done) / r.elapsed.Seconds()
	fmt.Fprintf(w, "achieved: %.1f req/s over %s (%d answered, %d shed, up to %d in flight)%s\n",
		achieved, r.elapsed.Round(time.Second), done, r.shed, 4*o.workers, behind(achieved, r.target, r.shed))
	fmt.Fprintf(w, "batches:  %d accounts every %s, asynchronous, polled every %s to success\n",
		o.batchSize, o.batchEvery, pollEvery)
	fmt.Fprintf(w, "accounts: %d before the soak, %d after (%+d)\n\n", r.accountsBefore, r.accountsAfter, r.accountsAfter-r.accountsBefore)

	fmt.Fprintf(w, "%-32s %9s %7s %9s %9s %9s\n", "request (latency from due time)", "requests", "errors", "p50 ms", "p99 ms", "max ms")
	for _, s := range r.rows {
		printRow(w, s)
	}
	for _, s := range r.batchRows[:len(r.batchRows)-1] { // their "all" row means nothing
		printRow(w, s)
	}

	fmt.Fprintf(w, "p99 by %s: %s ms\n", r.window, joinMillis(r.p99s))
	for _, kind := range mixKinds {
		if p99s, ok := r.kindP99s[kind]; ok {
			fmt.Fprintf(w, "  %-26s %s\n", kind+":", joinMillis(p99s))
		}
	}
	low, high, p99Flat := p99Verdict(r.p99s, r.window, r.warm, r.elapsed)
	p99Word := "flat"
	if !p99Flat {
		p99Word = "NOT FLAT"
	}
	fmt.Fprintf(w, "          after the %s warm-up: smallest %s ms, largest %s ms (%.2fx; limit %.0fx) %s\n",
		r.warm, millis(low), millis(high), ratio(high, low), p99Spread, p99Word)

	start, end, growth, flat := rssVerdict(r.rss, r.warm)
	verdict := "flat"
	if !flat {
		verdict = "GREW"
	}
	if start.kb == 0 {
		verdict = "no sample after the warm-up: run longer"
	}
	fmt.Fprintf(w, "\nRSS:      start %s (from %s), end %s (to %s): %+.1f%% (limit +%.0f%%) %s\n",
		mib(start.kb), start.at.Round(time.Second), mib(end.kb), end.at.Round(time.Second), 100*growth, 100*rssGrowthLimit, verdict)
	fmt.Fprintf(w, "          (medians of %d samples every %s); peak %s (VmHWM, or a larger sample; seeding and the peak measurement included)\n",
		rssSmoothing, r.options.rssEvery, mib(max(r.hwm, largest(r.rss).kb)))
	fmt.Fprintf(w, "          over time: %s\n", rssTimeline(r.rss, 10))

	errors := r.errors + r.peakErrors
	fmt.Fprintf(w, "errors:   %d\n", errors)
	for _, e := range append(r.peakShown, r.shown...) {
		fmt.Fprintf(w, "  %s\n", e)
	}
	kept := rateKept(achieved, r.target, r.shed)
	passed := errors == 0 && flat && p99Flat && kept
	if passed {
		fmt.Fprintln(w, "result:   PASS")
	} else {
		fmt.Fprintf(w, "result:   FAIL (errors must be 0, the rate kept, the p99 by %s within %.0fx of the smallest "+
			"and RSS must not grow more than 20%%)\n", r.window, p99Spread)
	}
	return passed
}

// ratio is a/b, 0 when b is.
func ratio(a, b time.Duration) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func printRow(w io.Writer, s summary) {
	fmt.Fprintf(w, "%-32s %9d %7d %9s %9s %9s\n", s.kind, s.requests, s.errors, millis(s.p50), millis(s.p99), millis(s.max))
}

func joinMillis(ds []time.Duration) string {
	parts := make([]string, len(ds))
	for i, d := range ds {
		parts[i] = millis(d)
	}
	return strings.Join(parts, ", ")
}

// behind says when the soak did not keep its rate: the server (or the
// machine it shares) could not answer that fast, and latencies show queueing.
func behind(achieved, target float64, shed int64) string {
	if !rateKept(achieved, target, shed) {
		return "  BEHIND the target"
	}
	return ""
}

// rssTimeline lists about n samples evenly spread over the soak.
func rssTimeline(samples []rssSample, n int) string {
	if len(samples) == 0 {
		return "-"
	}
	step := max(1, (len(samples)+n-1)/n)
	var parts []string
	for i := 0; i < len(samples); i += step {
		parts = append(parts, fmt.Sprintf("%s %.1f", samples[i].at.Round(time.Second), float64(samples[i].kb)/1024))
	}
	if last := samples[len(samples)-1]; (len(samples)-1)%step != 0 {
		parts = append(parts, fmt.Sprintf("%s %.1f", last.at.Round(time.Second), float64(last.kb)/1024))
	}
	return strings.Join(parts, ", ") + " MiB"
}

// progress prints a line every 30 s of the soak, so a long run shows it is
// alive and where it is heading.
func (c *client) progress(ctx context.Context, s *rssSampler, start time.Time) {
	tick := time.NewTicker(30 * time.Second)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		errs, _ := c.rec.failures()
		rss := "-"
		if all := s.all(); len(all) > 0 {
			rss = mib(all[len(all)-1].kb)
		}
		fmt.Fprintf(os.Stderr, "soak: %s  %d requests  %d errors  RSS %s  load %s\n",
			time.Since(start).Round(time.Second), c.rec.count(), errs, rss, loadAverage())
	}
}

// commandLine is how the soak was started, as a user would type it.
func commandLine() string {
	return strings.TrimSpace("go run ./scripts/soak " + strings.Join(os.Args[1:], " "))
}

// loadAverage is the first three fields of /proc/loadavg.
func loadAverage() string {
	raw, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(raw))
	return strings.Join(f[:min(3, len(f))], " ")
}

// machine names the CPU and counts its cores.
func machine() string {
	model := runtime.GOARCH
	if raw, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.SplitSeq(string(raw), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	return fmt.Sprintf("%d × %s (%s/%s)", runtime.NumCPU(), model, runtime.GOOS, runtime.GOARCH)
}
