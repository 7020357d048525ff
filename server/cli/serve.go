package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/authstore"
)

// serve listens first, then announces, then serves: a busy address is one
// error line before any banner, and the addresses announced are taken.
func serve(ctx context.Context, cfg *config, store *storage.Store, log *slog.Logger, stderr io.Writer) error {
	ln, err := listen(cfg.addr, "--addr")
	if err != nil {
		return err
	}
	defer ln.Close()
	var mln net.Listener
	if cfg.metricsAddr != "" {
		if mln, err = listen(cfg.metricsAddr, "--metrics-addr"); err != nil {
			return err
		}
		defer mln.Close()
	}
	var dln net.Listener
	if cfg.debugAddr != "" {
		if dln, err = listen(cfg.debugAddr, "--debug-addr"); err != nil {
			return err
		}
		defer dln.Close()
	}
	if cfg.demo {
		if err := store.LoadDemoRecords(ctx); err != nil {
			return fmt.Errorf("demo data: %w", err)
		}
		if err := authstore.New(store).LoadDemo(ctx); err != nil {
			return fmt.Errorf("demo data: %w", err)
		}
	}
	tp, err := tracerProvider(ctx, os.Getenv)
	if err != nil {
		return err
	}
	defer func() {
		if err := flushTraces(tp); err != nil {
			log.Warn("send the last traces", "error", err)
		}
	}()
	h, err := server.New(server.Config{
		PublicURL: cfg.publicURL, BackofficeBase: cfg.backofficeBase, MaxBody: cfg.maxBody, Logger: log, Auth: cfg.auth,
		MaxBatchBody: cfg.maxBatchBody, MaxBatchItem: cfg.maxBatchItem, MaxAtomicOperations: cfg.maxAtomicOperations, SyncBatchTimeout: cfg.syncBatchTimeout, BatchUploadTimeout: cfg.batchUpload,
		RequestTimeout: cfg.requestTimeout, MaxAggregationValues: cfg.maxAggregationValues,
		Jobs: cfg.jobs, StorefrontBase: cfg.storefrontBase, GuestResources: cfg.guestResources,
		Currencies: cfg.currencies, DefaultCurrency: cfg.defaultCurrency,
		CORS: cfg.cors, RateLimit: cfg.rateLimit, SeparateMetrics: cfg.metricsAddr != "",
		TracerProvider: providerOf(tp), Webhooks: cfg.webhooks, Idempotency: cfg.idempotency, GuestMaxAge: cfg.guestMaxAge, AnswerCache: cfg.answerCache,
	}, store)
	if err != nil {
		return err
	}
	defer h.Close()
	// Only now, the signing keys loaded: sealed keys without their
	// key-encryption key stopped server.New with an error that says so, and
	// no warning that they are unencrypted came before it.
	warnUnsealedKeys(cfg, log)
	srv := newHTTPServer(cfg, h)
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 3)
	go func() { errc <- srv.Serve(ln) }()
	if mln != nil {
		msrv := metricsServer(cfg.metricsAddr, h.MetricsHandler())
		defer msrv.Close()
		go func() { errc <- fmt.Errorf("metrics: %w", msrv.Serve(mln)) }()
		log.Info("metrics listening", "addr", mln.Addr().String())
	}
	if dln != nil {
		dsrv := debugServer(cfg.debugAddr)
		defer dsrv.Close()
		go func() { errc <- fmt.Errorf("profiles: %w", dsrv.Serve(dln)) }()
		log.Info("profiles listening", "addr", dln.Addr().String(), "path", "/debug/pprof/")
	}
	base := bannerBase(cfg.publicURL, ln.Addr())
	log.Info("entityapi listening", "addr", ln.Addr().String(), "database", store.Dialect(), "demo", cfg.demo, "traces", tp != nil,
		"backoffice", base+cfg.backofficeBase+"/api", "openapi", base+cfg.backofficeBase+"/api/openapi.yaml")
	writeBanner(stderr, base, cfg)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down", "timeout", cfg.shutdownTimeout.String())
	shutdown, cancel := context.WithTimeout(context.Background(), cfg.shutdownTimeout)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		// Requests still running past the timeout are cut off: the batch chunks
		// they started are rescued by another process (--job-rescue-after).
		log.Warn("shutdown timeout reached: closing the connections left", "error", err)
		return srv.Close()
	}
	return nil
}

// answerGrace is how long past --request-timeout the server may still write:
// the handler stops the request's queries at the timeout (server.Config's
// RequestTimeout) and needs a moment to send its error document, which a
// write deadline at the same instant would cut off.
const answerGrace = 5 * time.Second

// newHTTPServer applies the server-wide limits of the settings. Batch uploads
// and sync batches set their own deadlines per request (--batch-upload-timeout).
func newHTTPServer(cfg *config, h http.Handler) *http.Server {
	return &http.Server{
		Addr:              cfg.addr,
		Handler:           h,
		ReadHeaderTimeout: cfg.readHeaderTimeout,
		ReadTimeout:       cfg.requestTimeout,
		WriteTimeout:      cfg.requestTimeout + answerGrace,
		IdleTimeout:       cfg.idleTimeout,
		MaxHeaderBytes:    cfg.maxHeaderBytes,
	}
}
