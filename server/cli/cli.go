// Package cli is the entityapi command: its settings (flags, ENTITYAPI_*
// variables, defaults), `serve`, `migrate`, the administration commands and
// the dispatch to the batch client (server/cli/batchclient). It sits on top
// of every other package and only the main package at the module root
// imports it, so that main stays a few lines and everything it runs can be
// tested here.
//
//	entityapi serve [flags]    run the HTTP service (migrates first)
//	entityapi migrate [flags]  apply database migrations and exit
//	entityapi org|user|client|keys ...  administer the database (commands.go)
//	entityapi batch ...        send a batch to a running server and follow it
//	entityapi version          print the version, commit and Go version
//	entityapi help [COMMAND]   list the commands, or a command's flags
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"

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

// run runs one command; stdout takes what the command prints, stderr the
// log and the banner of serve (tests capture both), and the batch client
// writes on the same two (batchclient.Command). Help, asked for by -h or
// --help anywhere on a command line or by `help COMMAND`, goes to stdout.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return errors.New(usage())
	}
	switch first := args[0]; {
	case first == "help" && len(args) > 1: // help COMMAND is COMMAND --help
		return run(ctx, append(slices.Clone(args[1:]), "--help"), stdout, stderr)
	case first == "help" || isHelp(first):
		_, err := fmt.Fprintln(stdout, usage())
		return err
	case first == "version" || first == "-version" || first == "--version":
		return printVersion(args[1:], stdout)
	case first == "batch": // a client of a running server: no database
		return batchclient.Command(ctx, args[1:], stdout, stderr)
	}
	c, rest, err := findCommand(args)
	if errors.Is(err, errGroupHelp) {
		_, err := fmt.Fprintln(stdout, groupUsage(args[0]))
		return err
	}
	if err != nil {
		return err
	}
	cmd := c.name
	fs := flag.NewFlagSet("entityapi "+cmd, flag.ContinueOnError)
	var af adminFlags
	if c.flags != nil {
		c.flags(fs, &af)
	}
	cfg, err := parse(fs, cmd, rest, osLookup, stdout)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	terminal := isTerminal(stderr)
	if cmd == "serve" {
		// The request log goes out in batches, off the requests' path
		// (lineWriter); the banner goes the same way, so that it keeps its
		// place among the lines.
		lines := newLineWriter(stderr, logGather)
		defer lines.Close()
		stderr = lines
	}
	log := newLogger(stderr, logFormat(cfg.logFormat, terminal), cfg.logLevel)
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
