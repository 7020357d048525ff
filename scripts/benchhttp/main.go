// Command benchhttp measures entityapi over loopback HTTP against floors built
// here, in one interleaved run, and prints one markdown table (issue 16).
//
// The service is the real binary, built from the working tree (and, with
// -baseline REV, a second one built from that git revision, so that two builds
// alternate in one run), started as users start it (`entityapi serve --demo`)
// and called with a real token. The floors run in this process as net/http
// servers on the loopback, and this process is otherwise idle while wrk runs:
//
//   - bytes floor: net/http writing the service's own captured answer;
//   - database floor (reads): a hand-written handler running the same queries
//     with prepared statements (pgx on PostgreSQL, database/sql on SQLite,
//     on the service's own database) and encoding a document of the same
//     shape with encoding/json; its document is checked against the service's
//     before anything is measured;
//   - write floor (POST, PATCH): the same handler shape doing one
//     INSERT ... RETURNING or UPDATE ... RETURNING in a transaction;
//   - raw batch floor: the batch's rows in multi-row INSERTs of as many rows
//     as the bound parameters allow, in one transaction, and pgx CopyFrom on
//     PostgreSQL.
//
// With -pooler URL (a PgBouncer in transaction mode in front of the
// -postgres-admin server; `make bench-http` starts one with
// scripts/pgbouncer/start.sh), the working tree's build runs a third time on
// PostgreSQL, on its own database reached through the pooler with
// `--database-pooler transaction` (pooler.go), on GET one and POST only: the
// table gains a row "through PgBouncer" for each, with its ratio to the
// direct service (pooled / direct).
//
// wrk (apt-get install wrk) drives every HTTP target at a fixed concurrency.
// Each round runs every target on every system, in an order that rotates from
// round to round so that machine noise hits all alike; the table shows medians.
//
// Usage:
//
//	go run ./scripts/benchhttp                                   # SQLite; PostgreSQL too when TEST_DATABASE_URL is set
//	go run ./scripts/benchhttp -duration 3s -rounds 3 -baseline main
//	go run ./scripts/benchhttp -sqlite=false -targets one,post -pooler "$POOLER_URL"
//
// Linux only (it reads /proc).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"strings"
	"syscall"
	"time"
)

// config is the run's settings, from the flags.
type config struct {
	duration     time.Duration
	warmup       time.Duration
	rounds       int
	connections  int
	threads      int
	baseline     string
	postgres     string // admin URL of a PostgreSQL server, "" for SQLite only
	pooler       string // URL of a transaction pooler in front of that server, "" for none (pooler.go)
	sqlite       bool
	batchRecords int
	scale        int    // accounts (and four times as many contacts) added by SQL before measuring (scale.go); 0 for none
	targets      string // comma-separated target names, "" for all
	cpuProfile   string // file of this process's CPU profile (the floors'), "" for none
	traced       bool   // the working tree's service exports every request's trace (traces.go)
}

