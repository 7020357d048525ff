// Command entityapi serves the business entities of a back-office application as a
// JSON:API web interface (see README.md).
//
//	entityapi serve [flags]    run the HTTP service (migrates first)
//	entityapi migrate [flags]  apply database migrations and exit
//	entityapi batch ...        send a batch to a running server and follow it
//	entityapi version          print the version, commit and Go version
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/authstore"
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
	"client create": true, "client disable": true, "keys rotate": true, "keys rewrap": true,
}

const usage = `usage: entityapi COMMAND [flags]
  serve                      run the HTTP service (migrates first)
  migrate                    apply database migrations and exit
  org create NAME            add an organization
  user create --org NAME --username U --email E --first-name F --last-name L --role ROLE [--password P]
  client create --app backoffice --user USERNAME [--json] | --app storefront --org NAME
  client disable ID
  keys rotate                add a signing key; older keys verify until their tokens expire
  keys rewrap                seal the signing keys with the key-encryption key (plain ones, or sealed with the previous one)
  batch submit --type TYPE --file FILE [--sync]   send a batch to a running server, follow it
  batch status ID | batch errors ID               an operation, its errors (entityapi batch lists the flags)
  version                    print the version, commit and Go version (also --version)
  help                       print this list (also --help, -h)
(entityapi COMMAND -h lists the flags)`

// run is the command line on the process's standard output and error.
func run(ctx context.Context, args []string) error {
	return runWith(ctx, args, os.Stdout, os.Stderr)
}

// runWith runs one command; stdout takes what the command prints, stderr the
// log and the banner of serve (tests capture both).
func runWith(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New(usage)
	}
	cmd, rest := args[0], args[1:]
	switch cmd {
	case "help", "-h", "-help", "--help":
		_, err := fmt.Fprintln(stdout, usage)
		return err
	case "version", "-version", "--version":
		_, err := fmt.Fprintln(stdout, versionText(version, commit, buildInfo()))
		return err
	}
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
	cfg, err := parse(fs, cmd, rest, osLookup, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	if cmd == "serve" {
		// The request log goes out in batches, off the requests' path
		// (lineWriter); the banner goes the same way, so that it keeps its
		// place among the lines.
		lines := newLineWriter(stderr, logGather)
		defer lines.Close()
		stderr = lines
	}
	log := newLogger(stderr, cfg.logFormat, cfg.logLevel)
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
		return serve(ctx, cfg, store, log, stderr)
	}
	af.kek = cfg.auth.KeyEncryption
	return admin(ctx, authstore.New(store), cmd, &af, cfg.args, stdout)
}

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
	if cfg.demo {
		if err := store.LoadDemoRecords(ctx); err != nil {
			return fmt.Errorf("demo data: %w", err)
		}
		if err := authstore.New(store).LoadDemo(ctx); err != nil {
			return fmt.Errorf("demo data: %w", err)
		}
	}
	warnUnsealedKeys(cfg, log)
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
		TracerProvider: providerOf(tp), Webhooks: cfg.webhooks,
	}, store)
	if err != nil {
		return err
	}
	defer h.Close()
	srv := newHTTPServer(cfg, h)
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 2)
	go func() { errc <- srv.Serve(ln) }()
	if mln != nil {
		msrv := metricsServer(cfg.metricsAddr, h.MetricsHandler())
		defer msrv.Close()
		go func() { errc <- fmt.Errorf("metrics: %w", msrv.Serve(mln)) }()
		log.Info("metrics listening", "addr", mln.Addr().String())
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
