package server_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// holdQuery holds the first query on a table (a held query: a lock, a slow
// plan) until its context ends, then lets it run, and fail, on that context.
type holdQuery struct {
	table   string
	once    sync.Once
	entered chan struct{}
}

var _ storage.StatementHook = (*holdQuery)(nil)

func (h *holdQuery) BeforeStatement(ctx context.Context, query string) context.Context {
	if !strings.Contains(query, h.table) {
		return ctx
	}
	held := false
	h.once.Do(func() { held = true; close(h.entered) })
	if held {
		select {
		case <-ctx.Done():
		case <-time.After(10 * time.Second):
		}
	}
	return ctx
}

func (h *holdQuery) AfterStatement(context.Context, string, error) {}

// TestRequestAbandoned: a client that gives up while its query is held is
// logged as 499 at INFO and counted as 499, never as a 500 at ERROR; a
// request whose own deadline passes is a 503 at WARN, never an ERROR either.
func TestRequestAbandoned(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			l := newLogCapture(t, dialect)
			bearer := "Bearer " + tokenFor(t, l.srv, "admin")
			for _, tc := range []struct {
				name   string
				ctx    func(entered chan struct{}) context.Context
				status int
				level  string
				title  string
			}{
				{name: "the client gives up", status: 499, level: "INFO", ctx: func(entered chan struct{}) context.Context {
					ctx, cancel := context.WithCancel(context.Background())
					go func() { <-entered; cancel() }()
					return ctx
				}},
				{name: "the request's deadline passes", status: 503, level: "WARN", title: "service unavailable http exception",
					ctx: func(chan struct{}) context.Context {
						ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
						t.Cleanup(cancel)
						return ctx
					}},
			} {
				t.Run(tc.name, func(t *testing.T) {
					hold := &holdQuery{table: "accounts", entered: make(chan struct{})}
					l.store.AddStatementHook(hold)
					before := len(l.lines(t, "request"))
					r := httptest.NewRequest(http.MethodGet, "/admin/api/accounts", nil).WithContext(tc.ctx(hold.entered))
					r.Header.Set("Accept", "application/vnd.api+json")
					r.Header.Set("Authorization", bearer)
					w := httptest.NewRecorder()
					l.srv.ServeHTTP(w, r)
					select {
					case <-hold.entered:
					default:
						t.Fatal("the query was never held")
					}
					lines := l.lines(t, "request")
					if len(lines) != before+1 {
						t.Fatalf("%d request lines, want %d", len(lines), before+1)
					}
					line := lines[len(lines)-1]
					if line["status"] != float64(tc.status) || line["level"] != tc.level {
						t.Errorf("request line: status %v at %v, want %d at %s: %v", line["status"], line["level"], tc.status, tc.level, line)
					}
					if tc.title != "" && !strings.Contains(w.Body.String(), tc.title) {
						t.Errorf("answer %d %s, want the title %q", w.Code, w.Body, tc.title)
					}
					if strings.Contains(l.String(), `"level":"ERROR"`) {
						t.Errorf("an ERROR was logged:\n%s", l.String())
					}
					m := l.serve(http.MethodGet, "/metrics", "", nil).Body.String()
					want := series("entityapi_http_requests_total", "app", "backoffice", "method", "GET", "route", "/admin/api/accounts", "status", "")
					want = strings.TrimSuffix(want, `""}`)
					if !strings.Contains(m, want+`"`+strconv.Itoa(tc.status)+`"} 1`) || strings.Contains(m, want+`"500"}`) {
						t.Errorf("metrics, want one %d and no 500:\n%s", tc.status, grepLines(m, want))
					}
				})
			}
		})
	}
}

// grepLines keeps the lines of s that contain sub.
func grepLines(s, sub string) string {
	var out []string
	for _, line := range strings.Split(s, "\n") {
		if strings.Contains(line, sub) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
