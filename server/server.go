// Package server is entityapi's HTTP edge: Gin, the middleware (request id,
// CORS, rate limit, metrics, the request log), media type negotiation,
// authentication, request validation against the public OpenAPI documents,
// the error documents, the docs pages, the batch upload, and the wiring of
// the generated handlers to the generic engine (server/engine), which they
// hand an engine.Request.
package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/gin-gonic/gin"
	"go.opentelemetry.io/otel/trace"

	"github.com/entityapi/entityapi/openapi"
	"github.com/entityapi/entityapi/server/answercache"
	"github.com/entityapi/entityapi/server/auth"
	"github.com/entityapi/entityapi/server/batch"
	"github.com/entityapi/entityapi/server/batch/split"
	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/server/storefront"
	"github.com/entityapi/entityapi/server/telemetry"
	"github.com/entityapi/entityapi/server/webhook"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/authstore"
	"github.com/entityapi/entityapi/storage/jobs"
)

// Config holds what the HTTP side needs to know.
type Config struct {
	PublicURL      string // absolute base of links; empty: from each request
	BackofficeBase string // path prefix of the back-office application, such as /admin
	StorefrontBase string // path prefix of the storefront application ("" by default)
	// GuestResources are the storefront types readable without a token
	// (nil: storefront.DefaultGuestResources).
	GuestResources []string
	// Currencies are the enabled X-Currency codes (nil: storefront.DefaultCurrencies);
	// DefaultCurrency applies without the header ("": the first).
	Currencies      []string
	DefaultCurrency string
	MaxBody         int64 // largest request body accepted, in bytes
	// MaxBatchBody is the largest batch request body (1 GiB by default).
	MaxBatchBody int64
	// MaxBatchItem is the largest item of a batch request (1 MiB by
	// default); the splitter refuses a larger one without holding it.
	MaxBatchItem int64
	// MaxAtomicOperations is the most operations of one atomic request
	// (1,000 by default; 413 above).
	MaxAtomicOperations int
	// SyncBatchTimeout is how long a synchronous batch is waited for before
	// it is answered as an asynchronous operation (25 s by default).
	SyncBatchTimeout time.Duration
	// BatchUploadTimeout bounds reading a batch body and answering it (1 h by
	// default), in place of the HTTP server's own read and write timeouts.
	BatchUploadTimeout time.Duration
	// RequestTimeout is every other API request's deadline (--request-timeout;
	// zero: none): its queries are cancelled when it passes and the answer is
	// a 503 error document.
	RequestTimeout time.Duration
	// MaxAggregationValues is the most values a count of filter[aggregations]
	// answers (--max-aggregation-values; zero: 100).
	MaxAggregationValues int
	// Jobs configures the batch job queue: workers, rescue, lifetime.
	Jobs   jobs.Config
	Logger *slog.Logger
	Auth   auth.Config // tokens: lifetime, keys, demo principals, outside provider
	// SeparateMetrics leaves GET /metrics out of this handler (404 here): the
	// binary serves MetricsHandler on --metrics-addr instead.
	SeparateMetrics bool
	// CORS names the origins whose scripts may call the APIs (none: no CORS).
	CORS CORSConfig
	// RateLimit is each client's request rate (zero: no limit).
	RateLimit RateLimitConfig
	// TracerProvider receives the spans of requests, their checks, the
	// engine, SQL statements and batch chunk jobs (tracing.go); nil, the
	// default, records none and costs nothing.
	TracerProvider trace.TracerProvider
	// Webhooks: the address rules of targets, the failures that disable a
	// webhook and the timeout of a delivery (server/webhook; the retries
	// are Jobs').
	Webhooks webhook.Config
	// Idempotency bounds the keys of Idempotency-Key (idempotency.go).
	Idempotency IdempotencyConfig
	// GuestMaxAge is how long a cache may keep a storefront guest's read
	// (cache.go; zero: DefaultGuestMaxAge; negative: public but
	// revalidated every time).
	GuestMaxAge time.Duration
	// AnswerCache is the memory, in bytes, of the answers of reference
	// data kept rendered (answers.go; zero: DefaultAnswerCache; negative:
	// none kept).
	AnswerCache int64
}

// Server is the HTTP handler of every application.
type Server struct {
	gin   *gin.Engine
	store *storage.Store
	log   *slog.Logger
	stop  context.CancelFunc // ends the key reloads of the token service
	queue *jobs.Queue        // batch chunks: workers and housekeeping
	// metrics are this server's own (its own registry), apps names the
	// application of a route for their labels and the request log.
	metrics *metrics
	apps    appPrefixes
	tracer  trace.Tracer // nil: tracing off
	// rates shares the rate limit's buckets with the other processes
	// (ratelimit_share.go; nil: no limit); sharing ends with Close.
	rates   *rateShare
	sharing sync.WaitGroup
	// syncHold, set only by tests (export_test.go), makes synchronous batches
	// wait before their chunk runs, so a test can order the run after the timeout.
	syncHold atomic.Pointer[chan struct{}]
	// keyedHold, set only by tests, makes keyed writes wait inside their
	// transaction (idempotency.go).
	keyedHold atomic.Pointer[KeyedHold]
}

