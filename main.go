// Command entityapi serves the business entities of a back-office application as a
// JSON:API web interface (see README.md).
//
//	entityapi serve [flags]    run the HTTP service (migrates first)
//	entityapi migrate [flags]  apply database migrations and exit
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
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage"
)

func main() {
	if err := run(context.Background(), os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "entityapi:", err)
		os.Exit(1)
	}
}

// config is every setting, from flags and ENTITYAPI_* variables (flags win).
type config struct {
	addr, dataDir, databaseURL, publicURL, backofficeBase string
	demo                                                  bool
	maxBody                                               int64
	shutdownTimeout                                       time.Duration
}

func parse(cmd string, args []string) (*config, error) {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	c := &config{}
	fs.StringVar(&c.addr, "addr", env("ADDR", "127.0.0.1:8080"), "listen address (ENTITYAPI_ADDR)")
	fs.StringVar(&c.dataDir, "data-dir", env("DATA_DIR", "./data"), "directory of the embedded database (ENTITYAPI_DATA_DIR)")
	fs.StringVar(&c.databaseURL, "database-url", env("DATABASE_URL", ""), "sqlite:PATH or postgres://... (ENTITYAPI_DATABASE_URL; default sqlite:<data-dir>/entityapi.db)")
	fs.StringVar(&c.publicURL, "public-url", env("PUBLIC_URL", ""), "absolute base of links, such as https://api.example.com (ENTITYAPI_PUBLIC_URL; default: from each request)")
	fs.StringVar(&c.backofficeBase, "backoffice-base", env("BACKOFFICE_BASE", "/admin"), "path prefix of the back-office application (ENTITYAPI_BACKOFFICE_BASE)")
	fs.BoolVar(&c.demo, "demo", envBool("DEMO"), "load demo records (ENTITYAPI_DEMO)")
	maxBody := fs.String("max-body", env("MAX_BODY", "10485760"), "largest request body in bytes (ENTITYAPI_MAX_BODY)")
	fs.DurationVar(&c.shutdownTimeout, "shutdown-timeout", 15*time.Second, "how long to finish requests on SIGTERM")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	n, err := strconv.ParseInt(*maxBody, 10, 64)
	if err != nil || n <= 0 {
		return nil, fmt.Errorf("--max-body %q: want a positive number of bytes", *maxBody)
	}
	c.maxBody = n
	if c.databaseURL == "" {
		c.databaseURL = "sqlite:" + filepath.Join(c.dataDir, "entityapi.db")
	}
	return c, nil
}

func env(name, def string) string {
	if v, ok := os.LookupEnv("ENTITYAPI_" + name); ok {
		return v
	}
	return def
}

func envBool(name string) bool {
	b, _ := strconv.ParseBool(env(name, "false"))
	return b
}

func run(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return errors.New("usage: entityapi serve|migrate [flags] (entityapi serve -h lists the flags)")
	}
	cmd, args := args[0], args[1:]
	if cmd != "serve" && cmd != "migrate" {
		return fmt.Errorf("unknown command %q (want serve or migrate)", cmd)
	}
	cfg, err := parse(cmd, args)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewJSONHandler(os.Stderr, nil))
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
	default:
		return serve(ctx, cfg, store, log)
	}
}

func serve(ctx context.Context, cfg *config, store *storage.Store, log *slog.Logger) error {
	if cfg.demo {
		if err := store.LoadDemo(ctx); err != nil {
			return fmt.Errorf("demo data: %w", err)
		}
	}
	h, err := server.New(server.Config{
		PublicURL: cfg.publicURL, BackofficeBase: cfg.backofficeBase, MaxBody: cfg.maxBody, Logger: log,
	}, store)
	if err != nil {
		return err
	}
	srv := &http.Server{Addr: cfg.addr, Handler: h, ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout: 60 * time.Second, WriteTimeout: 60 * time.Second, IdleTimeout: 120 * time.Second,
		MaxHeaderBytes: 1 << 20}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	base := cfg.publicURL
	if base == "" {
		base = "http://" + cfg.addr
	}
	base = strings.TrimSuffix(base, "/")
	log.Info("entityapi listening", "addr", cfg.addr, "database", store.Dialect(), "demo", cfg.demo,
		"backoffice", base+cfg.backofficeBase+"/api", "openapi", base+cfg.backofficeBase+"/api/openapi.yaml")
	fmt.Fprintf(os.Stderr, "\n  back-office API: %s%s/api/countries\n  OpenAPI:         %s%s/api/openapi.yaml\n\n",
		base, cfg.backofficeBase, base, cfg.backofficeBase)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutdown, cancel := context.WithTimeout(context.Background(), cfg.shutdownTimeout)
	defer cancel()
	return srv.Shutdown(shutdown)
}
