package server_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage/jobs"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// The bound of docs/decisions.md §11 for the test: while a batch streams in, the heap
// may grow by batchHeapAllowance, whatever the number of records, plus, for an
// update, heldBytesPerRecord for each record (an update waits for the end of
// the body in case an included item links it: its index and size stay in
// memory, its bytes go to a spool). At 1,000,000 records that is under 100 MiB.
const (
	batchHeapAllowance = 40 << 20
	heldBytesPerRecord = 32
)

// TestBatchUploadMemory streams a 200,000-record batch into the service and
// samples the Go heap while it is read, split and staged: creates, and
// updates with a relationship (which used to be held until the body ended:
// some 700 MB at a million). The records are generated as they are sent and
// never exist whole on either side; the body is about 60 MB, so a server that
// held it whole, or held every update, would fail.
func TestBatchUploadMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: this test uploads batches of 200,000 records to measure memory; make test runs it")
	}
	const records = 200_000
	padding := strings.Repeat("x", 200)
	kinds := []struct {
		name      string
		perRecord int64 // bytes of heap each record may add
		item      func(w io.Writer, sep string, i int) error
	}{
		{"creates", 0, func(w io.Writer, sep string, i int) error {
			_, err := fmt.Fprintf(w, `%s{"type":"accounts","attributes":{"name":"Memory %07d %s","externalId":"M-%07d"}}`, sep, i, padding, i)
			return err
		}},
		{"updates with a relationship", heldBytesPerRecord, func(w io.Writer, sep string, i int) error {
			_, err := fmt.Fprintf(w, `%s{"type":"accounts","id":"%d","meta":{"update":true},"attributes":{"name":"Memory %07d %s"},"relationships":{"referredBy":{"data":{"type":"accounts","id":"%d"}}}}`,
				sep, 1+i, i, padding, 1+max(i-1, 0))
			return err
		}},
	}
	for _, dialect := range storagetest.Dialects() {
		for _, kind := range kinds {
			t.Run(dialect+"/"+kind.name, func(t *testing.T) {
				spool := t.TempDir()
				t.Setenv("TMPDIR", spool) // where held updates are spooled: nothing may stay there
				store := storagetest.Open(t, dialect)
				// No workers: the upload alone is measured (chunks are bounded by
				// their size and measured by the benchmarks).
				a := newAPIWith(t, store, func(c *server.Config) { c.Jobs.NoWorkers = true })
				srv, err := server.New(server.Config{BackofficeBase: "/admin", Jobs: jobs.Config{NoWorkers: true},
					Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, store)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(srv.Close)
				token := a.token("admin")

				body, w := io.Pipe()
				go func() {
					_, _ = io.WriteString(w, `{"data":[`)
					for i := 0; i < records; i++ {
						sep := ","
						if i == 0 {
							sep = ""
						}
						if err := kind.item(w, sep, i); err != nil {
							return
						}
					}
					_, _ = io.WriteString(w, `]}`)
					_ = w.Close()
				}()
				req := httptest.NewRequest(http.MethodPatch, "/admin/api/accounts", body)
				req.Header.Set("Content-Type", "application/vnd.api+json")
				req.Header.Set("Accept", "application/vnd.api+json")
				req.Header.Set("Authorization", "Bearer "+token)

				runtime.GC()
				base, peak := heapSampler()
				rec := httptest.NewRecorder()
				srv.ServeHTTP(rec, req)
				high := peak()
				if rec.Code != http.StatusAccepted {
					t.Fatalf("status %d: %s", rec.Code, rec.Body)
				}
				growth := int64(high) - int64(base)
				limit := batchHeapAllowance + records*kind.perRecord
				t.Logf("%d records: heap grew by %.1f MiB (%.0f bytes per record; limit %.1f MiB)", records, float64(growth)/(1<<20), float64(growth)/records, float64(limit)/(1<<20))
				if growth > limit {
					t.Errorf("the heap grew by %.1f MiB while a batch of %d records streamed in (limit %d MiB + %d bytes per record)",
						float64(growth)/(1<<20), records, batchHeapAllowance>>20, kind.perRecord)
				}
				if left, _ := os.ReadDir(spool); len(left) > 0 {
					t.Errorf("the upload left %d files in the temporary directory", len(left))
				}
			})
		}
	}
}
