// Package cli is the entityapi command: its settings (flags, ENTITYAPI_*
// variables, defaults), `serve`, `migrate`, the administration commands and
// the dispatch to the batch client (server/cli/batchclient). It sits on top
// of every other package and only the main package at the module root
// imports it, so that main stays a few lines and everything it runs can be
// tested here.
//
//	entityapi serve [flags]    run the HTTP service (migrates first)
//	entityapi migrate [flags]  apply database migrations and exit
//	entityapi batch ...        send a batch to a running server and follow it
//	entityapi version          print the version, commit and Go version
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/entityapi/entityapi/server/cli/batchclient"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/authstore"
)

// Main runs the command line args (without the program's name), printing on
// stdout what the command prints and on stderr the log, the banner of serve
// and, when the command fails, one line "entityapi: " and the error. It
// returns the process's exit code: 0, 1, or the batch client's own
// (batchclient.ExitCode).
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := run(ctx, args, stdout, stderr)
	if err != nil {
		fmt.Fprintln(stderr, "entityapi:", err)
	}
	return batchclient.ExitCode(err)
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

// run runs one command; stdout takes what the command prints, stderr the
// log and the banner of serve (tests capture both). The batch client writes
// on the process's own standard output and error (batchclient.Command).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
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
		return batchclient.Command(ctx, rest)
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
	store, err := storage.OpenWith(ctx, cfg.databaseURL, cfg.storeOptions())
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
		if cfg.readDatabaseURL != "" {
			ro := storage.ReplicaOptions{MaxLag: cfg.readReplicaMaxLag, Logger: log}
			if err := store.AttachReplica(ctx, cfg.readDatabaseURL, cfg.storeOptions(), ro); err != nil {
				return err
			}
		}
		return serve(ctx, cfg, store, log, stderr)
	}
	af.kek = cfg.auth.KeyEncryption
	return admin(ctx, authstore.New(store), cmd, &af, cfg.args, stdout)
}
