// Command entityapi serves the business entities of a back-office application as a
// JSON:API web interface (see README.md).
//
//	entityapi serve [flags]    run the HTTP service (migrates first)
//	entityapi migrate [flags]  apply database migrations and exit
//	entityapi batch ...        send a batch to a running server and follow it
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage"
)

func main() {
	if err := run(context.Background(), os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "entityapi:", err)
		os.Exit(exitCode(err))
	}
}

// commands are the subcommands; two-word ones administer the database.
var commands = map[string]bool{
	"serve": true, "migrate": true, "org create": true, "user create": true,
	"client create": true, "client disable": true, "keys rotate": true,
}

const usage = `usage: entityapi COMMAND [flags]
  serve                      run the HTTP service (migrates first)
  migrate                    apply database migrations and exit
  org create NAME            add an organization
  user create --org NAME --username U --email E --first-name F --last-name L --role ROLE [--password P]
  client create --app backoffice --user USERNAME [--json] | --app storefront --org NAME
  client disable ID
  keys rotate                add a signing key; older keys verify until their tokens expire
  batch submit --type TYPE --file FILE [--sync]   send a batch to a running server, follow it
  batch status ID | batch errors ID               an operation, its errors (entityapi batch lists the flags)
(entityapi COMMAND -h lists the flags)`

func run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	cmd, rest := args[0], args[1:]
	if cmd == "batch" { // a client of a running server: no database
		return runBatch(ctx, rest)
	}
	if !commands[cmd] && len(rest) > 0 {
		cmd, rest = cmd+" "+rest[0], rest[1:]
	}
	if !commands[cmd] {
		return fmt.Errorf("unknown command %q\n%s", strings.Join(args, " "), usage)
	}
	fs := flag.NewFlagSet("entityapi "+cmd, flag.ContinueOnError)
	var af adminFlags
	if cmd != "serve" && cmd != "migrate" {
		af.register(fs)
	}
	cfg, err := parse(fs, cmd, rest, osLookup, os.Stdout)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	log := newLogger(os.Stderr, cfg.logFormat, cfg.logLevel)
	store, err := storage.Open(ctx, cfg.databaseURL)
	if err != nil {
		return err
	}
	defer store.Close()
	if err := store.Migrate(ctx); err != nil {
		return err
	}
	switch cmd {
	case "migrate":
		log.Info("migrations applied", "database", store.Dialect())
		return nil
	case "serve":
		return serve(ctx, cfg, store, log)
	}
	return admin(ctx, store, cmd, &af, cfg.args, os.Stdout)
}

func serve(ctx context.Context, cfg *config, store *storage.Store, log *slog.Logger) error {
	if cfg.demo {
		if err := store.LoadDemo(ctx); err != nil {
			return fmt.Errorf("demo data: %w", err)
		}
	}
	h, err := server.New(server.Config{
		PublicURL: cfg.publicURL, BackofficeBase: cfg.backofficeBase, MaxBody: cfg.maxBody, Logger: log, Auth: cfg.auth,
		MaxBatchBody: cfg.maxBatchBody, MaxBatchItem: cfg.maxBatchItem, SyncBatchTimeout: cfg.syncBatchTimeout, BatchUploadTimeout: cfg.batchUpload,
		Jobs: cfg.jobs, StorefrontBase: cfg.storefrontBase, GuestResources: cfg.guestResources,
		Currencies: cfg.currencies, DefaultCurrency: cfg.defaultCurrency,
		CORS: cfg.cors, RateLimit: cfg.rateLimit, SeparateMetrics: cfg.metricsAddr != "",
	}, store)
	if err != nil {
		return err
	}
	defer h.Close()
	srv := newHTTPServer(cfg, h)
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 2)
	go func() { errc <- srv.ListenAndServe() }()
	if cfg.metricsAddr != "" {
		msrv := metricsServer(cfg.metricsAddr, h.MetricsHandler())
		defer msrv.Close()
		go func() { errc <- fmt.Errorf("metrics: %w", msrv.ListenAndServe()) }()
		log.Info("metrics listening", "addr", cfg.metricsAddr)
	}
	base := cfg.publicURL
	if base == "" {
		base = "http://" + cfg.addr
	}
	base = strings.TrimSuffix(base, "/")
	log.Info("entityapi listening", "addr", cfg.addr, "database", store.Dialect(), "demo", cfg.demo,
		"backoffice", base+cfg.backofficeBase+"/api", "openapi", base+cfg.backofficeBase+"/api/openapi.yaml")
	fmt.Fprintf(os.Stderr, "\n  back-office API: %s%s/api/countries\n  OpenAPI:         %s%s/api/openapi.yaml\n",
		base, cfg.backofficeBase, base, cfg.backofficeBase)
	fmt.Fprintf(os.Stderr, "  storefront API:  %s%s/api/countries (guests welcome)\n  OpenAPI:         %s%s/api/openapi.yaml\n",
		base, cfg.storefrontBase, base, cfg.storefrontBase)
	if cfg.demo {
		fmt.Fprintf(os.Stderr, `
  demo clients (secret = id + "-secret"): demo-backoffice (admin), demo-manager, demo-viewer,
  demo-other (organization Other), demo-storefront
  get a token:
    curl -s -H 'Content-Type: application/json' \\
      -d '{"grant_type":"client_credentials","client_id":"demo-backoffice","client_secret":"demo-backoffice-secret"}' \\
      %s%s/oauth2-token
`, base, cfg.backofficeBase)
	}
	fmt.Fprintln(os.Stderr)
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

// newHTTPServer applies the server-wide limits of the settings. Batch uploads
// and sync batches set their own deadlines per request (--batch-upload-timeout).
func newHTTPServer(cfg *config, h http.Handler) *http.Server {
	return &http.Server{
		Addr:              cfg.addr,
		Handler:           h,
		ReadHeaderTimeout: cfg.readHeaderTimeout,
		ReadTimeout:       cfg.requestTimeout,
		WriteTimeout:      cfg.requestTimeout,
		IdleTimeout:       cfg.idleTimeout,
		MaxHeaderBytes:    cfg.maxHeaderBytes,
	}
}
