package cli

import (
	"bytes"
	"errors"
	"flag"
	"net/netip"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the settings table of docs/settings.md")

// parseWith parses a command's arguments with exactly the variables given.
func parseWith(cmd string, args []string, env map[string]string) (*config, error) {
	fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
	lookup := func(name string) (string, bool) { v, ok := env[name]; return v, ok }
	return parse(fs, cmd, args, lookup, &bytes.Buffer{})
}

func TestSettingsDefaults(t *testing.T) {
	c, err := parseWith("serve", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		{"addr", c.addr, "127.0.0.1:8080"},
		{"database-url", c.databaseURL, "sqlite:" + filepath.Join("data", "entityapi.db")},
		{"database-pooler", c.storeOptions().Pooler, "none"},
		{"backoffice-base", c.backofficeBase, "/admin"},
		{"storefront-base", c.storefrontBase, ""},
		{"currencies", c.currencies, []string{"USD", "EUR", "GBP"}},
		{"max-body", c.maxBody, int64(10 << 20)},
		{"max-batch-body", c.maxBatchBody, int64(1 << 30)},
		{"max-batch-item", c.maxBatchItem, int64(1 << 20)},
		{"max-header-bytes", c.maxHeaderBytes, 1 << 20},
		{"max-atomic-operations", c.maxAtomicOperations, 1000},
		{"read-header-timeout", c.readHeaderTimeout, 10 * time.Second},
		{"request-timeout", c.requestTimeout, 30 * time.Second},
		{"idle-timeout", c.idleTimeout, 120 * time.Second},
		{"batch-upload-timeout", c.batchUpload, time.Hour},
		{"shutdown-timeout", c.shutdownTimeout, 15 * time.Second},
		{"sync-batch-timeout", c.syncBatchTimeout, 25 * time.Second},
		{"workers", c.jobs.Workers, runtime.NumCPU()},
		{"token-ttl", c.auth.TokenTTL, time.Hour},
		{"token-failures-per-address", c.auth.MaxFailures, 10},
		{"token-failures-total", c.auth.MaxGlobalFailures, 100},
		{"token-failure-window", c.auth.FailureWindow, time.Minute},
		{"demo", c.demo, false},
		{"external provider", c.auth.External == nil, true},
	} {
		if !reflect.DeepEqual(tc.got, tc.want) {
			t.Errorf("%s = %#v, want %#v", tc.name, tc.got, tc.want)
		}
	}
}

// TestSettingsSources: a flag wins over its variable, a variable over the default,
// and a list takes repeated flags or commas.
// TestAnswerCacheSetting: --answer-cache 0 keeps no answers (the server's
// negative size), a number is the bytes.
func TestAnswerCacheSetting(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  int64
	}{{"0", -1}, {"1048576", 1 << 20}} {
		c, err := parseWith("serve", []string{"--answer-cache", tc.value}, nil)
		if err != nil {
			t.Fatal(err)
		}
		if c.answerCache != tc.want {
			t.Errorf("--answer-cache %s: %d, want %d", tc.value, c.answerCache, tc.want)
		}
	}
}

func TestSettingsSources(t *testing.T) {
	env := map[string]string{"ENTITYAPI_ADDR": ":9000", "ENTITYAPI_MAX_BODY": "2048", "ENTITYAPI_DEMO": "true",
		"ENTITYAPI_CURRENCIES": "EUR, GBP", "ENTITYAPI_DEFAULT_CURRENCY": "EUR", "ENTITYAPI_SHUTDOWN_TIMEOUT": "3s",
		"ENTITYAPI_TOKEN_FAILURES_PER_ADDRESS": "0", "ENTITYAPI_TOKEN_FAILURE_WINDOW": "5m"}
	c, err := parseWith("serve", []string{"--addr", ":9100", "--guest-resources", "countries", "--guest-resources", "regions",
		"--webhook-allow-addresses", "169.254.169.254, 10.1.0.0/16", "--webhook-allow-addresses", "::ffff:100.100.100.200"}, env)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		{"flag over variable", c.addr, ":9100"},
		{"variable over default", c.maxBody, int64(2048)},
		{"boolean variable", c.demo, true},
		{"list variable", c.currencies, []string{"EUR", "GBP"}},
		{"repeated list flag", c.guestResources, []string{"countries", "regions"}},
		{"shutdown-timeout variable", c.shutdownTimeout, 3 * time.Second},
		{"no per-address failure limit", c.auth.MaxFailures, -1},
		{"failure window", c.auth.FailureWindow, 5 * time.Minute},
		{"webhook addresses, commas and repeated", c.webhooks.Guard.Allow, []netip.Prefix{netip.MustParsePrefix("169.254.169.254/32"),
			netip.MustParsePrefix("10.1.0.0/16"), netip.MustParsePrefix("100.100.100.200/32")}},
	} {
		if !reflect.DeepEqual(tc.got, tc.want) {
			t.Errorf("%s: %#v, want %#v", tc.name, tc.got, tc.want)
		}
	}
	c, err = parseWith("org create", []string{"Acme", "--data-dir", "/tmp/x"}, nil)
	if err != nil || !reflect.DeepEqual(c.args, []string{"Acme"}) || c.databaseURL != "sqlite:/tmp/x/entityapi.db" {
		t.Errorf("positional before flags: %+v, %v", c, err)
	}
}

