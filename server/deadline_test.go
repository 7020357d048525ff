package server_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// heldTable is the table TestRequestDeadlineCancelsQueries replaces with a
// view that holds every statement reading it.
const heldTable = "weightunits"

// holdReads renames heldTable and puts a view of the same name in its place
// whose every read first runs a deliberately slow statement: on SQLite a
// recursive CTE counting to 5*10^7 (half a minute of CPU or more), on
// PostgreSQL pg_sleep(60). Only a cancelled statement ends sooner; without
// the deadline the request is a 200 after that time.
func holdReads(t *testing.T, s *storage.Store) {
	t.Helper()
	hold := `(WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 50000000) SELECT max(x) AS m FROM n)`
	if s.Dialect() == "postgres" {
		hold = `(SELECT pg_sleep(60), 1 AS m)`
	}
	for _, stmt := range []string{
		"ALTER TABLE " + heldTable + " RENAME TO " + heldTable + "_held",
		"CREATE VIEW " + heldTable + " AS SELECT w.* FROM " + heldTable + "_held AS w, " + hold + " AS hold",
	} {
		if _, err := s.DB().ExecContext(context.Background(), stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
}

// heldErrors is a statement hook keeping the outcome of the statements that
// read heldTable.
type heldErrors struct {
	mu   sync.Mutex
	errs []error
}

func (h *heldErrors) BeforeStatement(ctx context.Context, _ string) context.Context { return ctx }

func (h *heldErrors) AfterStatement(_ context.Context, query string, err error) {
	if strings.Contains(query, `"`+heldTable+`"`) {
		h.mu.Lock()
		h.errs = append(h.errs, err)
		h.mu.Unlock()
	}
}

func (h *heldErrors) reset() {
	h.mu.Lock()
	h.errs = nil
	h.mu.Unlock()
}

func (h *heldErrors) list() []error {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]error(nil), h.errs...)
}

// TestRequestDeadlineCancelsQueries holds a request's query past the request
// timeout and expects the statement cancelled and a 503 error document,
// not a 200 minutes later (issue 15: the log showed a 200 after 223 s with a
// 30 s --request-timeout, which only bounded the HTTP write).
func TestRequestDeadlineCancelsQueries(t *testing.T) {
	t.Parallel()
	const timeout = 2 * time.Second
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			store := storagetest.Open(t, dialect)
			hook := &heldErrors{}
			store.AddStatementHook(hook)
			a := newAPIWith(t, store, func(c *server.Config) {
				c.RequestTimeout = timeout
				c.Jobs.NoWorkers = true
			})
			seedRows(t, store, heldTable, storage.Row{"code": "held"}) // a row to read: an empty table holds nothing
			path := "/admin/api/" + heldTable
			a.do("GET", path, jsonAPI, "").want(t, 200) // the token and the caller are cached from here on
			holdReads(t, store)
			hook.reset()

			start := time.Now()
			w := timedOut(t, a, "GET", path, "")
			took := time.Since(start)
			if !strings.Contains(string(w.body), "service unavailable http exception") {
				t.Errorf("answer %s, want the title %q", w.body, "service unavailable http exception")
			}
			if took > 20*time.Second {
				t.Errorf("answered after %v: the held statement ran on past the %v deadline", took, timeout)
			}
			errs := hook.list()
			if len(errs) == 0 {
				t.Fatalf("no statement read %s", heldTable)
			}
			for _, err := range errs {
				if err == nil {
					t.Errorf("a statement reading %s ended without an error: it was not cancelled", heldTable)
				} else {
					t.Logf("the held statement ended with: %v", err)
				}
			}
			if dialect == "postgres" {
				waitNoActiveQuery(t, store, heldTable)
			}
		})
	}
}

// waitNoActiveQuery fails unless, within a few seconds, PostgreSQL runs no
// statement naming table in this database any more (a cancel request is
// asynchronous).
func waitNoActiveQuery(t *testing.T, s *storage.Store, table string) {
	t.Helper()
	const q = `SELECT count(*) FROM pg_stat_activity
		WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'active' AND query LIKE ?`
	var n int
	for range 50 {
		if err := s.DB().NewRaw(q, `%"`+table+`"%`).Scan(context.Background(), &n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("%d statements reading %s still run on PostgreSQL", n, table)
}

// TestRequestDeadlineSparesBatches: batch uploads keep their own deadline
// (--batch-upload-timeout), so a request timeout too short for any query
// stops a list and leaves a synchronous batch alone.
func TestRequestDeadlineSparesBatches(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			a := newAPIWith(t, storagetest.Open(t, dialect), func(c *server.Config) {
				c.RequestTimeout = time.Nanosecond
			})
			r := a.do("PATCH", "/admin/api/accounts", syncMode, batchAccounts(2, "Spared")).want(t, 200)
			if got := r.value("data/1/attributes/name"); got != "Spared 1" {
				t.Errorf("batch: name %v, want %q\n%s", got, "Spared 1", r.body)
			}
			timedOut(t, a, "GET", "/admin/api/accounts", "")
		})
	}
}

// timedOut sends a request that is to pass its deadline, through the
// contract helper like every other request, and fails unless it is answered
// 503 (problem.TimedOut, the documents' ServiceUnavailable).
func timedOut(t *testing.T, a *api, method, path, body string) *result {
	t.Helper()
	return a.do(method, path, jsonAPI, body).want(t, http.StatusServiceUnavailable)
}
