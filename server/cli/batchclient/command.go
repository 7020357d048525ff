// Package batchclient is `entityapi batch`: a client of a running server
// that sends a batch file as a stream, follows its operation and prints its
// errors. It speaks to the server only through its public API, through the
// generated Go SDK (gen/sdk/go/backoffice) where the SDK has the call
// (client.go), so it works against any entityapi deployment; it never opens
// the database, so it runs anywhere the server's URL can be reached.
package batchclient

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/entityapi/entityapi/gen/sdk/go/backoffice"
	"github.com/entityapi/entityapi/server/cli/flagargs"
)

// Exit codes of `entityapi batch` (docs/batch.md, "The batch client"), so that scripts
// can tell a refused request from items that failed from a failed operation.
const (
	ExitOK              = 0
	ExitRefused         = 1 // usage, transport error or an error document: nothing was processed
	ExitItemErrors      = 2 // the operation ended success but some items failed
	ExitOperationFailed = 3 // the operation ended failed or cancelled
)

// DefaultURL is the back-office application of a server started with the
// default settings (--addr and --backoffice-base; server/cli's tests hold
// the two in step).
const DefaultURL = "http://127.0.0.1:8080/admin"

// exitCodes is the help's line on the exit codes.
const exitCodes = `exit codes: 0 done, 1 usage, transport error or request refused, 2 some items failed,
3 the operation failed or was cancelled`

// usage lists the batch commands (`entityapi batch --help`).
const usage = `usage: entityapi batch COMMAND [flags]
  submit --type TYPE --file FILE|- [--sync] [--max-errors N]   send a batch and follow it
  status ID                                                  print an operation
  errors ID [--page-size N]                                  print all errors of an operation
flags of every command: --url (ENTITYAPI_URL, default http://127.0.0.1:8080/admin: the
back-office application), --client-id (ENTITYAPI_CLIENT_ID), --client-secret (ENTITYAPI_CLIENT_SECRET)
` + exitCodes + `
entityapi batch COMMAND --help lists the command's flags.`

// subcommands are the batch commands: the usage line and summary of each.
var subcommands = map[string][2]string{
	"submit": {"entityapi batch submit --type TYPE --file FILE|- [--sync] [--max-errors N] [flags]",
		"send a batch file to a running server as a stream, follow its operation and print its errors"},
	"status": {"entityapi batch status ID [flags]", "print an operation"},
	"errors": {"entityapi batch errors ID [--page-size N] [flags]", "print all errors of an operation"},
}

// exitError carries an exit code other than 1 up to the process.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// ExitCode is the process's exit code for what a command returned: 0 for
// nil, the code of the batch client's outcome (ExitItemErrors,
// ExitOperationFailed), else ExitRefused (1) for any error of any command.
func ExitCode(err error) int {
	var ee *exitError
	switch {
	case err == nil:
		return ExitOK
	case errors.As(err, &ee):
		return ee.code
	}
	return ExitRefused
}

// runEnv is what `entityapi batch` takes from the process; tests give their
// own writers, environment and terminal decision.
type runEnv struct {
	stdout, stderr io.Writer
	stdin          io.Reader
	tty            bool // stderr is a terminal: draw the progress bar there
	getenv         func(string) string
	hc             *http.Client
	poll           time.Duration // the longest wait between two reads of an operation
	lineEvery      time.Duration // at most one plain progress line per this
}

// Command runs `entityapi batch args...` in the process's environment: its
// standard input and variables, with what it prints on stdout and stderr (a
// progress bar when stderr is a terminal). Ctrl-C and SIGTERM stop the
// upload or the polling, never an operation on the server.
func Command(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	tty := false
	if f, ok := stderr.(*os.File); ok {
		tty = isatty.IsTerminal(f.Fd())
	}
	return run(ctx, args, runEnv{stdout: stdout, stderr: stderr, stdin: os.Stdin,
		tty: tty, getenv: os.Getenv, hc: &http.Client{},
		poll: 500 * time.Millisecond, lineEvery: 2 * time.Second})
}

// options are the flags of the batch commands.
type options struct {
	url, clientID, secret, typ, file string
	sync                             bool
	maxErrors, pageSize              int
}

