package server_test

import (
	"bufio"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// itemHeapGrowth is how far the heap may grow while a batch with one 50 MiB
// item is refused: the item is never held, only --max-batch-item of it.
const itemHeapGrowth = 8 << 20

// TestBatchLargeItemMemory streams a batch whose second item has a 50 MiB
// name (it used to raise the process by 8 times that) and samples the heap
// while the request is answered: a 413 naming the item, reached after reading
// about --max-batch-item (1 MiB by default) of it, the heap growing by a few
// MiB at most, and nothing stored.
func TestBatchLargeItemMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: this test sends 50 MiB items to measure memory; make test runs it")
	}
	const name = 50 << 20
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			a := newAPIWith(t, storagetest.Open(t, dialect), func(c *server.Config) { c.MaxBatchBody = 1 << 30 })
			token := a.token("admin")
			for _, mode := range []string{"async", "sync"} {
				body, w := io.Pipe()
				var sent atomic.Int64
				go func() {
					bw := bufio.NewWriterSize(w, 64<<10)
					_, _ = bw.WriteString(`{"data":[{"type":"accounts","attributes":{"name":"Large ok"}},{"type":"accounts","attributes":{"name":"Large `)
					chunk := strings.Repeat("n", 64<<10)
					for i := 0; i < name/len(chunk); i++ {
						if _, err := bw.WriteString(chunk); err != nil {
							return
						}
						sent.Add(int64(len(chunk)))
					}
					_, _ = bw.WriteString(`"}}]}`)
					_ = bw.Flush()
					_ = w.Close()
				}()
				req := httptest.NewRequest(http.MethodPatch, "/admin/api/accounts", body)
				req.Header.Set("Content-Type", "application/vnd.api+json")
				req.Header.Set("Accept", "application/vnd.api+json")
				req.Header.Set("Authorization", "Bearer "+token)
				req.Header.Set("X-Mode", mode)

				runtime.GC()
				base, peak := heapSampler()
				rec := httptest.NewRecorder()
				a.srv.ServeHTTP(rec, req)
				high := peak()
				_ = body.CloseWithError(io.ErrClosedPipe) // ends the writer
				grew := int64(high) - int64(base)
				t.Logf("%s: a %d MiB item refused after %.1f MiB were sent; heap grew by %.1f MiB", mode, name>>20,
					float64(sent.Load())/(1<<20), float64(grew)/(1<<20))
				if grew > itemHeapGrowth {
					t.Errorf("%s: the heap grew by %.1f MiB while a large item was refused (limit %d MiB)", mode, float64(grew)/(1<<20), itemHeapGrowth>>20)
				}
				if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(rec.Body.String(), `"pointer":"/data/1"`) {
					t.Errorf("%s: status %d: %s", mode, rec.Code, rec.Body)
				}
			}
			if n := a.storedNamed(t, "Large"); n != 0 {
				t.Errorf("%d accounts stored", n)
			}
			if n := a.operationCount(t); n != 0 {
				t.Errorf("%d operations left", n)
			}
		})
	}
}

// heapSampler samples the bytes of heap objects every millisecond: base is the
// first sample; peak stops sampling and returns the highest.
//
// While it samples, the collector runs at GOGC=25 instead of 100. The samples
// count objects not collected yet, so at the default pace they also measure
// how late the collector runs: on a loaded machine (the whole suite, other
// packages' tests beside this one) the same 200,000-record upload once
// sampled 50.5 MiB of growth against 26-27 MiB unloaded. The bounds are on
// what an upload holds, which a prompt collector leaves to be measured.
func heapSampler() (base uint64, peak func() uint64) {
	gogc := debug.SetGCPercent(25)
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	base = sample[0].Value.Uint64()
	var high atomic.Uint64
	high.Store(base)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(sample)
			if v := sample[0].Value.Uint64(); v > high.Load() {
				high.Store(v)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	return base, func() uint64 {
		close(stop)
		wg.Wait()
		debug.SetGCPercent(gogc)
		return high.Load()
	}
}
