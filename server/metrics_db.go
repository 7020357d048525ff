package server

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
)

// dbCollector reads the database's figures when /metrics is scraped: the
// connection pool (from memory), and batch operations by state and the job
// queue's depth (two grouped queries). Nothing is read per API request, so
// the queries-per-request bounds of docs/decisions.md §5 hold.
type dbCollector struct {
	store *storage.Store
	log   *slog.Logger

	maxConns, conns, waits, waitSeconds, statements, operations, jobs *prometheus.Desc
	// The read replica's (--read-database-url), sent only with one.
	replicaUsable, replicaLag, replicaReads *prometheus.Desc
}

// scrapeTimeout bounds the queries of one scrape; a slow database leaves out
// its series rather than holding the scrape.
const scrapeTimeout = 5 * time.Second

func newDBCollector(store *storage.Store, log *slog.Logger) *dbCollector {
	return &dbCollector{store: store, log: log,
		maxConns: prometheus.NewDesc("entityapi_db_pool_max_connections",
			"The most connections the database pool opens.", nil, nil),
		conns: prometheus.NewDesc("entityapi_db_pool_connections",
			"Open connections of the database pool, by state (in_use, idle).", []string{"state"}, nil),
		waits: prometheus.NewDesc("entityapi_db_pool_waits_total",
			"Times a query waited for a free connection.", nil, nil),
		waitSeconds: prometheus.NewDesc("entityapi_db_pool_wait_seconds_total",
			"Time spent waiting for a free connection.", nil, nil),
		statements: prometheus.NewDesc("entityapi_db_statements_total",
			"SQL statements sent to the database by this process (read before this scrape's own queries).", nil, nil),
		operations: prometheus.NewDesc("entityapi_batch_operations",
			"Batch operations of every organization by state (staging: still uploading), read at scrape time.", []string{"state"}, nil),
		jobs: prometheus.NewDesc("entityapi_batch_jobs",
			"Jobs of the queue (batch chunks and housekeeping) of every process, by state (available: waiting; running), read at scrape time.", []string{"state"}, nil),
		replicaUsable: prometheus.NewDesc("entityapi_db_replica_usable",
			"1 while the read replica serves reads, 0 while it is bypassed (down, or lagging past --read-replica-max-lag).", nil, nil),
		replicaLag: prometheus.NewDesc("entityapi_db_replica_lag_seconds",
			"How long ago the primary was where the read replica is now, at the last reading (every 100 ms).", nil, nil),
		replicaReads: prometheus.NewDesc("entityapi_db_replica_reads_total",
			"Reads this process sent to the read replica.", nil, nil),
	}
}

func (d *dbCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, desc := range []*prometheus.Desc{d.maxConns, d.conns, d.waits, d.waitSeconds, d.statements, d.operations, d.jobs,
		d.replicaUsable, d.replicaLag, d.replicaReads} {
		ch <- desc
	}
}

// Collect sends the figures; a failed query is logged and its series left out
// (the rest of the scrape, and the process metrics, still tell the story).
func (d *dbCollector) Collect(ch chan<- prometheus.Metric) {
	p := d.store.PoolStats()
	ch <- prometheus.MustNewConstMetric(d.maxConns, prometheus.GaugeValue, float64(p.MaxOpen))
	ch <- prometheus.MustNewConstMetric(d.conns, prometheus.GaugeValue, float64(p.InUse), "in_use")
	ch <- prometheus.MustNewConstMetric(d.conns, prometheus.GaugeValue, float64(p.Idle), "idle")
	ch <- prometheus.MustNewConstMetric(d.waits, prometheus.CounterValue, float64(p.WaitCount))
	ch <- prometheus.MustNewConstMetric(d.waitSeconds, prometheus.CounterValue, p.WaitDuration.Seconds())
	ch <- prometheus.MustNewConstMetric(d.statements, prometheus.CounterValue, float64(d.store.Statements()))
	if d.store.HasReplica() {
		usable, lag, _ := d.store.ReplicaStatus()
		ch <- prometheus.MustNewConstMetric(d.replicaUsable, prometheus.GaugeValue, map[bool]float64{true: 1}[usable])
		ch <- prometheus.MustNewConstMetric(d.replicaLag, prometheus.GaugeValue, lag.Seconds())
		ch <- prometheus.MustNewConstMetric(d.replicaReads, prometheus.CounterValue, float64(d.store.ReplicaReads()))
	}

	ctx, cancel := context.WithTimeout(context.Background(), scrapeTimeout)
	defer cancel()
	for _, q := range []struct {
		desc  *prometheus.Desc
		count func(context.Context, *storage.Conn) (map[string]int, error)
	}{{d.operations, jobs.CountByState}, {d.jobs, jobs.CountQueued}} {
		counts, err := q.count(ctx, d.store.Conn)
		if err != nil {
			d.log.Warn("metrics: read the database", "error", err)
			continue
		}
		for state, n := range counts {
			ch <- prometheus.MustNewConstMetric(q.desc, prometheus.GaugeValue, float64(n), state)
		}
	}
}
