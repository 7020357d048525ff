package split_test

import (
	"bufio"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"slices"
	"strconv"
	"testing"

	"github.com/entityapi/entityapi/server/batch/split"
)

const heapObjects = "/memory/classes/heap/objects:bytes"

// heapHighWater samples the bytes of heap objects (live objects and dead ones
// not yet swept) and keeps the maximum.
type heapHighWater struct {
	sample []metrics.Sample
	max    uint64
}

// newHeapHighWater starts sampling. Until the test ends the collector runs
// at a tenth of its usual heap growth (GOGC 10), so that the samples are
// what the splitter holds rather than garbage not yet collected: with the
// default, dead objects may reach the size of the live ones between two
// collections, and a full `make test` on a loaded machine once sampled
// 25.7 MiB where the split held under the 18.1 MiB bound.
func newHeapHighWater(t *testing.T) *heapHighWater {
	old := debug.SetGCPercent(10)
	t.Cleanup(func() { debug.SetGCPercent(old) })
	h := &heapHighWater{sample: []metrics.Sample{{Name: heapObjects}}}
	h.read()
	return h
}

func (h *heapHighWater) read() {
	metrics.Read(h.sample)
	if v := h.sample[0].Value.Uint64(); v > h.max {
		h.max = v
	}
}

// writeBody generates a batch body on the fly: included (when given) before
// data, n data items from item.
func writeBody(w io.WriteCloser, n int, included string, item func(i int, b []byte) []byte) {
	bw := bufio.NewWriterSize(w, 32<<10)
	bw.WriteString("{")
	if included != "" {
		bw.WriteString(`"included":[` + included + `],`)
	}
	bw.WriteString(`"data":[`)
	var buf []byte
	for i := range n {
		if i > 0 {
			bw.WriteByte(',')
		}
		buf = item(i, buf[:0])
		bw.Write(buf)
	}
	bw.WriteString("]}")
	if err := bw.Flush(); err != nil {
		w.Close()
		return
	}
	w.Close()
}

func account(i int, b []byte) []byte {
	b = append(b, `{"type":"accounts","attributes":{"name":"Account `...)
	b = strconv.AppendInt(b, int64(i), 10)
	b = append(b, `","description":"A plain account generated for the memory test, with some text to make it realistic."},"meta":{}}`...)
	return b
}

// TestMemoryBounded streams 200,000 plain accounts in through a pipe (the body
// is never in memory as a whole) and asserts that the heap's high-water mark
// stays under 64 MiB: plain items are emitted as chunks while the body is read
// and nothing else is held. Bounded by counts, not time.
func TestMemoryBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: this test splits bodies of 200,000 items to measure memory; make test runs it")
	}
	const n = 200_000
	const limit = 64 << 20
	cases := []struct {
		name     string
		included string
		item     func(int, []byte) []byte
	}{
		{"no included", "", account},
		{"included first, a few linked items", `{"type":"contacts","id":"c1"},{"type":"contacts","id":"c2"}`, func(i int, b []byte) []byte {
			if i%50_000 == 7 {
				return fmt.Appendf(b, `{"type":"accounts","relationships":{"contacts":{"data":[{"type":"contacts","id":"c%d"}]},"owner":{"data":{"type":"users","id":"1"}}}}`, 1+i/100_000)
			}
			// Every other item refers to a record outside the request: known
			// to be plain because included came first.
			b = append(b, `{"type":"accounts","attributes":{"name":"Account `...)
			b = strconv.AppendInt(b, int64(i), 10)
			return append(b, `"},"relationships":{"owner":{"data":{"type":"users","id":"1"}}}}`...)
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pr, pw := io.Pipe()
			go writeBody(pw, n, tc.included, tc.item)
			runtime.GC()
			hw := newHeapHighWater(t)
			items := 0
			st, err := split.Split(pr, "accounts", split.DefaultLimits, func(c split.Chunk) error {
				items += len(c.Data)
				hw.read()
				return nil
			})
			hw.read()
			pr.Close()
			if err != nil {
				t.Fatal(err)
			}
			if st.Data != n || items != n {
				t.Fatalf("stats %+v, %d items emitted", st, items)
			}
			t.Logf("%s: %d items, %d chunks, heap high-water %.1f MiB", tc.name, st.Data, st.Chunks, float64(hw.max)/(1<<20))
			if hw.max >= limit {
				t.Errorf("heap high-water %d bytes, want under %d", hw.max, limit)
			}
		})
	}
}