// The defaults of Config's zero values. The settings of `entityapi serve`
// (server/cli) show and apply the same, read from here: each default has
// one owner.
const (
	DefaultMaxBody             = 10 << 20
	DefaultMaxBatchBody        = 1 << 30
	DefaultMaxAtomicOperations = 1000
	DefaultSyncBatchTimeout    = 25 * time.Second
	DefaultBatchUploadTimeout  = time.Hour
)

// New builds exactly what production runs; tests use it too.
func New(cfg Config, store *storage.Store) (*Server, error) {
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = DefaultMaxBody
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Idempotency.TTL <= 0 {
		cfg.Idempotency.TTL = DefaultIdempotencyTTL
	}
	if cfg.Idempotency.MaxKeys <= 0 {
		cfg.Idempotency.MaxKeys = DefaultIdempotencyMaxKeys
	}
	if cfg.Idempotency.MaxAnswer <= 0 {
		cfg.Idempotency.MaxAnswer = DefaultIdempotencyMaxAnswer
	}
	if cfg.MaxBatchBody <= 0 {
		cfg.MaxBatchBody = DefaultMaxBatchBody
	}
	if cfg.MaxBatchItem <= 0 {
		cfg.MaxBatchItem = split.DefaultMaxItemBytes
	}
	if cfg.MaxAtomicOperations <= 0 {
		cfg.MaxAtomicOperations = DefaultMaxAtomicOperations
	}
	if cfg.SyncBatchTimeout <= 0 {
		cfg.SyncBatchTimeout = DefaultSyncBatchTimeout
	}
	if cfg.BatchUploadTimeout <= 0 {
		cfg.BatchUploadTimeout = DefaultBatchUploadTimeout
	}
	if cfg.Jobs.Logger == nil {
		cfg.Jobs.Logger = cfg.Logger
	}
	cfg.BackofficeBase = strings.TrimSuffix(cfg.BackofficeBase, "/")
	cfg.StorefrontBase = strings.TrimSuffix(cfg.StorefrontBase, "/")
	if cfg.BackofficeBase == cfg.StorefrontBase {
		return nil, fmt.Errorf("the back office and the storefront need distinct base paths (both are %q)", cfg.BackofficeBase)
	}
	gin.SetMode(gin.ReleaseMode)
	g := gin.New()
	g.HandleMethodNotAllowed = true
	g.ContextWithFallback = true
	g.RemoveExtraSlash = false
	// No proxy is trusted: X-Forwarded-For must not let a client choose the
	// address the rate limit counts (c.ClientIP; the token endpoint's failure
	// limit reads the connection's address itself, server/auth).
	if err := g.SetTrustedProxies(nil); err != nil {
		return nil, err
	}
	m := newMetrics(store, cfg.Logger)
	cfg.Auth.Events = auth.Events{
		TokenIssued:        func(app, grant string) { m.tokens.WithLabelValues(app, grant).Inc() },
		CredentialsRefused: func(reason string) { m.authFailures.WithLabelValues("token_endpoint", reason).Inc() },
	}
	corsPolicy, err := newCORS(cfg.CORS, cfg.BackofficeBase, cfg.StorefrontBase)
	if err != nil {
		return nil, err
	}
	limits := newLimiter(cfg.RateLimit, maxRateBuckets)
	ctx, stop := context.WithCancel(context.Background())
	records := authstore.New(store) // one per server: it holds the failure counts
	tokens, err := auth.New(ctx, cfg.Auth, records)
	if err != nil {
		stop()
		return nil, fmt.Errorf("tokens: %w", err)
	}
	s := &Server{gin: g, store: store, log: cfg.Logger, stop: stop, metrics: m, apps: newAppPrefixes(&cfg),
		tracer: telemetry.Tracer(cfg.TracerProvider)}
	var tokenPaths []string
	if s.tracer != nil {
		g.Use(s.traceRequest) // first: its span holds the whole request
		store.AddStatementHook(newSQLSpans(s.tracer, store.Features().SystemName))
	}
	g.Use(s.observe, s.recover, requestID)
	if corsPolicy != nil {
		g.Use(corsPolicy.handle) // before any route, so that every answer of a covered address has it
	}

	engineCfg := engine.Config{MaxAggregationValues: cfg.MaxAggregationValues}
	bo, err := newApplication(&cfg, store, openapi.Backoffice, cfg.BackofficeBase, engineCfg, s.tracer)
	if err != nil {
		stop()
		return nil, fmt.Errorf("back office: %w", err)
	}
	bo.auth, bo.audience, bo.roles, bo.metrics, bo.limiter = tokens, "backoffice", true, m, limits
	kept := newAnswerCache(ctx, &cfg, store)
	m.watchAnswers(kept)
	bo.kept = kept
	if cfg.Webhooks.Timeout > 0 && cfg.Jobs.WebhookTimeout <= 0 {
		cfg.Jobs.WebhookTimeout = cfg.Webhooks.Timeout
	}
	queue, err := jobs.NewQueue(store, cfg.Jobs)
	if err != nil {
		stop()
		return nil, err
	}
	bo.batches = batch.New(bo.engine, queue, batch.Config{MaxBody: cfg.MaxBatchBody, MaxItem: cfg.MaxBatchItem,
		SyncTimeout: cfg.SyncBatchTimeout, UploadTimeout: cfg.BatchUploadTimeout, Log: cfg.Logger, SyncHold: &s.syncHold,
		Tracer: s.tracer, OwnerRoles: records.UserRoles, ChunkDone: m.chunkDone})
	queue.Handle(bo.batches.ProcessChunk)
	bo.webhooks = newWebhooks(&cfg, bo, queue, s.tracer)
	bo.keyedHold = &s.keyedHold
	s.queue = queue
	group := g.Group("")
	group.Use(bo.begin, bo.negotiate, bo.limitBody, bo.authenticate, bo.cacheControl, bo.rateLimit, bo.validate, bo.idempotent)
	group.Use(bo.serveKept) // last: a kept answer skips only the engine
	bo.traceEngine(group)
	mountBackoffice(bo, group)
	for _, rt := range bo.routes.Batches() {
		group.PATCH(rt.Pattern(), bo.batchRequest) // streams: not a generated handler (docs/decisions.md §2)
	}
	for _, rt := range bo.routes.Atomic() {
		group.POST(rt.Pattern(), bo.atomicRequest) // JSON:API Atomic Operations (atomic.go)
	}
	bo.serveDocument(g)

	sf, err := newApplication(&cfg, store, openapi.Storefront, cfg.StorefrontBase, engineCfg, s.tracer)
	if err != nil {
		stop()
		return nil, fmt.Errorf("storefront: %w", err)
	}
	sf.auth, sf.audience, sf.metrics, sf.limiter, sf.kept = tokens, "storefront", m, limits, kept
	sf.storefront, err = storefront.Load(ctx, store, sf.reg, storefront.Settings{GuestResources: cfg.GuestResources,
		Currencies: cfg.Currencies, DefaultCurrency: cfg.DefaultCurrency})
	if err != nil {
		stop()
		return nil, err
	}
	sf.engine.LimitTo("currencies", toAny(sf.storefront.Currencies()))
	sfGroup := g.Group("")
	sfGroup.Use(sf.begin, sf.negotiate, sf.limitBody, sf.authenticate, sf.cacheControl, sf.rateLimit, sf.localeHeaders, sf.validate, sf.serveKept)
	sf.traceEngine(sfGroup)
	mountStorefront(sf, sfGroup)
	sf.serveDocument(g)
	serveIndex(g, bo, sf)

	// Each application's token endpoint, and /oauth2-token, which accepts
	// either application's clients (docs/decisions.md §3).
	for _, path := range []string{cfg.BackofficeBase + "/oauth2-token", cfg.StorefrontBase + "/oauth2-token", "/oauth2-token"} {
		if !slices.Contains(tokenPaths, path) {
			tokenPaths = append(tokenPaths, path)
			g.POST(path, gin.WrapF(tokens.TokenHandler))
		}
	}
	g.GET("/.well-known/jwks.json", gin.WrapF(tokens.JWKSHandler))
	apps := []*application{bo, sf}
	g.NoRoute(func(c *gin.Context) { s.unmatched(c, apps) })
	g.NoMethod(func(c *gin.Context) { s.unmatched(c, apps) })
	g.GET("/healthz", s.healthz)
	g.GET("/readyz", s.readyz)
	if !cfg.SeparateMetrics {
		g.GET("/metrics", gin.WrapH(m.handler()))
	}
	if err := queue.Start(context.Background()); err != nil {
		stop()
		_ = queue.Stop(context.Background())
		return nil, err
	}
	if limits != nil {
		s.rates = newRateShare(limits, store, cfg.RateLimit.ShareEvery, cfg.Logger)
		s.sharing.Add(1)
		go func() {
			defer s.sharing.Done()
			s.rates.run(ctx)
		}()
	}
	return s, nil
}

