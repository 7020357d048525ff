package server_test

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// batchHeapLimit is the bound of DESIGN.md §11 for the test: the heap may not
// grow past it while 200,000 records stream in.
const batchHeapLimit = 64 << 20

// TestBatchUploadMemory streams a 200,000-record batch into the service and
// samples the Go heap while it is read, split and staged: the high-water mark
// stays under batchHeapLimit whatever the size of the request. The records
// are generated as they are sent and never exist whole on either side; the
// body is about 60 MB, so a server that held it whole would fail.
func TestBatchUploadMemory(t *testing.T) {
	const records = 200_000
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			store := storagetest.Open(t, dialect)
			// No workers: the upload alone is measured (chunks are bounded by
			// their size and measured by the benchmarks).
			a := newAPIWith(t, store, func(c *server.Config) { c.Jobs.NoWorkers = true })
			srv, err := server.New(server.Config{BackofficeBase: "/admin", Jobs: storage.QueueConfig{NoWorkers: true},
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, store)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(srv.Close)
			token := a.token("admin")

			padding := strings.Repeat("x", 200)
			body, w := io.Pipe()
			go func() {
				_, _ = io.WriteString(w, `{"data":[`)
				for i := 0; i < records; i++ {
					sep := ","
					if i == 0 {
						sep = ""
					}
					if _, err := fmt.Fprintf(w, `%s{"type":"accounts","attributes":{"name":"Memory %07d %s","externalId":"M-%07d"}}`, sep, i, padding, i); err != nil {
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
			var peak atomic.Uint64
			stop := make(chan struct{})
			var wg sync.WaitGroup
			wg.Add(1)
			go func() {
				defer wg.Done()
				sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
				tick := time.NewTicker(time.Millisecond)
				defer tick.Stop()
				for {
					metrics.Read(sample)
					if v := sample[0].Value.Uint64(); v > peak.Load() {
						peak.Store(v)
					}
					select {
					case <-stop:
						return
					case <-tick.C:
					}
				}
			}()
			rec := httptest.NewRecorder()
			srv.ServeHTTP(rec, req)
			close(stop)
			wg.Wait()
			if rec.Code != http.StatusAccepted {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			t.Logf("%d records: heap high-water %.1f MiB (limit %d MiB)", records, float64(peak.Load())/(1<<20), batchHeapLimit>>20)
			if peak.Load() > batchHeapLimit {
				t.Errorf("the heap reached %.1f MiB while a batch streamed in (limit %d MiB)", float64(peak.Load())/(1<<20), batchHeapLimit>>20)
			}
		})
	}
}
