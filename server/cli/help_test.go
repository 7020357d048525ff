package cli

import (
	"bytes"
	"context"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// namedFlag finds the flags a text names with two dashes.
var namedFlag = regexp.MustCompile(`(?:^|[^\w-])--([a-z][a-z0-9-]*)`)

// TestCommandHelp runs every command and group of commands with --help and
// with -h through Main, as the binary does: each exits 0, prints its help on
// standard output and nothing on standard error, names the flags it has and
// no other command's, and shows no flag of entityapi with a single dash.
func TestCommandHelp(t *testing.T) {
	database := []string{"data-dir", "database-url", "database-pooler", "log-format", "log-level"}
	keys := []string{"key-encryption-key-file", "key-encryption-key", "key-encryption-key-previous-file", "key-encryption-key-previous"}
	batch := []string{"url", "client-id", "client-secret"}
	var every []string // every setting: serve's flags
	for _, s := range settings {
		every = append(every, s.name)
	}
	join := func(lists ...[]string) []string { return slices.Concat(lists...) }
	cases := []struct {
		command string
		flags   []string // the flags its help names (--help aside: it is every command's)
	}{
		{"help", []string{"version"}},
		{"serve", every},
		{"migrate", join(database, []string{"search-configuration"})},
		{"org", nil},
		{"org create", database},
		{"user", nil},
		{"user create", join(database, []string{"org", "username", "email", "first-name", "last-name", "role", "password"})},
		{"client", nil},
		{"client create", join(database, []string{"app", "user", "org", "name", "json"})},
		{"client disable", database},
		{"keys", nil},
		{"keys rotate", join(database, keys)},
		{"keys rewrap", join(database, keys)},
		{"batch", join(batch, []string{"type", "file", "sync", "max-errors", "page-size"})},
		{"batch submit", join(batch, []string{"type", "file", "sync", "max-errors"})},
		{"batch status", batch},
		{"batch errors", join(batch, []string{"page-size"})},
		{"version", []string{"version"}},
	}
	// Every flag of entityapi, which no help may show with one dash.
	ours := map[string]bool{"h": true, "help": true, "version": true}
	for _, c := range cases {
		for _, f := range c.flags {
			ours[f] = true
		}
	}
	singleDash := regexp.MustCompile(`(?:^|[^\w-])-(` + strings.Join(slices.Sorted(maps.Keys(ours)), "|") + `)\b`)
	for _, tt := range cases {
		for _, ask := range []string{"--help", "-h"} {
			args := append(strings.Fields(tt.command), ask)
			if tt.command == "help" {
				args = []string{ask}
			}
			t.Run(strings.Join(args, " "), func(t *testing.T) {
				t.Parallel()
				var stdout, stderr bytes.Buffer
				if code := Main(context.Background(), args, &stdout, &stderr); code != 0 {
					t.Fatalf("exit code %d\nstdout:\n%s\nstderr:\n%s", code, stdout.String(), stderr.String())
				}
				help := stdout.String()
				if stderr.Len() != 0 || !strings.HasPrefix(help, "usage: entityapi") {
					t.Fatalf("want the help on standard output alone; stdout:\n%s\nstderr:\n%s", help, stderr.String())
				}
				named := map[string]bool{}
				for _, m := range namedFlag.FindAllStringSubmatch(help, -1) {
					if m[1] != "help" {
						named[m[1]] = true
					}
				}
				want := map[string]bool{}
				for _, f := range tt.flags {
					want[f] = true
				}
				for f := range named {
					if !want[f] {
						t.Errorf("names --%s, not a flag of %s", f, tt.command)
					}
				}
				for f := range want {
					if !named[f] {
						t.Errorf("does not name --%s", f)
					}
				}
				if m := singleDash.FindString(help); m != "" {
					t.Errorf("shows a flag with one dash: %q", m)
				}
				if t.Failed() {
					t.Logf("the help:\n%s", help)
				}
			})
		}
	}
}

// TestHelpCommand: `entityapi help COMMAND` is `entityapi COMMAND --help`.
func TestHelpCommand(t *testing.T) {
	for _, command := range []string{"serve", "user create", "keys", "batch submit", "version"} {
		t.Run(command, func(t *testing.T) {
			t.Parallel()
			var viaHelp, viaFlag bytes.Buffer
			code := Main(context.Background(), append([]string{"help"}, strings.Fields(command)...), &viaHelp, &bytes.Buffer{})
			Main(context.Background(), append(strings.Fields(command), "--help"), &viaFlag, &bytes.Buffer{})
			if code != 0 || viaHelp.String() != viaFlag.String() || viaHelp.Len() == 0 {
				t.Errorf("help %s: exit code %d\n%s\nwant what --help prints:\n%s", command, code, viaHelp.String(), viaFlag.String())
			}
		})
	}
}

// TestCommandMistakes: a mistake on a command line is one error naming what
// is wrong, flags with two dashes, exit code 1; a group alone or with an
// unknown word lists the group's commands.
func TestCommandMistakes(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want []string
	}{
		{[]string{"serve", "--bogus"}, []string{"flag provided but not defined: --bogus"}},
		{[]string{"user", "create", "-bogus"}, []string{"flag provided but not defined: --bogus"}},
		{[]string{"batch", "submit", "--max-errors", "many"}, []string{`invalid value "many" for flag --max-errors`}},
		{[]string{"keys"}, []string{`"keys" needs a command`, "keys rotate", "keys rewrap"}},
		{[]string{"keys", "forget"}, []string{`unknown command "keys forget"`, "keys rotate"}},
		{[]string{"batch", "remove"}, []string{`unknown command "batch remove"`, "usage: entityapi batch COMMAND"}},
		{[]string{"version", "--short"}, []string{"usage: entityapi version"}},
		{[]string{"deploy"}, []string{`unknown command "deploy"`, "usage: entityapi COMMAND"}},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			t.Parallel()
			var stdout, stderr bytes.Buffer
			code := Main(context.Background(), tt.args, &stdout, &stderr)
			if code != 1 || stdout.Len() != 0 {
				t.Errorf("exit code %d, stdout %q; want 1 and nothing", code, stdout.String())
			}
			for _, want := range tt.want {
				if !strings.Contains(stderr.String(), want) {
					t.Errorf("standard error lacks %q:\n%s", want, stderr.String())
				}
			}
		})
	}
}
