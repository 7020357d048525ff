// Command soak runs entityapi for a long while under a steady mixed load on
// PostgreSQL or SQLite and checks what a short benchmark cannot see (issue 16): that no
// request fails, how latency holds at a rate the server sustains, and that
// the process's memory stays flat (a leak grows with time, not with load).
//
// It builds the binary, starts `entityapi serve --demo` on a throwaway
// database (with -database postgres, the default, on the server of
// TEST_DATABASE_URL, dropped after; with -database sqlite, the embedded
// default in a temporary data directory), takes a token of the demo
// back-office client and seeds 50 accounts and 200 contacts. Then:
//
//  1. the peak: -workers closed-loop workers send the mix as fast as it is
//     answered for -peak-duration (after a 5 s warm-up): the peak req/s;
//  2. the soak: -fraction of that peak (or -rate) for -duration, on an open
//     loop (constant arrival rate, latency measured from each request's due
//     time), while an asynchronous batch of -batch-size accounts is sent
//     every -batch-every and polled to success: the batches are what makes
//     the tables grow (issue 30 asks for hundreds of thousands of rows in
//     30 minutes: -batch-size 5000 every 30 s is 300,000 accounts and as
//     many change events);
//  3. the server's VmRSS is sampled every -rss-every.
//
// It prints requests, errors and p50/p99/max latency per kind, the p99 of
// every window of the soak, the achieved rate against the target, the
// accounts before and after, RSS at the start (after a warm-up) and the end,
// the peak (VmHWM), the load average, machine, Go version, date and command.
// It exits 1 unless every check holds: no request failed, the rate was kept,
// the p99 of each window after the warm-up stayed within twice the smallest,
// and RSS grew by at most 20%.
//
// Usage (Linux only: it reads /proc):
//
//	TEST_DATABASE_URL=postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable make soak
//	go run ./scripts/soak -duration 2m -rate 300
//	go run ./scripts/soak -database sqlite -duration 30m -rate 600 -batch-size 5000
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/entityapi/entityapi/scripts/internal/localserver"
)

// options are the soak's flags.
type options struct {
	database     string // postgres or sqlite
	admin        string
	duration     time.Duration
	rate         float64
	fraction     float64
	workers      int
	peakDuration time.Duration
	batchEvery   time.Duration
	batchSize    int
	rssEvery     time.Duration
	profileDir   string
	serveFlags   []string // more flags for `entityapi serve`, such as --workers 1
}

