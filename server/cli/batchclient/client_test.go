package batchclient

// `entityapi batch` against a real server (server.New on an httptest.Server)
// on every test database: the client is run through its entry function,
// run, with the writers, environment and terminal decision a test
// gives it, and judged by its exit code and what it printed.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage/authstore"
	"github.com/entityapi/entityapi/storage/jobs"
	"github.com/entityapi/entityapi/storage/secret"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// testMaxBatchBody is the server's batch body limit in these tests, small
// enough for a 413 to be cheap.
const testMaxBatchBody = 256 << 10

// batchBundle is a running server and an API client's credentials.
type batchBundle struct {
	url, clientID, secret string // url: the back-office application
	dir                   string // for the batch files
	// lastLength is the Content-Length of the last PATCH the server got
	// (-1: chunked), to check that a file goes out with its size, as a stream.
	lastLength atomic.Int64
	limited    atomic.Int64 // 429 answers sent
}

// setupBatch starts a server on a fresh database of dialect and makes a user
// and its back-office client the way `entityapi user create` and
// `entityapi client create --json` do.
// adjust, when given, changes the server's configuration.
func setupBatch(t *testing.T, dialect string, adjust ...func(*server.Config)) *batchBundle {
	t.Helper()
	store := storagetest.Open(t, dialect)
	cfg := server.Config{BackofficeBase: "/admin", MaxBody: 64 << 10, MaxBatchBody: testMaxBatchBody,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Jobs:   jobs.Config{Workers: 2, PollEvery: 50 * time.Millisecond, RescueAfter: 5 * time.Second}}
	for _, f := range adjust {
		f(&cfg)
	}
	srv, err := server.New(cfg, store)
	if err != nil {
		t.Fatalf("server.New: %v", err)
	}
	t.Cleanup(srv.Close)
	b := &batchBundle{dir: t.TempDir()}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPatch {
			b.lastLength.Store(r.ContentLength)
		}
		srv.ServeHTTP(statusSpy{w, &b.limited}, r)
	}))
	t.Cleanup(hs.Close)
	b.clientID, b.secret = newAPIClientRecord(t, authstore.New(store))
	b.url = hs.URL + "/admin"
	return b
}

// newAPIClientRecord makes a manager of organization Main and its
// back-office API client, as `entityapi user create` and
// `entityapi client create --app backoffice` do, and returns the client's id
// and secret.
func newAPIClientRecord(t *testing.T, store *authstore.Store) (id, plain string) {
	t.Helper()
	ctx := context.Background()
	org, err := store.OrganizationByName(ctx, "Main")
	if err != nil {
		t.Fatalf("organization Main: %v", err)
	}
	u := &authstore.User{OrganizationID: org.ID, Username: "importer", Email: "importer@test.example", FirstName: "Imp",
		LastName: "Orter", Enabled: true}
	if err := store.CreateUser(ctx, u, []string{"ROLE_MANAGER"}); err != nil {
		t.Fatalf("user create: %v", err)
	}
	plain = secret.NewSecret()
	hash, err := secret.Hash(plain)
	if err != nil {
		t.Fatal(err)
	}
	c := &authstore.Client{ID: secret.NewClientID(), App: "backoffice", Name: "backoffice client", Enabled: true,
		UserID: &u.ID, OrganizationID: org.ID, SecretHash: hash}
	if err := store.CreateClient(ctx, c); err != nil {
		t.Fatalf("client create: %v", err)
	}
	return c.ID, plain
}

// statusSpy counts the 429 answers it writes.
type statusSpy struct {
	http.ResponseWriter
	limited *atomic.Int64
}

func (s statusSpy) WriteHeader(status int) {
	if status == http.StatusTooManyRequests {
		s.limited.Add(1)
	}
	s.ResponseWriter.WriteHeader(status)
}

// Unwrap lets http.ResponseController reach the connection (batch deadlines).
func (s statusSpy) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// outcome is what one run of the client did.
type outcome struct {
	code           int
	stdout, stderr string
}