func main() {
	var cfg config
	flag.DurationVar(&cfg.duration, "duration", 5*time.Second, "wrk's duration of one measurement")
	flag.DurationVar(&cfg.warmup, "warmup", time.Second, "wrk's warm-up before each measurement (not counted)")
	flag.IntVar(&cfg.rounds, "rounds", 3, "rounds over every target and system (at least 3); the table shows medians")
	flag.IntVar(&cfg.connections, "connections", 32, "wrk's connections (-c)")
	flag.IntVar(&cfg.threads, "threads", 2, "wrk's threads (-t)")
	flag.StringVar(&cfg.baseline, "baseline", "", "a git revision to build and measure beside the working tree (columns for both and new/old)")
	flag.StringVar(&cfg.postgres, "postgres-admin", os.Getenv("TEST_DATABASE_URL"),
		"admin URL of a PostgreSQL server: measure there too, on throwaway databases dropped after (default: $TEST_DATABASE_URL)")
	flag.StringVar(&cfg.pooler, "pooler", os.Getenv("TEST_DATABASE_POOLER_URL"),
		"URL of a PgBouncer in transaction mode in front of the -postgres-admin server: measure GET one and POST through it too (default: $TEST_DATABASE_POOLER_URL)")
	flag.BoolVar(&cfg.sqlite, "sqlite", true, "measure on SQLite (in a temporary directory)")
	flag.IntVar(&cfg.batchRecords, "batch-records", 100_000, "accounts in the batch target (0: no batch target)")
	flag.IntVar(&cfg.scale, "scale", 0, "grow each database by this many accounts and four times as many contacts before measuring (issue 32's rows: 100000)")
	flag.StringVar(&cfg.targets, "targets", "", "only these targets, comma-separated ("+strings.Join(targetNames(), ",")+"; default: all)")
	flag.StringVar(&cfg.cpuProfile, "cpuprofile", "", "write this process's CPU profile (the floors' work) to this file")
	flag.BoolVar(&cfg.traced, "traced", false, "start the working tree's service with tracing on, every request sampled, exporting to an OTLP/HTTP sink in this process (with -baseline HEAD, new/old is tracing's cost)")
	flag.Parse()
	if err := cfg.check(); err != nil {
		fmt.Fprintln(os.Stderr, "benchhttp:", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg, os.Args); err != nil {
		fmt.Fprintln(os.Stderr, "benchhttp:", err)
		os.Exit(1)
	}
}

func (c config) check() error {
	switch {
	case c.rounds < 3:
		return fmt.Errorf("-rounds %d: at least 3, so that a median means something", c.rounds)
	case c.duration < time.Second:
		return fmt.Errorf("-duration %s: at least 1s", c.duration)
	case c.connections < 1 || c.threads < 1 || c.threads > c.connections:
		return fmt.Errorf("-connections %d -threads %d: need 1 <= threads <= connections", c.connections, c.threads)
	case !c.sqlite && c.postgres == "":
		return fmt.Errorf("no database: -sqlite=false and no -postgres-admin (TEST_DATABASE_URL)")
	case c.pooler != "" && c.postgres == "":
		return fmt.Errorf("-pooler (TEST_DATABASE_POOLER_URL) needs -postgres-admin (TEST_DATABASE_URL), the server behind it; -pooler= leaves it out")
	}
	if c.pooler != "" {
		if _, err := pooledURL(c.pooler, "check"); err != nil {
			return err
		}
	}
	for _, name := range c.targetList() {
		if targetByName(name) == nil {
			return fmt.Errorf("-targets: unknown target %q (want some of %s)", name, strings.Join(targetNames(), ","))
		}
	}
	return nil
}

// targetList is the targets to measure, by name.
func (c config) targetList() []string {
	if c.targets == "" {
		names := targetNames()
		if c.batchRecords <= 0 {
			names = names[:len(names)-1]
		}
		return names
	}
	return strings.Split(c.targets, ",")
}

// run builds the binaries, measures each database in turn and prints the table.
func run(ctx context.Context, cfg config, args []string) error {
	wrk, err := findWrk()
	if err != nil {
		return err
	}
	if cfg.cpuProfile != "" {
		f, err := os.Create(cfg.cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	tmp, err := os.MkdirTemp("", "benchhttp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	builds, err := buildBinaries(ctx, tmp, cfg.baseline)
	if err != nil {
		return err
	}
	var sink *traceSink
	if cfg.traced {
		if sink, err = startTraceSink(); err != nil {
			return err
		}
		defer sink.close()
		builds[0].env = sink.env()
	}
	report := &report{
		command:    "go run ./scripts/benchhttp " + strings.Join(args[1:], " "),
		goVersion:  runtime.Version(),
		machine:    describeMachine(),
		date:       time.Now().UTC().Format("2006-01-02 15:04 MST"),
		loadBefore: loadAverage(),
		baseline:   cfg.baseline,
		config:     cfg,
	}
	var databases []string
	if cfg.sqlite {
		databases = append(databases, "sqlite")
	}
	if cfg.postgres != "" {
		databases = append(databases, "postgres")
	}
	for _, database := range databases {
		rows, err := measureDatabase(ctx, cfg, wrk, tmp, database, builds)
		if err != nil {
			return fmt.Errorf("%s: %w", database, err)
		}
		report.rows = append(report.rows, rows...)
	}
	report.loadAfter = loadAverage()
	if sink != nil {
		if report.traceExports = sink.exports(); report.traceExports == 0 {
			return fmt.Errorf("-traced: the service sent no traces to the sink")
		}
	}
	fmt.Print(report.render())
	return nil
}
