// Command contract runs the contract tests partners generate from our OpenAPI
// documents (issue 31, docs/contract.md): it builds entityapi, starts a fresh
// `entityapi serve --demo` on a free port (SQLite, or a throwaway PostgreSQL
// database with -postgres-admin), fetches the served document of each
// application, has Portman generate a Postman collection of contract tests
// from it (status, content type, JSON body, response schema, headers) with the
// configuration beside this file, and runs the collection with newman. It
// fails on any failed assertion or test script error, and on any response
// schema check Portman left out. Portman and newman are the versions pinned in
// scripts/package.json (`make contract` installs them).
//
// The storefront runs first: the back office's requests end by deleting the
// demo records their examples name.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/entityapi/entityapi/scripts/internal/localserver"
)

func main() {
	admin := flag.String("postgres-admin", os.Getenv("TEST_DATABASE_URL"),
		"PostgreSQL admin URL on whose server a throwaway database is made for the run (default $TEST_DATABASE_URL; empty: SQLite)")
	keep := flag.String("keep", "", "directory that keeps the documents, collections, logs and reports (default: a temporary one, removed)")
	only := flag.String("apps", "storefront,backoffice", "the applications to test, comma-separated, in order")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *admin, *keep, strings.Split(*only, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "contract:", err)
		os.Exit(1)
	}
}

// run tests each named application against one fresh demo server.
func run(ctx context.Context, admin, keep string, names []string) (err error) {
	var apps []application
	for _, name := range names {
		app, ok := applications[name]
		if !ok {
			return fmt.Errorf("-apps: no application %q (backoffice, storefront)", name)
		}
		apps = append(apps, app)
	}
	tools, err := findTools()
	if err != nil {
		return err
	}
	dir := keep
	if dir == "" {
		if dir, err = os.MkdirTemp("", "contract-"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if dir, err = filepath.Abs(dir); err != nil {
		return err
	}
	// No batch workers: a batch's asynchronous operation then stays `new`,
	// so the cancel the document shows (PATCH /api/asyncoperations/1)
	// succeeds, and the batch examples write nothing that would shift the
	// ids the later examples name.
	demo, err := localserver.StartDemo(ctx, "contract", "", admin, "--no-workers")
	if err != nil {
		return fmt.Errorf("start the demo server: %w", err)
	}
	defer func() { err = errors.Join(err, demo.Stop(err != nil)) }()
	fmt.Printf("contract: entityapi serve --demo on %s (%s)\n", demo.Base(), demo.Database)
	var failed []string
	for _, app := range apps {
		res, err := app.test(ctx, tools, demo.Base(), dir)
		if err != nil {
			return fmt.Errorf("%s: %w", app.name, err)
		}
		fmt.Printf("contract: %s: %s\n", app.name, res.Summary())
		for _, f := range res.Failures {
			fmt.Printf("  %s\n", f)
		}
		if len(res.Failures) > 0 {
			failed = append(failed, app.name)
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("%s: failures above (collections, logs and reports: rerun with -keep DIR)", strings.Join(failed, ", "))
	}
	return nil
}