// newWebhooks builds the back office's webhooks: their secrets sealed with
// the key-encryption key when one is set, their event types those of the
// back office's resources (the events themselves excepted), their deliveries
// run by the job queue.
func newWebhooks(cfg *Config, bo *application, queue *jobs.Queue, tracer trace.Tracer) *webhook.Service {
	wc := cfg.Webhooks
	if cfg.Auth.KeyEncryption != nil {
		wc.Sealer = cfg.Auth.KeyEncryption
	}
	for _, t := range bo.reg.Types() {
		if t != "events" {
			wc.Types = append(wc.Types, t)
		}
	}
	w := webhook.New(bo.engine, queue, wc)
	w.SetTracer(tracer)
	queue.HandleWebhooks(w.Deliver)
	return w
}

func toAny[T any](list []T) []any {
	out := make([]any, len(list))
	for i, v := range list {
		out[i] = v
	}
	return out
}

// MetricsHandler answers GET /metrics in the Prometheus text format, for a
// listener of its own (Config.SeparateMetrics, --metrics-addr). It needs no
// token: operators protect it by the address it listens on.
func (s *Server) MetricsHandler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", s.metrics.handler())
	return mux
}

// Close stops the background work of the server (key reloads, the rate
// limit's shares, the job queue).
func (s *Server) Close() {
	s.stop()
	s.sharing.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), queueStopWait)
	defer cancel()
	if err := s.queue.Stop(ctx); err != nil {
		s.log.Warn("stop the job queue", "error", err)
	}
}