// TestSettingsErrors: every mistake is one line naming the setting and its source.
func TestSettingsErrors(t *testing.T) {
	dir := t.TempDir()
	notKey := filepath.Join(dir, "key.pem")
	if err := os.WriteFile(notKey, []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		args []string
		env  map[string]string
		want string
	}{
		{"bytes", []string{"--max-body", "10MB"}, nil, `--max-body "10MB": want a positive number of bytes`},
		{"cache bytes", []string{"--answer-cache", "32MiB"}, nil, `--answer-cache "32MiB": want a number of bytes (0: none)`},
		{"variable named", nil, map[string]string{"ENTITYAPI_MAX_BATCH_BODY": "-1"}, `ENTITYAPI_MAX_BATCH_BODY "-1": want a positive number of bytes`},
		{"duration", []string{"--request-timeout", "30"}, nil, `--request-timeout "30": want a positive duration`},
		{"seconds, not a duration", []string{"--token-ttl", "1h"}, nil, `--token-ttl "1h": want a positive number of seconds`},
		{"seconds, zero", nil, map[string]string{"ENTITYAPI_CORS_MAX_AGE": "0"}, `ENTITYAPI_CORS_MAX_AGE "0": want a positive number of seconds`},
		{"address", []string{"--addr", "localhost"}, nil, `--addr "localhost": want HOST:PORT`},
		{"port", []string{"--addr", ":99999"}, nil, `the port must be a number from 0 to 65535`},
		{"database scheme", []string{"--database-url", "mysql://root:pw@db/x"}, nil, `--database-url "mysql://root:xxxxx@db/x": want sqlite:PATH or postgres://`},
		{"database syntax", []string{"--database-url", "postgres://u:pw@h:99999/db"}, nil, `--database-url postgres://u:xxxxx@h:99999/db: `},
		{"replica of SQLite", []string{"--read-database-url", "postgres://u@h:5432/db"}, nil, `--read-database-url postgres://u@h:5432/db: read replicas need PostgreSQL (for the primary too)`},
		{"pooler unknown", []string{"--database-pooler", "session"}, nil, `--database-pooler "session": pooler "session": want none or transaction`},
		{"pooler without PostgreSQL", nil, map[string]string{"ENTITYAPI_DATABASE_POOLER": "transaction"}, `--database-pooler: pooler "transaction" needs a postgres:// database URL`},
		{"key file missing", []string{"--signing-key-file", filepath.Join(dir, "none.pem")}, nil, `--signing-key-file: open ` + filepath.Join(dir, "none.pem") + `: no such file or directory`},
		{"key file not a key", []string{"--signing-key-file", notKey}, nil, `--signing-key-file: ` + notKey + `: no PEM block`},
		{"public url", []string{"--public-url", "api.example.com"}, nil, `--public-url "api.example.com": want an absolute http:// or https:// URL`},
		{"base", []string{"--backoffice-base", "admin"}, nil, `--backoffice-base "admin": want a path such as /admin`},
		{"same bases", []string{"--backoffice-base", "/x", "--storefront-base", "/x/"}, nil, `both "/x"`},
		{"default currency", []string{"--default-currency", "JPY"}, nil, `--default-currency "JPY" is not one of --currencies USD,EUR,GBP`},
		{"no currency", nil, map[string]string{"ENTITYAPI_CURRENCIES": " , "}, `ENTITYAPI_CURRENCIES " , ": name at least one`},
		{"workers", []string{"--workers", "0"}, nil, `--workers "0": want a positive number`},
		{"atomic operations", nil, map[string]string{"ENTITYAPI_MAX_ATOMIC_OPERATIONS": "0"}, `ENTITYAPI_MAX_ATOMIC_OPERATIONS "0": want a number from 1 to 10000`},
		{"boolean", nil, map[string]string{"ENTITYAPI_DEMO": "yes please"}, `ENTITYAPI_DEMO "yes please": want true or false`},
		{"failure limit", []string{"--token-failures-total", "-5"}, nil, `--token-failures-total "-5": want a number of failures (0: no limit)`},
		{"webhook address", nil, map[string]string{"ENTITYAPI_WEBHOOK_ALLOW_ADDRESSES": "169.254.169.254,metadata.google.internal"},
			`ENTITYAPI_WEBHOOK_ALLOW_ADDRESSES "169.254.169.254,metadata.google.internal": "metadata.google.internal" is not an IP address or a CIDR range`},
		{"unknown flag", []string{"--max-bdy", "1"}, nil, `flag provided but not defined: --max-bdy`},
		{"a search configuration SQLite cannot honour", []string{"--search-configuration", "english"}, nil,
			`--search-configuration: search configuration "english" needs a postgres:// database URL`},
		{"a search configuration that is no name", nil, map[string]string{"ENTITYAPI_SEARCH_CONFIGURATION": "english'--"},
			`"english'--" is not a text-search configuration name`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parseWith("serve", tc.args, tc.env)
			if err == nil {
				t.Fatalf("no error, want %q", tc.want)
			}
			if msg := err.Error(); !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") || strings.Contains(msg, "pw@") {
				t.Errorf("error %q, want one line with %q and no password", msg, tc.want)
			}
		})
	}
}

