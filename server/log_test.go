package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/authstore"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// logCapture is a server whose JSON log (debug level, so that nothing is
// filtered) is kept for the test to read.
type logCapture struct {
	srv   *server.Server
	store *storage.Store
	mu    sync.Mutex
	buf   bytes.Buffer
}

func (l *logCapture) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logCapture) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// lines decodes the log records whose msg is msg.
func (l *logCapture) lines(t *testing.T, msg string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(l.String()), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("log line is not JSON: %q", line)
		}
		if rec["msg"] == msg {
			out = append(out, rec)
		}
	}
	return out
}

// newLogCapture builds a server on a test database of dialect whose log is captured.
func newLogCapture(t *testing.T, dialect string) *logCapture {
	t.Helper()
	l := &logCapture{store: storagetest.Open(t, dialect)}
	srv, err := server.New(server.Config{BackofficeBase: "/admin",
		Logger: slog.New(server.NewJSONLogHandler(l, &slog.HandlerOptions{Level: slog.LevelDebug}))}, l.store)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Close)
	createPrincipals(t, l.store)
	l.srv = srv
	return l
}

// serve sends one request through the handler (synchronously: its log line is
// written when this returns).
func (l *logCapture) serve(method, path, body string, headers map[string]string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, path, strings.NewReader(body))
	for k, v := range headers {
		r.Header.Set(k, v)
	}
	w := httptest.NewRecorder()
	l.srv.ServeHTTP(w, r)
	return w
}

// TestLogRequestLine wants one line per request with the route template, the
// status, the size, the duration, the request id of the X-Request-ID header
// (the client's when sane, else a new one), and the caller once authenticated.
func TestLogRequestLine(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			l := newLogCapture(t, dialect)
			tok := tokenFor(t, l.srv, "admin")
			admin, err := authstore.New(l.store).UserByLogin(context.Background(), "admin")
			if err != nil {
				t.Fatal(err)
			}
			bearer := "Bearer " + tok
			for _, tc := range []struct {
				name, method, path, requestID string
				headers                       map[string]string
				status                        int
				route, app                    string
				caller                        bool // client_id and user_id are logged
				keepsID                       bool // the client's X-Request-ID is kept
			}{
				{name: "a record by id", method: http.MethodGet, path: "/admin/api/accounts/123?fields[accounts]=name", requestID: "client-chosen.id:1",
					headers: map[string]string{"Accept": "application/vnd.api+json", "Authorization": bearer},
					status:  404, route: "/admin/api/accounts/:id", app: "backoffice", caller: true, keepsID: true},
				{name: "an insane request id is replaced", method: http.MethodGet, path: "/admin/api/countries/DE", requestID: "bad id with spaces",
					headers: map[string]string{"Accept": "application/vnd.api+json", "Authorization": bearer},
					status:  200, route: "/admin/api/countries/:id", app: "backoffice", caller: true},
				{name: "no token", method: http.MethodGet, path: "/admin/api/countries",
					headers: map[string]string{"Accept": "application/vnd.api+json"},
					status:  401, route: "/admin/api/countries", app: "backoffice"},
				{name: "a storefront guest", method: http.MethodGet, path: "/api/countries/DE", requestID: "sf-1",
					status: 200, route: "/api/countries/:id", app: "storefront", keepsID: true},
				{name: "an unknown path", method: http.MethodGet, path: "/nowhere/secret-looking-path", requestID: "x-1",
					headers: map[string]string{"Accept": "application/vnd.api+json"},
					status:  404, route: "unmatched", app: "none", keepsID: true},
			} {
				t.Run(tc.name, func(t *testing.T) {
					before := len(l.lines(t, "request"))
					headers := map[string]string{"X-Request-ID": tc.requestID}
					for k, v := range tc.headers {
						headers[k] = v
					}
					w := l.serve(tc.method, tc.path, "", headers)
					if w.Code != tc.status {
						t.Fatalf("status %d, want %d: %s", w.Code, tc.status, w.Body)
					}
					id := w.Header().Get("X-Request-ID")
					if (id == tc.requestID) != tc.keepsID || id == "" {
						t.Errorf("X-Request-ID %q for a request sending %q (kept: %v)", id, tc.requestID, tc.keepsID)
					}
					if tc.status >= 400 && strings.Contains(w.Header().Get("Content-Type"), "vnd.api+json") {
						if got := jsonMeta(w.Body.Bytes()); got != id {
							t.Errorf("meta.requestId %q, want the header's %q: %s", got, id, w.Body)
						}
					}
					lines := l.lines(t, "request")
					if len(lines) != before+1 {
						t.Fatalf("%d request lines, want 1 more than %d:\n%s", len(lines), before, l.String())
					}
					rec := lines[len(lines)-1]
					want := map[string]any{"method": tc.method, "route": tc.route, "app": tc.app, "status": float64(tc.status),
						"bytes": float64(w.Body.Len()), "request_id": id}
					if tc.caller {
						want["client_id"], want["user_id"] = "test-admin", float64(admin.ID)
					}
					for k, v := range want {
						if rec[k] != v {
							t.Errorf("%s = %v, want %v: %v", k, rec[k], v, rec)
						}
					}
					if d, ok := rec["duration_ms"].(float64); !ok || d < 0 {
						t.Errorf("duration_ms = %v", rec["duration_ms"])
					}
					if !tc.caller && (rec["client_id"] != nil || rec["user_id"] != nil) {
						t.Errorf("a caller logged for an unauthenticated request: %v", rec)
					}
					if strings.Contains(l.String(), "secret-looking-path") || strings.Contains(l.String(), "fields[") {
						t.Errorf("a raw path or query reached the log: %v", rec)
					}
				})
			}
		})
	}
}