func main() {
	var o options
	flag.StringVar(&o.database, "database", "postgres", "postgres (a throwaway database on the server of TEST_DATABASE_URL) or sqlite (the embedded default)")
	flag.DurationVar(&o.duration, "duration", 10*time.Minute, "how long the soak runs")
	flag.Float64Var(&o.rate, "rate", 0, "requests a second of the soak (0: -fraction of the measured peak)")
	flag.Float64Var(&o.fraction, "fraction", 0.7, "share of the measured peak the soak runs at")
	flag.IntVar(&o.workers, "workers", 32, "concurrency of the peak measurement; the soak has four times as many senders")
	flag.DurationVar(&o.peakDuration, "peak-duration", 20*time.Second, "how long the peak is measured")
	flag.DurationVar(&o.batchEvery, "batch-every", 30*time.Second, "how often the soak sends an asynchronous batch")
	flag.IntVar(&o.batchSize, "batch-size", 200, "accounts in each batch")
	flag.DurationVar(&o.rssEvery, "rss-every", 5*time.Second, "how often the server's RSS is sampled")
	flag.StringVar(&o.profileDir, "profile", "", "write the server's heap profiles after the warm-up and at the end into this directory (heap-start.pb.gz, heap-end.pb.gz)")
	serveFlags := flag.String("serve-flags", "", "more flags for the server, space-separated (for example \"--workers 1\")")
	flag.Parse()
	o.serveFlags = strings.Fields(*serveFlags)
	o.admin = os.Getenv("TEST_DATABASE_URL")
	if err := o.check(); err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	passed, err := run(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
	if !passed {
		os.Exit(1)
	}
}

func (o options) check() error {
	switch {
	case o.database != "postgres" && o.database != "sqlite":
		return fmt.Errorf("-database must be postgres or sqlite, not %q", o.database)
	case o.database == "postgres" && o.admin == "":
		return errors.New("TEST_DATABASE_URL is not set: give the admin URL of a PostgreSQL server, such as " +
			"postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable (the soak creates a throwaway database there and drops it after)")
	case o.duration <= 0 || o.peakDuration <= 0 || o.batchEvery <= 0 || o.rssEvery <= 0:
		return errors.New("-duration, -peak-duration, -batch-every and -rss-every must be positive")
	case o.rate < 0 || o.fraction <= 0 || o.fraction > 1:
		return errors.New("-rate must not be negative; -fraction must be in (0, 1]")
	case o.workers <= 0 || o.batchSize <= 0:
		return errors.New("-workers and -batch-size must be positive")
	}
	return nil
}

// warmUp is how long into the soak the RSS baseline is taken: caches, pools
// and the Go heap settle first. A tenth of the soak, between 10 s and 60 s.
func warmUp(d time.Duration) time.Duration {
	return min(max(d/10, 10*time.Second), time.Minute)
}

// windowWidth splits the soak into windows for the report's p99 over time:
// a minute each from 10 minutes on (issue 30 judges "p99 by minute"), a
// tenth of a shorter soak, and never less than 10 s.
func windowWidth(d time.Duration) time.Duration {
	return min(time.Minute, max(d/10, 10*time.Second).Round(time.Second))
}

// run does the soak and reports it; it returns whether it passed.
func run(ctx context.Context, o options) (passed bool, err error) {
	r := report{command: commandLine(), started: time.Now().UTC(), machine: machine(), options: o}
	tmp, err := os.MkdirTemp("", "soak-")
	if err != nil {
		return false, err
	}
	defer os.RemoveAll(tmp)
	databaseURL := "" // the embedded default: SQLite in the data directory
	r.database = "SQLite"
	if o.database == "postgres" {
		db, err := localserver.CreateDatabase(ctx, o.admin, "TEST_DATABASE_URL", "entityapi_soak_")
		if err != nil {
			return false, err
		}
		r.database, databaseURL = "PostgreSQL "+db.Version, db.URL
		defer func() {
			if derr := db.Drop(); derr != nil && err == nil {
				err = derr
			}
		}()
	}
	debugAddr, err := localserver.FreeAddr()
	if err != nil {
		return false, err
	}
	prof := profiler{addr: debugAddr, dir: o.profileDir}
	srv, err := startServer(ctx, tmp, databaseURL, debugAddr, o.serveFlags)
	if err != nil {
		return false, err
	}
	defer func() { srv.Stop(err != nil || !passed) }()
	c := newClient(srv.Base(), 4*o.workers)
	if err := c.fetchToken(ctx); err != nil {
		return false, err
	}
	if err := c.seed(ctx); err != nil {
		return false, err
	}
	cycle := mixCycle(mixWeights)
	r.loadBefore = loadAverage()
	if r.accountsBefore, err = c.accounts(ctx); err != nil {
		return false, err
	}

	r.target = o.rate
	if o.rate == 0 {
		fmt.Fprintf(os.Stderr, "soak: measuring the peak on %s (%d workers, %s)\n", srv.Base(), o.workers, o.peakDuration)
		r.peak = closedLoop(ctx, o.workers, 5*time.Second, o.peakDuration, func(seq int64) {
			c.send(ctx, cycle, seq, time.Now())
		})
		r.peakRows = c.rec.summaries(mixKinds)
		r.target = o.fraction * r.peak
	}
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	r.peakErrors, r.peakShown = c.rec.failures()
	c.rec = newRecorder()

	fmt.Fprintf(os.Stderr, "soak: %.0f req/s for %s\n", r.target, o.duration)
	soakCtx, endSoak := context.WithTimeout(ctx, o.duration)
	defer endSoak()
	start := time.Now()
	c.timeline = newTimeline(start, windowWidth(o.duration))
	sampler := &rssSampler{}
	go sampler.run(soakCtx, srv.PID(), start, o.rssEvery)
	go prof.heapAfter(soakCtx, start, warmUp(o.duration))
	go c.progress(soakCtx, sampler, start)
	batchesDone := make(chan struct{})
	go func() {
		defer close(batchesDone)
		c.batchEvery(soakCtx, o.batchEvery, o.batchSize)
	}()
	r.sent, r.shed = runOpenLoop(soakCtx, newOpenLoop(start, r.target, o.duration), 4*o.workers, func(a arrival) {
		c.send(ctx, cycle, a.seq, a.due)
	})
	r.elapsed = time.Since(start)
	endSoak()
	<-batchesDone
	if ctx.Err() != nil {
		return false, ctx.Err()
	}
	r.rows = c.rec.summaries(mixKinds)
	r.batchRows = c.rec.summaries(batchKinds)
	r.errors, r.shown = c.rec.failures()
	r.p99s, r.kindP99s, r.window = c.timeline.p99s(), c.timeline.kindP99s(), c.timeline.width
	r.rss = sampler.all()
	if err := prof.heap(ctx, "end"); err != nil {
		return false, err
	}
	if r.hwm, err = localserver.ProcStatus(srv.PID(), "VmHWM"); err != nil {
		return false, err
	}
	r.warm = warmUp(o.duration)
	r.loadAfter = loadAverage()
	if r.accountsAfter, err = c.accounts(ctx); err != nil {
		return false, err
	}
	return r.print(os.Stdout), nil
}
