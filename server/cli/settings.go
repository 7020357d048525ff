package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/entityapi/entityapi/server/cli/flagargs"
)

// setting is one line of the configuration: a flag, its ENTITYAPI_ variable and
// its default, read by one parser. The table of settings is the only place a
// setting is declared, so `entityapi serve --help`, the validation and the
// table of docs/settings.md (TestSettingsPage, config_test.go) cannot drift apart.
type setting struct {
	name  string // the flag without dashes; the variable is ENTITYAPI_ + NAME
	def   string // the default, read by set like any other value
	show  string // the default as help shows it, when def cannot say it ("" for def)
	usage string
	// serve: only `entityapi serve` has it. keys: only the commands that
	// read or write the signing keys have it (the key-encryption key; the
	// command table's sealsKeys). builds: only serve and migrate have it,
	// which Migrate builds the database by (the search configuration: an
	// administration command leaves the database as it finds it). The
	// others are every command's that opens the database (the database and
	// the log).
	serve, keys, builds bool
	// boolean: given alone (--demo) it means true. list: repeatable, and the
	// variable separates the values with commas.
	boolean, list bool
	set           func(c *config, value string) error
}

// env is the variable that sets it.
func (s *setting) env() string {
	return "ENTITYAPI_" + strings.ToUpper(strings.ReplaceAll(s.name, "-", "_"))
}

// shownDefault is the default as help and docs/settings.md show it.
func (s *setting) shownDefault() string {
	switch {
	case s.show != "":
		return s.show
	case s.def == "":
		return "none"
	}
	return s.def
}

// rawValue collects what the command line says of one setting; the value is
// read (and checked) once all the flags are in, so an error names its source.
type rawValue struct {
	s     *setting
	value string
	seen  bool
}

func (r *rawValue) String() string { return r.value }

func (r *rawValue) Set(v string) error {
	if r.s.list && r.seen && v != "" {
		if r.value != "" {
			v = r.value + "," + v
		}
	}
	r.value, r.seen = v, true
	return nil
}

func (r *rawValue) IsBoolFlag() bool { return r.s.boolean }

// settingsFor are the settings of the command named cmd.
func settingsFor(cmd string) []*setting {
	c := commandNamed(cmd)
	var out []*setting
	for _, s := range settings {
		if (s.serve && cmd != "serve") || (s.keys && (c == nil || !c.sealsKeys)) || (s.builds && cmd != "serve" && cmd != "migrate") {
			continue
		}
		out = append(out, s)
	}
	return out
}

// parse reads the settings of cmd from args (flags, which may follow
// positional arguments) and the environment (lookup): a flag wins over its
// variable, a variable over the default. fs may carry the command's own flags.
// -h and --help return flag.ErrHelp after writing the help to help.
func parse(fs *flag.FlagSet, cmd string, args []string, lookup func(string) (string, bool), help io.Writer) (*config, error) {
	own := settingsFor(cmd)
	raw := make([]*rawValue, len(own))
	for i, s := range own {
		raw[i] = &rawValue{s: s}
		fs.Var(raw[i], s.name, s.usage)
	}
	// The flag package's own usage would print every flag on any mistake: one
	// line saying what is wrong is clearer (flagargs.Parse prints nothing),
	// and --help prints the table.
	positional, err := flagargs.Parse(fs, args)
	if errors.Is(err, flag.ErrHelp) {
		writeHelp(help, fs, cmd, own)
		return nil, err
	}
	if err != nil {
		return nil, err
	}
	c := &config{args: positional}
	for _, r := range raw {
		value, source := r.s.def, "default"
		if r.seen {
			value, source = r.value, "--"+r.s.name
		} else if v, ok := lookup(r.s.env()); ok {
			value, source = v, r.s.env()
		}
		if err := r.s.set(c, value); err != nil {
			if source == "default" {
				return nil, fmt.Errorf("default of --%s %q: %w", r.s.name, value, err) // a defect of this table
			}
			return nil, fmt.Errorf("%s %q: %w", source, value, err)
		}
	}
	if err := c.finish(cmd); err != nil {
		return nil, err
	}
	return c, nil
}

// writeHelp writes the help of cmd: its usage line, the flags of its own,
// then its settings.
func writeHelp(w io.Writer, fs *flag.FlagSet, cmd string, own []*setting) {
	line := "usage: entityapi " + cmd + " [flags]"
	if c := commandNamed(cmd); c != nil {
		line = c.usageLine() + "\n  " + c.summary
	}
	fmt.Fprintln(w, line)
	names := map[string]bool{}
	for _, s := range own {
		names[s.name] = true
	}
	var flags strings.Builder
	flagargs.WriteFlags(&flags, fs, func(name string) bool { return names[name] })
	if flags.Len() > 0 {
		fmt.Fprintf(w, "\nflags of %s:\n%s", cmd, flags.String())
	}
	fmt.Fprintln(w, "\nsettings: each is a flag or an environment variable; a flag wins over its variable,")
	fmt.Fprintln(w, "a variable over the default. A list setting repeats its flag or separates values with commas.")
	for _, s := range own {
		def := strings.ReplaceAll(s.shownDefault(), "`", "")
		fmt.Fprintf(w, "  --%s  (%s)\n      %s (default: %s)\n", s.name, s.env(), s.usage, def)
	}
}

// settingsTable is the Markdown table of every setting, as docs/settings.md shows it.
func settingsTable() string {
	var b strings.Builder
	b.WriteString("| flag | environment | default | what it sets |\n|---|---|---|---|\n")
	for _, s := range settings {
		def := "`" + s.shownDefault() + "`"
		if s.show != "" || s.def == "" {
			def = s.shownDefault()
		}
		fmt.Fprintf(&b, "| `--%s` | `%s` | %s | %s |\n", s.name, s.env(), def, s.usage)
	}
	return b.String()
}

// osLookup reads the process environment.
var osLookup = os.LookupEnv
