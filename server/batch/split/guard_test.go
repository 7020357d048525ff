package split_test

import (
	"bufio"
	"io"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/entityapi/entityapi/server/batch/split"
	"github.com/entityapi/entityapi/server/jsonguard"
)

// TestSplitRefusesWhatTheGuardRefuses: invalid UTF-8 anywhere (encoding/json
// would store it as U+FFFD) and nesting deeper than jsonguard.MaxDepth are
// malformed JSON at the spot they start, read whole or one byte at a time, and
// no chunk is emitted.
func TestSplitRefusesWhatTheGuardRefuses(t *testing.T) {
	item := func(name string) string { return `{"type":"accounts","attributes":{"name":"` + name + `"}}` }
	good := item("Good")
	utf8 := "The body is not valid UTF-8."
	deep := strings.Repeat(`{"a":`, 1000) + "1" + strings.Repeat("}", 1000)
	cases := []struct {
		name, body, detail string
	}{
		{"\\xff\\xfe", doc([]string{good, item("\xff\xfe")}, nil, false), "[1:100]. " + utf8},
		{"\\xc3\\x28", doc([]string{good, item("a\xc3\x28")}, nil, false), "[1:101]. " + utf8},
		{"surrogate", doc([]string{good, item("\xed\xa0\x80")}, nil, false), "[1:100]. " + utf8},
		{"truncated sequence", doc([]string{good, item("\xe2\x82")}, nil, false), "[1:100]. " + utf8},
		{"in an included item", doc([]string{good}, []string{"{\"type\":\"contacts\",\"id\":\"c\xff\"}"}, true), "[1:40]. " + utf8},
		{"after the document", doc([]string{good}, nil, false) + "\n\xff", "[2:1]. " + utf8},
		// The decoder sees a lead byte where nothing may follow the document
		// before the guard sees the body end in the middle of a sequence.
		{"cut at the end", doc([]string{good}, nil, false) + "\xe2", "[1:60]. Invalid character 'â' looking for beginning of value."},
		{"deep attribute", doc([]string{good, `{"type":"accounts","attributes":{"name":` + deep + `}}`}, nil, false),
			"[1:" + strconv.Itoa(100+5*(jsonguard.MaxDepth-4)-1) + "]. " + jsonguard.ReasonDepth},
		{"deep meta", `{"meta":` + deep + `,"data":[` + good + `]}`, "[1:" + strconv.Itoa(8+5*(jsonguard.MaxDepth-1)+1) + "]. " + jsonguard.ReasonDepth},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, r := range []io.Reader{strings.NewReader(tc.body), iotest.OneByteReader(strings.NewReader(tc.body))} {
				emitted := 0
				_, err := split.Split(r, "accounts", split.Limits{ChunkSize: 1}, func(split.Chunk) error { emitted++; return nil })
				l := problems(t, err)
				want := "Invalid json message received. Parsing error in " + tc.detail
				if len(l) != 1 || l[0].Title != malformed || l[0].Detail != want {
					t.Fatalf("problems %v, want %q", l, want)
				}
				if l.Status() != http.StatusBadRequest {
					t.Errorf("status %d", l.Status())
				}
				if tc.name != "after the document" && tc.name != "cut at the end" && emitted > 1 {
					t.Errorf("%d chunks emitted before the refusal", emitted)
				}
			}
		})
	}
}

