package server

import (
	"log/slog"
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/entityapi/entityapi/server/answercache"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
)

// This file holds the Prometheus metrics of a Server (issue 9). Each Server
// owns its registry, never the global default one, so that tests running many
// servers in one process do not collide and every figure belongs to one
// server. Labels come from small fixed sets: route templates (never raw
// paths), applications, methods, statuses, entity types, reasons.

// Label values for requests outside any route and outside any application.
const (
	unmatchedRoute = "unmatched"
	noApplication  = "none"
)

// metrics are the figures a Server counts as things happen; the figures read
// from the database (pool, operations, queue) come from a dbCollector at
// scrape time.
type metrics struct {
	registry     *prometheus.Registry
	requests     *prometheus.CounterVec
	duration     *prometheus.HistogramVec
	chunks       *prometheus.CounterVec
	items        *prometheus.CounterVec
	tokens       *prometheus.CounterVec
	authFailures *prometheus.CounterVec
}

func newMetrics(store *storage.Store, log *slog.Logger) *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "entityapi_http_requests_total",
			Help: "HTTP requests answered, by application, method, route template and status.",
		}, []string{"app", "method", "route", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "entityapi_http_request_duration_seconds",
			Help:    "Time from the request reaching the router to the end of the answer, by application, method, route template and status.",
			Buckets: []float64{.001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"app", "method", "route", "status"}),
		chunks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "entityapi_batch_chunks_processed_total",
			Help: "Batch chunks whose outcome was committed, by entity type and mode (async: by a worker; sync: X-Mode: sync).",
		}, []string{"type", "mode"}),
		items: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "entityapi_batch_items_total",
			Help: "Primary batch items processed, by entity type and result (written or failed).",
		}, []string{"type", "result"}),
		tokens: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "entityapi_tokens_issued_total",
			Help: "Access tokens issued by the token endpoint, by the client's application and the grant type.",
		}, []string{"app", "grant"}),
		authFailures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "entityapi_auth_failures_total",
			Help: "Refused authentications: bearer tokens of API requests (source bearer) and credentials at the token endpoint (source token_endpoint), by reason.",
		}, []string{"source", "reason"}),
	}
	m.registry.MustRegister(m.requests, m.duration, m.chunks, m.items, m.tokens, m.authFailures,
		newDBCollector(store, log),
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// handler answers GET /metrics in the Prometheus text format. It needs no
// token: operators protect it by address (--metrics-addr).
func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// watchAnswers adds the figures of the kept answers (answers.go) to the
// metrics: lookups that found an answer and those that did not, the answers
// kept and their bytes. Nothing when none are kept.
func (m *metrics) watchAnswers(kept *answercache.Cache) {
	if kept == nil {
		return
	}
	stat := func(f func(answercache.Stats) float64) func() float64 {
		return func() float64 { return f(kept.Stats()) }
	}
	m.registry.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "entityapi_answer_cache_hits_total",
			Help: "Reads of reference data answered from a kept answer."}, stat(func(s answercache.Stats) float64 { return float64(s.Hits) })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "entityapi_answer_cache_misses_total",
			Help: "Reads of reference data the engine answered, no answer being kept for them at the current generation."}, stat(func(s answercache.Stats) float64 { return float64(s.Misses) })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "entityapi_answer_cache_answers",
			Help: "Answers of reference data kept in memory."}, stat(func(s answercache.Stats) float64 { return float64(s.Answers) })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "entityapi_answer_cache_bytes",
			Help: "Memory the kept answers take, in bytes (at most --answer-cache)."}, stat(func(s answercache.Stats) float64 { return float64(s.Bytes) })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "entityapi_answer_cache_readings_total",
			Help: "Readings of the reference generation from the database; on a SQLite file, only after a commit (docs/answers.md)."}, stat(func(s answercache.Stats) float64 { return float64(s.Readings) })),
	)
}

// chunkDone counts a chunk whose outcome was committed.
func (m *metrics) chunkDone(typ, mode string, counts jobs.ChunkCounts) {
	m.chunks.WithLabelValues(typ, mode).Inc()
	m.items.WithLabelValues(typ, "written").Add(float64(counts.Write))
	m.items.WithLabelValues(typ, "failed").Add(float64(max(counts.Read-counts.Write, 0)))
}

// authFailure counts a refused bearer token (reason: auth.Error.Code, or
// missing_token).
func (m *metrics) authFailure(reason string) {
	m.authFailures.WithLabelValues("bearer", reason).Inc()
}