// jsonMeta reads meta.requestId of a JSON:API error document.
func jsonMeta(raw []byte) string {
	var doc struct {
		Meta struct {
			RequestID string `json:"requestId"`
		} `json:"meta"`
	}
	_ = json.Unmarshal(raw, &doc)
	return doc.Meta.RequestID
}

// TestLogNoSecrets sends credentials, tokens and bodies and reads everything
// the server logged: client secrets (right and wrong), a password grant's
// password, the issued access tokens, a created user's password and a
// created record's values never appear, while each request has its line.
func TestLogNoSecrets(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			l := newLogCapture(t, dialect)
			tok := tokenFor(t, l.srv, "admin")
			jsonAPIAuth := map[string]string{"Content-Type": "application/vnd.api+json", "Authorization": "Bearer " + tok}
			w := l.serve(http.MethodPost, "/admin/api/users", `{"data":{"type":"users","attributes":{"username":"body-user-value",
				"email":"body-user@example.com","firstName":"Body","lastName":"Secret","password":"new-user-password-value"}}}`, jsonAPIAuth)
			if w.Code != http.StatusCreated {
				t.Fatalf("create a user: %d %s", w.Code, w.Body)
			}
			w = l.serve(http.MethodPost, "/admin/api/accounts", `{"data":{"type":"accounts","attributes":{"name":"secret-body-value"}}}`, jsonAPIAuth)
			if w.Code != http.StatusCreated {
				t.Fatalf("create an account: %d %s", w.Code, w.Body)
			}
			form := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
			w = l.serve(http.MethodPost, "/admin/oauth2-token",
				"grant_type=password&client_id=test-admin&client_secret=test-admin-secret&username=body-user-value&password=new-user-password-value", form)
			issued := jsonField(w.Body.Bytes(), "access_token")
			if w.Code != http.StatusOK || issued == "" {
				t.Fatalf("password grant: %d %s", w.Code, w.Body)
			}
			for _, body := range []string{
				`{"grant_type":"client_credentials","client_id":"test-admin","client_secret":"wrong-secret-value"}`,
				`{"grant_type":"password","client_id":"test-admin","client_secret":"test-admin-secret","username":"admin","password":"a-password-value"}`,
			} {
				l.serve(http.MethodPost, "/admin/oauth2-token", body, map[string]string{"Content-Type": "application/json"})
			}
			l.serve(http.MethodGet, "/admin/api/countries", "", map[string]string{"Authorization": "Bearer " + issued + "x"})
			if n := len(l.lines(t, "request")); n != 7 {
				t.Errorf("%d request lines, want 7 (one per request, the first token's included):\n%s", n, l.String())
			}
			for _, s := range []string{"test-admin-secret", "wrong-secret-value", "a-password-value", "new-user-password-value",
				tok, issued, "secret-body-value", "body-user-value", "body-user@example.com"} {
				if strings.Contains(l.String(), s) {
					t.Errorf("the logs contain %q", s)
				}
			}
		})
	}
}