// run runs `entityapi batch args...` with tty as the terminal decision and
// env as the environment ($URL, $ID and $SECRET stand for the bundle's).
func (b *batchBundle) run(t *testing.T, tty bool, env map[string]string, stdin string, args ...string) outcome {
	t.Helper()
	expand := strings.NewReplacer("$URL", b.url, "$ID", b.clientID, "$SECRET", b.secret, "$DIR", b.dir)
	for i, a := range args {
		args[i] = expand.Replace(a)
	}
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), args, runEnv{stdout: &stdout, stderr: &stderr,
		stdin: strings.NewReader(stdin), tty: tty, hc: &http.Client{},
		getenv:    func(k string) string { return expand.Replace(env[k]) },
		poll:      20 * time.Millisecond,
		lineEvery: 0})
	if err != nil {
		fmt.Fprintf(&stderr, "entityapi: %v\n", err) // as cli.Main prints it
	}
	return outcome{code: ExitCode(err), stdout: stdout.String(), stderr: stderr.String()}
}

// file writes a batch file into the bundle's directory.
func (b *batchBundle) file(t *testing.T, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(b.dir, name), []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}

// accounts is a batch body of n accounts named prefix-i; the names at blank
// are empty, which the server refuses item by item.
func accounts(n int, prefix string, blank ...int) string {
	var b strings.Builder
	b.WriteString(`{"data":[`)
	for i := range n {
		name := fmt.Sprintf("%s-%d", prefix, i)
		for _, k := range blank {
			if k == i {
				name = ""
			}
		}
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"type":"accounts","id":"a%d","attributes":{"name":%q}}`, i, name)
	}
	b.WriteString("]}")
	return b.String()
}

// creds are the connection flags of the bundle.
var creds = []string{"--url", "$URL", "--client-id", "$ID", "--client-secret", "$SECRET"}

func TestBatchClientSubmit(t *testing.T) {
	files := map[string]string{
		"ok.json": accounts(150, "ok"), "oneblank.json": accounts(3, "blank", 1), "sync.json": accounts(2, "sync"),
		"syncbad.json": accounts(3, "syncbad", 1), "empty.json": `{"data":[]}`, "env.json": accounts(2, "env"),
		"huge.json": accounts(6000, strings.Repeat("x", 40)),
	}
	submit := func(file string, more ...string) []string {
		return append([]string{"submit", "--type", "accounts", "--file", "$DIR/" + file}, more...)
	}
	tests := []struct {
		name      string
		args      []string // the connection flags are added after the subcommand unless noCreds
		env       map[string]string
		noCreds   bool
		stdin     string
		length    int64 // the batch's Content-Length (-1: chunked); 0: not checked
		code      int
		stdout    []string // each must appear
		stderr    []string
		notStdout []string
	}{
		{name: "async success", args: submit("ok.json"), length: int64(len(files["ok.json"])), code: ExitOK,
			stdout:    []string{"success after", "150 read, 150 written (150 created, 0 updated), item errors: 0"},
			notStdout: []string{"errors (the first"}},
		{name: "async item error", args: submit("oneblank.json"), code: ExitItemErrors,
			stdout: []string{"3 read, 2 written", "item errors: 1", "/data/1/attributes/name  not blank constraint: This value should not be blank."},
			stderr: []string{"item errors: 1 (the other items are written)"}},
		{name: "sync success", args: submit("sync.json", "--sync"), code: ExitOK,
			stdout: []string{`"dataId": "a0"`, `"dataId": "a1"`, `"name": "sync-1"`}, stderr: []string{"synchronous batch written"}},
		{name: "sync failure", args: submit("syncbad.json", "--sync"), code: ExitRefused,
			stderr: []string{"synchronous batch refused, nothing written: 400 Bad Request", "/data/1/attributes/name: not blank constraint"}},
		{name: "structural problem", args: submit("empty.json"), code: ExitRefused,
			stderr: []string{"batch refused: 400 Bad Request", "/data: request data constraint"}},
		{name: "body too large", args: submit("huge.json"), code: ExitRefused, stderr: []string{"413"}},
		{name: "stdin", args: []string{"submit", "--type", "accounts", "--file", "-"}, stdin: accounts(2, "stdin"),
			length: -1, code: ExitOK, stdout: []string{"2 read, 2 written"}},
		{name: "bad credentials", args: append(submit("ok.json"), "--client-secret", "wrong"), code: ExitRefused,
			stderr: []string{"token: 401 Unauthorized", "invalid_client"}},
		{name: "credentials from the environment", args: submit("env.json"), noCreds: true, code: ExitOK,
			env:    map[string]string{"ENTITYAPI_URL": "$URL", "ENTITYAPI_CLIENT_ID": "$ID", "ENTITYAPI_CLIENT_SECRET": "$SECRET"},
			stdout: []string{"2 read, 2 written"}},
		{name: "flags win over the environment", args: submit("env.json"), code: ExitOK,
			env:    map[string]string{"ENTITYAPI_URL": "http://127.0.0.1:1/admin", "ENTITYAPI_CLIENT_SECRET": "wrong"},
			stdout: []string{"2 read, 2 written"}},
		{name: "no credentials", args: submit("ok.json"), noCreds: true, code: ExitRefused, stderr: []string{"no credentials"}},
		{name: "missing file", args: submit("nothing.json"), code: ExitRefused, stderr: []string{"no such file"}},
		{name: "unknown type", args: []string{"submit", "--type", "nothings", "--file", "$DIR/sync.json"}, code: ExitRefused,
			stderr: []string{"batch refused: 404 Not Found", "No resource exists at this address."}},
		{name: "type without batch", args: []string{"submit", "--type", "countries", "--file", "$DIR/sync.json"}, code: ExitRefused,
			stderr: []string{"batch refused: 405 Method Not Allowed"}},
		{name: "no type", args: []string{"submit", "--file", "$DIR/ok.json"}, code: ExitRefused, stderr: []string{"usage: entityapi batch submit"}},
		{name: "unreachable server", args: submit("ok.json", "--url", "http://127.0.0.1:1/admin"), code: ExitRefused,
			stderr: []string{"token: Post", "connection refused"}},
	}
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			b := setupBatch(t, dialect)
			for name, body := range files {
				b.file(t, name, body)
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					args := append([]string(nil), tt.args...)
					if !tt.noCreds {
						args = append(append(args[:1:1], creds...), args[1:]...)
					}
					got := b.run(t, false, tt.env, tt.stdin, args...)
					if got.code != tt.code {
						t.Errorf("exit code %d, want %d", got.code, tt.code)
					}
					if l := b.lastLength.Load(); tt.length != 0 && l != tt.length {
						t.Errorf("the batch went with Content-Length %d, want %d", l, tt.length)
					}
					expectOutput(t, "stdout", got.stdout, tt.stdout, tt.notStdout)
					expectOutput(t, "stderr", got.stderr, tt.stderr, nil)
					if t.Failed() {
						t.Logf("stdout:\n%s\nstderr:\n%s", got.stdout, got.stderr)
					}
				})
			}
		})
	}
}

// expectOutput checks that out holds every string of want and none of not.
func expectOutput(t *testing.T, what, out string, want, not []string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(out, w) {
			t.Errorf("%s lacks %q", what, w)
		}
	}
	for _, n := range not {
		if strings.Contains(out, n) {
			t.Errorf("%s holds %q", what, n)
		}
	}
}

// TestBatchClientRateLimited: against a server with --rate-limit, the client's
// polls get 429 and wait out Retry-After instead of failing the command.
func TestBatchClientRateLimited(t *testing.T) {
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			// One request every 2 s and no burst: the submit takes the token, so
			// the client's next request is refused. A small batch may already
			// have ended when the 202 is written, and then the client does not
			// poll: the blank item makes it read the errors list either way.
			b := setupBatch(t, dialect, func(c *server.Config) { c.RateLimit = server.RateLimitConfig{PerSecond: 0.5, Burst: 1} })
			b.file(t, "three.json", accounts(3, "Limited", 1))
			out := b.run(t, false, nil, "", append([]string{"submit", "--type", "accounts", "--file", "$DIR/three.json"}, creds...)...)
			if out.code != ExitItemErrors || !strings.Contains(out.stdout, "not blank constraint") {
				t.Fatalf("exit %d, want %d with the item error listed\nstdout:\n%s\nstderr:\n%s", out.code, ExitItemErrors, out.stdout, out.stderr)
			}
			if n := b.limited.Load(); n == 0 {
				t.Errorf("the server refused no request: the test did not reach the rate limit")
			}
		})
	}
}