// heldBytesPerItem bounds what a held item (one that may be linked with an
// included item still to come: it has an id or relationships) costs the
// splitter in memory: its bytes go to the spool and its index and size (12
// bytes) stay; the rest is the slack of a growing slice.
const heldBytesPerItem = 32

// TestMemoryHeldItems streams 200,000 items that the splitter must hold until
// the end of the body (updates with an id and a relationship, "included"
// absent or after "data") and asserts a heap high-water mark of a fixed
// allowance plus heldBytesPerItem per item: the items themselves (some 300
// bytes each) are never all in memory. The items are all emitted, in request
// order, with the linked ones beside their included item.
func TestMemoryHeldItems(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: this test splits bodies of 200,000 items to measure memory; make test runs it")
	}
	const n = 200_000
	const limit = 12<<20 + n*heldBytesPerItem
	update := func(i int, b []byte) []byte {
		b = append(b, `{"type":"accounts","id":"`...)
		b = strconv.AppendInt(b, int64(1000+i), 10)
		b = append(b, `","meta":{"update":true},"attributes":{"name":"Account `...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, ` renamed by the memory test, with some text to make it realistic"},"relationships":{"referredBy":{"data":{"type":"accounts","id":"`...)
		b = strconv.AppendInt(b, int64(999+i), 10)
		b = append(b, `"}},"owner":{"data":{"type":"users","id":"1"}}}}`...)
		return b
	}
	cases := []struct {
		name   string
		after  string // the included items, after data
		linked []int  // indexes of the data items linked with them
	}{
		{"updates, no included", "", nil},
		{"updates, included after data", `{"type":"contacts","id":"c1","relationships":{"accounts":{"data":[{"type":"accounts","id":"1007"},{"type":"accounts","id":"150007"}]}}}`, []int{7, 149007}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			pr, pw := io.Pipe()
			go func() {
				bw := bufio.NewWriterSize(pw, 32<<10)
				bw.WriteString(`{"data":[`)
				var buf []byte
				for i := range n {
					if i > 0 {
						bw.WriteByte(',')
					}
					buf = update(i, buf[:0])
					bw.Write(buf)
				}
				bw.WriteString("]")
				if tc.after != "" {
					bw.WriteString(`,"included":[` + tc.after + `]`)
				}
				bw.WriteString("}")
				_ = bw.Flush()
				pw.Close()
			}()
			runtime.GC()
			hw := newHeapHighWater(t)
			items, next := 0, 0
			var grouped []int
			lim := split.DefaultLimits
			lim.SpoolDir = t.TempDir()
			st, err := split.Split(pr, "accounts", lim, func(c split.Chunk) error {
				hw.read()
				items += len(c.Data)
				if len(c.Included) > 0 {
					for _, it := range c.Data {
						if slices.Contains(tc.linked, it.Index) {
							grouped = append(grouped, it.Index)
						}
					}
					return nil
				}
				for _, it := range c.Data {
					if it.Index < next {
						return fmt.Errorf("item %d after item %d", it.Index, next)
					}
					next = it.Index
				}
				return nil
			})
			hw.read()
			pr.Close()
			if err != nil {
				t.Fatal(err)
			}
			if st.Data != n || items != n || !slices.Equal(grouped, tc.linked) {
				t.Fatalf("stats %+v, %d items emitted, %d with the included item (want %d)", st, items, grouped, tc.linked)
			}
			t.Logf("%s: %d items, %d chunks, heap high-water %.1f MiB (limit %.1f MiB)", tc.name, st.Data, st.Chunks, float64(hw.max)/(1<<20), float64(limit)/(1<<20))
			if hw.max >= limit {
				t.Errorf("heap high-water %d bytes, want under %d (12 MiB + %d bytes per held item)", hw.max, limit, heldBytesPerItem)
			}
		})
	}
}
