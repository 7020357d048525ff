package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
	"github.com/entityapi/entityapi/storage/storagetest"
)

func TestMain(m *testing.M) {
	code := storagetest.Run(m)
	if k, err := contractOnce(); err == nil {
		k.report()
	}
	os.Exit(code)
}

// api is a running server over real HTTP, for one database, and the caller
// whose token its requests carry.
type api struct {
	t      *testing.T
	base   string
	store  *storage.Store
	as     string            // the principal of testPrincipals whose token is sent
	tokens map[string]string // principal -> access token, fetched once
	srv    *server.Server
}

func newAPI(t *testing.T, store *storage.Store) *api { return newAPIWith(t, store, nil) }

// newAPIWith is newAPI with a configuration changed by adjust (when not nil).
func newAPIWith(t *testing.T, store *storage.Store, adjust func(*server.Config)) *api {
	t.Helper()
	a := startAPI(t, store, adjust)
	createPrincipals(t, store)
	return a
}

// startAPI serves store over real HTTP without creating the test principals:
// newAPIWith's server, and a second one on a database it already filled.
func startAPI(t *testing.T, store *storage.Store, adjust func(*server.Config)) *api {
	t.Helper()
	cfg := server.Config{BackofficeBase: "/admin", MaxBody: 64 << 10,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Jobs:   jobs.Config{Workers: 2, PollEvery: 100 * time.Millisecond, RescueAfter: 5 * time.Second}}
	if adjust != nil {
		adjust(&cfg)
	}
	if cfg.Auth.SigningKeyFile == "" && cfg.Auth.KeyEncryption == nil {
		addTestSigningKey(t, store)
	}
	srv, err := server.New(cfg, store)
	if err != nil {
		t.Fatalf("server.New: %v", err)
	}
	t.Cleanup(srv.Close)
	hs := httptest.NewServer(srv)
	t.Cleanup(hs.Close)
	return &api{t: t, base: hs.URL, store: store, as: "admin", tokens: map[string]string{}, srv: srv}
}

// caller returns the same server seen by another principal of testPrincipals.
func (a *api) caller(name string) *api {
	b := *a
	b.as = name
	return &b
}

// token fetches (once) an access token of a principal through the token endpoint.
func (a *api) token(name string) string {
	a.t.Helper()
	if tok, ok := a.tokens[name]; ok {
		return tok
	}
	p := principalNamed(a.t, name)
	body := `{"grant_type":"client_credentials","client_id":"` + p.client + `","client_secret":"` + p.client + `-secret"}`
	endpoint := "/admin/oauth2-token"
	if p.storefront() {
		endpoint = "/oauth2-token"
	}
	res, err := http.Post(a.base+endpoint, "application/json", strings.NewReader(body))
	if err != nil {
		a.t.Fatal(err)
	}
	defer res.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(res.Body).Decode(&tok); err != nil || res.StatusCode != 200 {
		a.t.Fatalf("token for %s: status %d, %v", name, res.StatusCode, err)
	}
	a.tokens[name] = tok.AccessToken
	return tok.AccessToken
}

// eachAPI runs fn against a server on every test database. The test runs in
// parallel with the package's other parallel tests, and its databases side by
// side: each has its own server on its own database, and most of a test's
// time is spent waiting (on HTTP, the database, the job queue). Call it once
// in a test. A test that measures the process (allocations, memory) must not
// use it: it runs alone, since parallel tests would add to what it counts.
func eachAPI(t *testing.T, fn func(t *testing.T, a *api)) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			fn(t, newAPI(t, storagetest.Open(t, dialect)))
		})
	}
}

// Common header sets.
var (
	jsonAPI = map[string]string{"Accept": "application/vnd.api+json", "Content-Type": "application/vnd.api+json"}
	plain   = map[string]string{"Accept": "application/json", "Content-Type": "application/json"}
)

// result is one response, decoded.
type result struct {
	status int
	header http.Header
	length int64 // the Content-Length, -1 when the answer came in chunked encoding
	body   []byte
	doc    map[string]any
	list   []any
}

// do sends a request, validates the response against the contract and decodes it.
func (a *api) do(method, path string, headers map[string]string, body string) *result {
	a.t.Helper()
	var reader io.Reader
	if body != "" {
		reader = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, a.base+path, reader)
	if err != nil {
		a.t.Fatal(err)
	}
	if _, given := headers["Authorization"]; !given {
		req.Header.Set("Authorization", "Bearer "+a.token(a.as))
	}
	for k, v := range headers {
		if (body == "" && k == "Content-Type") || v == "" {
			continue
		}
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		a.t.Fatal(err)
	}
	k, err := contractOnce()
	if err != nil {
		a.t.Fatalf("loading the contract: %v", err)
	}
	k.check(a.t, req, []byte(body), res, raw)
	r := &result{status: res.StatusCode, header: res.Header, length: res.ContentLength, body: raw}
	if len(bytes.TrimSpace(raw)) > 0 && method != http.MethodHead && strings.Contains(res.Header.Get("Content-Type"), "json") {
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			a.t.Fatalf("%s %s: body is not JSON: %v\n%s", method, path, err, raw)
		}
		switch x := v.(type) {
		case map[string]any:
			r.doc = x
		case []any:
			r.list = x
		}
	}
	return r
}

// get reads a value by a slash-separated path of keys and indexes.
func get(v any, path string) any {
	for _, part := range strings.Split(strings.Trim(path, "/"), "/") {
		if part == "" {
			continue
		}
		switch x := v.(type) {
		case map[string]any:
			v = x[part]
		case []any:
			i := 0
			for _, c := range part {
				i = i*10 + int(c-'0')
			}
			if i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// want fails unless the response has the status; it shows the body otherwise.
func (r *result) want(t *testing.T, status int) *result {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d\n%s", r.status, status, r.body)
	}
	return r
}

// value reads from the decoded body (object or list).
func (r *result) value(path string) any {
	if r.doc != nil {
		return get(r.doc, path)
	}
	return get(r.list, path)
}

// jsonField reads one string member of a JSON object.
func jsonField(raw []byte, name string) string {
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	s, _ := m[name].(string)
	return s
}

// raw sends a JSON:API request from any goroutine (no test helpers, no contract
// check) and returns the status: for concurrency tests. header holds more
// headers, as name, value pairs.
func (a *api) raw(method, path, body string, header ...string) int {
	req, err := http.NewRequest(method, a.base+path, strings.NewReader(body))
	if err != nil {
		return 0
	}
	req.Header.Set("Content-Type", "application/vnd.api+json")
	req.Header.Set("Authorization", "Bearer "+a.tokens[a.as])
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res.StatusCode
}