// run runs `entityapi batch SUBCOMMAND args...`. Help (-h or --help,
// anywhere) goes to stdout.
func run(ctx context.Context, args []string, env runEnv) error {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help") {
		_, err := fmt.Fprintln(env.stdout, usage)
		return err
	}
	if len(args) == 0 {
		return errors.New(usage)
	}
	sub := args[0]
	if _, ok := subcommands[sub]; !ok {
		return fmt.Errorf("unknown command %q\n%s", "batch "+sub, usage)
	}
	var f options
	fs := flag.NewFlagSet("entityapi batch "+sub, flag.ContinueOnError)
	// The variables are read after the flags, not made the flags' defaults:
	// --help prints the defaults, and a secret must never be printed.
	fs.StringVar(&f.url, "url", "", "the back-office application base: <url>/oauth2-token, <url>/api/<type> (ENTITYAPI_URL; default "+DefaultURL+")")
	fs.StringVar(&f.clientID, "client-id", "", "back-office API client id (ENTITYAPI_CLIENT_ID)")
	fs.StringVar(&f.secret, "client-secret", "", "its secret (ENTITYAPI_CLIENT_SECRET)")
	switch sub {
	case "submit":
		fs.StringVar(&f.typ, "type", "", "resource type of the batch, such as accounts")
		fs.StringVar(&f.file, "file", "", "the JSON:API batch document; - reads standard input")
		fs.BoolVar(&f.sync, "sync", false, "one transaction, answered at once (X-Mode: sync; at most 100 primary items)")
		fs.IntVar(&f.maxErrors, "max-errors", 10, "errors printed at the end (all of them: entityapi batch errors ID)")
	case "errors":
		fs.IntVar(&f.pageSize, "page-size", 100, "errors read per request (1 to 1000)")
	}
	positional, err := flagargs.Parse(fs, args[1:])
	if errors.Is(err, flag.ErrHelp) {
		return writeHelp(env.stdout, fs, sub)
	}
	if err != nil {
		return err
	}
	f.url = or(f.url, or(env.getenv("ENTITYAPI_URL"), DefaultURL))
	f.clientID = or(f.clientID, env.getenv("ENTITYAPI_CLIENT_ID"))
	f.secret = or(f.secret, env.getenv("ENTITYAPI_CLIENT_SECRET"))
	c, err := newAPIClient(&f, env.hc)
	if err != nil {
		return err
	}
	if sub == "submit" {
		if len(positional) > 0 || f.typ == "" || f.file == "" || f.maxErrors < 0 {
			return fmt.Errorf("usage: entityapi batch submit --type TYPE --file FILE|- [--sync] [--max-errors N]")
		}
		return submitBatch(ctx, c, &f, env)
	}
	if len(positional) != 1 || (sub == "errors" && (f.pageSize < 1 || f.pageSize > 1000)) {
		return fmt.Errorf("usage: entityapi batch %s ID", sub)
	}
	if err := c.authenticate(ctx); err != nil {
		return err
	}
	if sub == "status" {
		op, err := c.operation(ctx, positional[0])
		if err != nil {
			return err
		}
		printOperation(env.stdout, op)
		return nil
	}
	_, err = printErrors(ctx, c, positional[0], f.pageSize, -1, env.stdout)
	return err
}

// newAPIClient checks the connection flags.
func newAPIClient(f *options, hc *http.Client) (*apiClient, error) {
	u, err := url.Parse(f.url)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("--url %q: want the back-office application's address, such as http://127.0.0.1:8080/admin", f.url)
	}
	if f.clientID == "" || f.secret == "" {
		return nil, errors.New("no credentials: give --client-id and --client-secret (or ENTITYAPI_CLIENT_ID and ENTITYAPI_CLIENT_SECRET)")
	}
	base := strings.TrimSuffix(f.url, "/")
	sdk, err := backoffice.NewClient(base, backoffice.WithHTTPClient(hc))
	if err != nil {
		return nil, err
	}
	return &apiClient{base: base, clientID: f.clientID, secret: f.secret, hc: hc, sdk: sdk}, nil
}

// printErrors prints the errors of operation id, up to limit (-1: all),
// page after page while the server links a next one, and returns how many it
// printed.
func printErrors(ctx context.Context, c *apiClient, id string, pageSize, limit int, w io.Writer) (int, error) {
	printed := 0
	for number := 1; ; number++ {
		page, more, err := c.errorsPage(ctx, id, pageSize, number)
		if err != nil {
			return printed, err
		}
		for _, e := range page {
			if limit >= 0 && printed >= limit {
				return printed, nil
			}
			printError(w, e)
			printed++
		}
		if !more || len(page) == 0 {
			return printed, nil
		}
	}
}

// writeHelp writes the help of `entityapi batch sub`.
func writeHelp(w io.Writer, fs *flag.FlagSet, sub string) error {
	fmt.Fprintf(w, "usage: %s\n  %s\n\nflags of batch %s:\n", subcommands[sub][0], subcommands[sub][1], sub)
	flagargs.WriteFlags(w, fs, nil)
	_, err := fmt.Fprintln(w, exitCodes)
	return err
}

func or(v, def string) string {
	if v != "" {
		return v
	}
	return def
}