// queueStopWait bounds how long Close waits for running chunks; a chunk cut
// off is rolled back and retried by another process or the next start.
const queueStopWait = 10 * time.Second

// ServeHTTP answers HEAD like GET without a body (docs/decisions.md §0).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodHead {
		r = r.Clone(r.Context())
		r.Method = http.MethodGet
		w = &headWriter{ResponseWriter: w}
	}
	s.gin.ServeHTTP(w, r)
}

// headWriter drops the body of a GET answered for a HEAD request.
type headWriter struct{ http.ResponseWriter }

func (h *headWriter) Write(b []byte) (int, error) { return len(b), nil }

// application is one API application (back office, storefront): its document,
// resources, routes and engine.
type application struct {
	cfg      *Config
	doc      *openapi3.T
	raw      []byte
	base     string // the application's path prefix, such as /admin
	reg      *resource.Registry
	routes   *engine.RouteTable
	engine   *engine.Engine
	log      *slog.Logger
	docJSON  []byte
	auth     *auth.Service
	audience string           // the token audience of this application
	batches  *batch.Pipeline  // the back office's batch uploads and jobs; nil on the storefront
	webhooks *webhook.Service // the back office's webhooks; nil on the storefront
	roles    bool             // callers' roles decide what they may do (the back office; storefront clients only read)
	// storefront: the guests and locales of the storefront; nil on the back office.
	storefront *storefront.Storefront
	metrics    *metrics
	limiter    *limiter // per-client request rate, shared by both applications; nil: none
	// unavailable reads an error as the database's condition
	// (storage.Store.Unavailable): writeError answers it 503.
	unavailable func(error) bool
	// replicated: the store lends reads to a replica, whose fences need
	// each request's principal in its context (authenticate).
	replicated bool
	noteWrite  func(context.Context) error // the store's NoteWrite

	tracer trace.Tracer // nil: tracing off (tracing.go)
	// keyedHold is the Server's (tests only; nil on the storefront).
	keyedHold *atomic.Pointer[KeyedHold]
	// owned estimates each caller's live Idempotency-Keys, running holds
	// the keys of this process's keyed writes while they run (idempotency.go).
	owned   ownedKeys
	running sync.Map
	// guestCache is the Cache-Control of a storefront guest's read
	// (cache.go), as the header's value.
	guestCache []string
	// kept are the rendered answers of reference data, shared by both
	// applications (answers.go); nil: none kept. reference are the types
	// whose answers it keeps (resource.Registry.Reference).
	kept      *answercache.Cache
	reference map[string]bool
}

func newApplication(cfg *Config, store *storage.Store, raw []byte, base string, engineCfg engine.Config, tracer trace.Tracer) (*application, error) {
	doc, err := loadDocument(raw)
	if err != nil {
		return nil, err
	}
	e, err := engine.New(doc, store, base, engineCfg)
	if err != nil {
		return nil, err
	}
	return &application{cfg: cfg, doc: doc, raw: raw, base: base, reg: e.Registry(), routes: e.Routes(), engine: e, log: cfg.Logger,
		tracer: tracer, unavailable: store.Unavailable, replicated: store.HasReplica(), noteWrite: store.NoteWrite,
		guestCache: []string{guestCacheControl(cfg.GuestMaxAge)}, reference: e.Registry().Reference()}, nil
}