// TestSplitBoundsValues: an item, or any other value or run of white space,
// of more than MaxItemBytes is a 413 naming the item when there is one; up
// to the limit is fine.
func TestSplitBoundsValues(t *testing.T) {
	const max = 200
	lim := split.Limits{MaxItemBytes: max}
	sized := func(n int) string { // an item of exactly n bytes
		s := `{"type":"accounts","attributes":{"name":""}}`
		return `{"type":"accounts","attributes":{"name":"` + strings.Repeat("x", n-len(s)) + `"}}`
	}
	acc := sized(50)
	cases := []struct {
		name, body, pointer, detail string
	}{
		{"item at the limit", doc([]string{acc, sized(max)}, nil, false), "", ""},
		{"data item over the limit", doc([]string{acc, sized(max + 1), acc}, nil, false), "/data/1", "The item is larger than 200 bytes."},
		{"huge data item", doc([]string{sized(10 * max)}, nil, false), "/data/0", "The item is larger than 200 bytes."},
		{"included item over the limit", doc([]string{`{"type":"accounts","relationships":{"contacts":{"data":[{"type":"contacts","id":"c1"}]}}}`},
			[]string{`{"type":"contacts","id":"c1","attributes":{"lastName":"` + strings.Repeat("y", max) + `"}}`}, true), "/included/0", "The item is larger than 200 bytes."},
		{"long string in meta", `{"meta":{"note":"` + strings.Repeat("z", max) + `"},"data":[` + acc + `]}`, "", "A value or run of white space in the request body is larger than 200 bytes."},
		{"long run of white space", `{"data":[` + acc + `,` + strings.Repeat(" ", max+1) + acc + `]}`, "/data/1", "The item is larger than 200 bytes."},
		{"white space between members", `{"data":[` + acc + `]` + strings.Repeat("\n", max+1) + `}`, "", "A value or run of white space in the request body is larger than 200 bytes."},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			chunks, _, err := splitAll(tc.body, lim)
			if tc.detail == "" {
				if err != nil || len(chunks) == 0 {
					t.Fatalf("err %v, %d chunks", err, len(chunks))
				}
				return
			}
			l := problems(t, err)
			if len(l) != 1 || l[0].Detail != tc.detail || l[0].Pointer != tc.pointer || l.Status() != http.StatusRequestEntityTooLarge {
				t.Fatalf("problems %v (status %d), want %q at %q", l, l.Status(), tc.detail, tc.pointer)
			}
		})
	}
}

// countingReader counts the bytes the splitter takes.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// TestLargeItemIsNotHeld streams a body whose second item has a 50 MiB name:
// the split stops after reading about MaxItemBytes of it, and the heap never
// grows by more than a few MiB (it used to hold the item several times over).
func TestLargeItemIsNotHeld(t *testing.T) {
	const name = 50 << 20
	pr, pw := io.Pipe()
	go func() {
		bw := bufio.NewWriterSize(pw, 64<<10)
		bw.WriteString(`{"data":[{"type":"accounts","attributes":{"name":"Small"}},{"type":"accounts","attributes":{"name":"`)
		chunk := strings.Repeat("n", 64<<10)
		for written := 0; written < name; written += len(chunk) {
			if _, err := bw.WriteString(chunk); err != nil {
				return
			}
		}
		bw.WriteString(`"}}]}`)
		_ = bw.Flush()
		pw.Close()
	}()
	runtime.GC()
	hw := newHeapHighWater(t)
	before := hw.max
	src := &countingReader{r: pr}
	_, err := split.Split(src, "accounts", split.DefaultLimits, func(split.Chunk) error { hw.read(); return nil })
	hw.read()
	pr.CloseWithError(io.ErrClosedPipe)
	l := problems(t, err)
	if len(l) != 1 || l[0].Pointer != "/data/1" || l.Status() != http.StatusRequestEntityTooLarge {
		t.Fatalf("problems %v", l)
	}
	if src.n > split.DefaultMaxItemBytes+1<<20 {
		t.Errorf("read %d bytes of the body before refusing an item over %d", src.n, split.DefaultMaxItemBytes)
	}
	grew := int64(hw.max) - int64(before)
	t.Logf("a %d MiB item: %d bytes read, heap grew by %.1f MiB", name>>20, src.n, float64(grew)/(1<<20))
	if grew > 8<<20 {
		t.Errorf("the heap grew by %.1f MiB while refusing a large item", float64(grew)/(1<<20))
	}
}
