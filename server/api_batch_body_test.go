package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/server/jsonguard"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// batchOf is a batch body of accounts with these names, written as given
// (bytes included).
func batchOf(names ...string) string {
	items := make([]string, len(names))
	for i, n := range names {
		items[i] = `{"type":"accounts","attributes":{"name":"` + n + `"}}`
	}
	return `{"data":[` + strings.Join(items, ",") + `]}`
}

// storedNamed counts the accounts whose name starts with prefix.
func (a *api) storedNamed(t *testing.T, prefix string) int {
	t.Helper()
	r := a.do(http.MethodGet, "/admin/api/accounts?page[size]=-1", jsonAPI, "").want(t, 200)
	n := 0
	for _, rec := range r.value("data").([]any) {
		if name, _ := get(rec, "attributes/name").(string); strings.HasPrefix(name, prefix) {
			n++
		}
	}
	return n
}

// TestBatchBodyBytes: what a single request refuses, a batch refuses too,
// asynchronous and X-Mode: sync alike, and nothing of it is stored: invalid
// UTF-8 (encoding/json stored it as U+FFFD), bytes after the document, and
// nesting deeper than jsonguard.MaxDepth.
func TestBatchBodyBytes(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		deep := strings.Repeat(`{"a":`, 9990) + "1" + strings.Repeat("}", 9990)
		bodies := map[string]string{
			`\xff\xfe`:           batchOf("Bytes ok", "Bytes \xff\xfe"),
			`\xc3\x28`:           batchOf("Bytes ok", "Bytes \xc3\x28"),
			`\xed\xa0\x80`:       batchOf("Bytes ok", "Bytes \xed\xa0\x80"),
			`truncated \xe2\x82`: batchOf("Bytes ok", "Bytes \xe2\x82"),
			"trailing text":      batchOf("Bytes ok") + "xyz",
			"second document":    batchOf("Bytes ok") + "\n" + batchOf("Bytes two"),
			"deep attribute":     strings.Replace(batchOf("Bytes ok", "X"), `"X"`, deep, 1),
		}
		for name, body := range bodies {
			for mode, headers := range map[string]map[string]string{"async": jsonAPI, "sync": syncMode} {
				t.Run(name+"/"+mode, func(t *testing.T) {
					r := a.do(http.MethodPatch, "/admin/api/accounts", headers, body).want(t, 400)
					detail, _ := r.value("errors/0/detail").(string)
					if r.value("errors/0/title") != "bad request http exception" || !strings.HasPrefix(detail, "Invalid json message received. Parsing error in [") {
						t.Errorf("errors %s", r.body)
					}
					if name == "deep attribute" && !strings.HasSuffix(detail, jsonguard.ReasonDepth) {
						t.Errorf("detail %q, want the depth refusal", detail)
					}
				})
			}
		}
		if n := a.operationCount(t); n != 0 {
			t.Errorf("%d operations exist after refused batches", n)
		}
		if n := a.storedNamed(t, "Bytes"); n != 0 {
			t.Errorf("%d accounts stored from refused batches", n)
		}
	})
}

// TestDeepBodyIsRefusedFirst: a single request nested 9,990 deep (which cost
// its decoders seconds of CPU, growing with the square of the depth) is
// refused by the guard, as its detail shows, before any decoder walks it.
func TestDeepBodyIsRefusedFirst(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		deep := strings.Repeat(`{"a":`, 9990) + "1" + strings.Repeat("}", 9990)
		for _, tc := range []struct {
			name, body string
			headers    map[string]string
			detail     string
		}{
			{"json:api", `{"data":{"type":"accounts","attributes":{"name":` + deep + `}}}`, jsonAPI, "errors/0/detail"},
			{"plain", `{"name":` + deep + `}`, plain, "0/detail"},
			{"array", strings.Repeat("[", 9990) + strings.Repeat("]", 9990), jsonAPI, "errors/0/detail"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := a.do(http.MethodPost, "/admin/api/accounts", tc.headers, tc.body).want(t, 400)
				if got, _ := r.value(tc.detail).(string); !strings.HasSuffix(got, jsonguard.ReasonDepth) {
					t.Errorf("detail %q, want the depth refusal", got)
				}
			})
		}
		ok := `{"data":{"type":"accounts","attributes":{"name":"Shallow ` + strings.Repeat("[", 100) + `"}}}`
		a.do(http.MethodPost, "/admin/api/accounts", jsonAPI, ok).want(t, 201)
	})
}

// TestBatchItemSize: an item over --max-batch-item is a 413 naming it,
// asynchronous and sync alike, and nothing of the request is stored.
func TestBatchItemSize(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			a := newAPIWith(t, storagetest.Open(t, dialect), func(c *server.Config) { c.MaxBatchItem = 4096 })
			big := batchOf("Sized ok", "Sized "+strings.Repeat("x", 8192), "Sized three")
			for _, headers := range []map[string]string{jsonAPI, syncMode} {
				r := a.do(http.MethodPatch, "/admin/api/accounts", headers, big).want(t, 413)
				checkValues(t, r, map[string]any{"errors/0/title": "request entity too large http exception",
					"errors/0/detail": "The item is larger than 4096 bytes.", "errors/0/source/pointer": "/data/1"})
			}
			if n := a.operationCount(t); n != 0 {
				t.Errorf("%d operations exist after refused batches", n)
			}
			if n := a.storedNamed(t, "Sized"); n != 0 {
				t.Errorf("%d accounts stored from refused batches", n)
			}
			a.do(http.MethodPatch, "/admin/api/accounts", syncMode, batchOf("Sized "+strings.Repeat("y", 240))).want(t, 200)
		})
	}
}
