// Package flagargs lets the flags of a command follow its positional
// arguments (`entityapi org create Acme --data-dir ./data`,
// `entityapi batch status 7 --url ...`), which the flag package alone stops
// at, and speaks of flags as every usage text of entityapi writes them:
// with two dashes (`--client-id`), where the flag package writes one. Both
// the settings of the database commands (server/cli) and the batch client
// (server/cli/batchclient) read their command lines with it; it is a leaf
// of the standard library, so the batch client needs nothing of the
// commands that open a database.
package flagargs

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
)

// Parse parses args with fs, flags and positional arguments in any order,
// and returns the positional arguments in their order. It prints nothing:
// fs's output and usage are silenced, since a mistake is one line the
// caller prints and the caller writes its own help (WriteFlags). Its errors
// are fs.Parse's, with the flag named as --name (flag.ErrHelp for -h and
// --help).
func Parse(fs *flag.FlagSet, args []string) ([]string, error) {
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				return nil, err
			}
			return nil, doubleDash(err)
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// singleDash finds the flag the flag package's errors name with one dash:
// "flag provided but not defined: -x", "flag needs an argument: -x",
// `invalid value "v" for flag -x: ...`, `invalid boolean value "v" for -x: ...`
// (the value quoted by %q, so a quote inside it is escaped).
var singleDash = regexp.MustCompile(`^(flag provided but not defined: |flag needs an argument: |` +
	`invalid value "(?:[^"\\]|\\.)*" for flag |invalid boolean value "(?:[^"\\]|\\.)*" for )-`)

// doubleDash rewrites a flag package error so that it names the flag with
// two dashes, as the help does.
func doubleDash(err error) error {
	msg := err.Error()
	loc := singleDash.FindStringSubmatchIndex(msg)
	if loc == nil {
		return err
	}
	return errors.New(msg[:loc[3]] + "-" + msg[loc[3]:]) // loc[3]: where the prefix ends and the dash stands
}

// WriteFlags lists the flags of fs, but those skip names (nil: none), in
// the style of every help of entityapi: "--name", then its usage and its
// default when it has one worth saying (not "", false or 0).
func WriteFlags(w io.Writer, fs *flag.FlagSet, skip func(name string) bool) {
	fs.VisitAll(func(f *flag.Flag) {
		if skip != nil && skip(f.Name) {
			return
		}
		def := ""
		switch f.DefValue {
		case "", "false", "0":
		default:
			def = " (default: " + f.DefValue + ")"
		}
		fmt.Fprintf(w, "  --%s\n      %s%s\n", f.Name, f.Usage, def)
	})
}