// TestSettingsHelp: --help lists every setting of the command with its variable
// and default, nothing of serve's for the others, the key-encryption key's
// for the commands that read or write the signing keys alone, and what
// Migrate builds the database by for serve and migrate alone.
func TestSettingsHelp(t *testing.T) {
	for _, cmd := range []string{"serve", "migrate", "keys rotate"} {
		var out bytes.Buffer
		fs := flag.NewFlagSet(cmd, flag.ContinueOnError)
		if _, err := parse(fs, cmd, []string{"--help"}, func(string) (string, bool) { return "", false }, &out); !errors.Is(err, flag.ErrHelp) {
			t.Fatalf("%s --help: %v", cmd, err)
		}
		for _, s := range settings {
			line := "--" + s.name + "  (" + s.env() + ")"
			want := cmd == "serve" || (!s.serve && (!s.keys || cmd == "keys rotate") && (!s.builds || cmd == "migrate"))
			if got := strings.Contains(out.String(), line); got != want {
				t.Errorf("%s --help lists %s: %v\n%s", cmd, line, got, out.String())
			}
		}
	}
}

// TestSettingsTableDefaults: every default of the table reads without error.
func TestSettingsTableDefaults(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range settings {
		if seen[s.name] {
			t.Errorf("setting %s declared twice", s.name)
		}
		seen[s.name] = true
		if err := s.set(&config{}, s.def); err != nil {
			t.Errorf("default of %s %q: %v", s.name, s.def, err)
		}
	}
}

// settingsPage is the reference page of the settings, from this package's directory.
const settingsPage = "../../docs/settings.md"

// TestSettingsPage: the table of docs/settings.md is the settings table. The table
// sits between a line opening "<!-- settings:" (which says how to refresh it)
// and "<!-- /settings -->".
func TestSettingsPage(t *testing.T) {
	raw, err := os.ReadFile(settingsPage)
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	const open, end = "<!-- settings:", "<!-- /settings -->"
	i, j := strings.Index(readme, open), strings.Index(readme, end)
	if i >= 0 {
		if nl := strings.Index(readme[i:], "-->\n"); nl >= 0 {
			i += nl + len("-->\n")
		}
	}
	if i < 0 || j < i {
		t.Fatalf("docs/settings.md has no settings block (%q ... %q)", open, end)
	}
	want := settingsTable()
	if got := readme[i:j]; got != want {
		if !*update {
			t.Fatalf("docs/settings.md's settings table is stale: run go test ./server/cli -run TestSettingsPage -update\ngot:\n%s\nwant:\n%s", got, want)
		}
		if err := os.WriteFile(settingsPage, []byte(readme[:i]+want+readme[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestHTTPServerLimits: the settings reach the HTTP server. Writes may run
// answerGrace past --request-timeout, so that a request stopped at its
// deadline still gets its error document.
func TestHTTPServerLimits(t *testing.T) {
	c, err := parseWith("serve", []string{"--read-header-timeout", "2s", "--request-timeout", "7s", "--idle-timeout", "9s", "--max-header-bytes", "4096"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := newHTTPServer(c, nil)
	if srv.ReadHeaderTimeout != 2*time.Second || srv.ReadTimeout != 7*time.Second || srv.WriteTimeout != 7*time.Second+answerGrace ||
		srv.IdleTimeout != 9*time.Second || srv.MaxHeaderBytes != 4096 || srv.Addr != "127.0.0.1:8080" {
		t.Errorf("server %+v", srv)
	}
}
