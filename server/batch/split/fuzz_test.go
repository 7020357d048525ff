package split_test

import (
	"bytes"
	"testing"

	"github.com/entityapi/entityapi/server/batch/split"
	"github.com/entityapi/entityapi/server/problem"
)

// FuzzSplit: whatever the body, Split does not panic, and answers either
// structural problems (400s about the body, or a 413 for an item over
// MaxItemBytes; at most MaxProblems) or chunks
// holding exactly the request's items, each once, closed under reference. Small
// limits make the chunking paths reachable from small inputs. The seed corpus
// is in testdata/fuzz/FuzzSplit.
func FuzzSplit(f *testing.F) {
	f.Add([]byte(`{"data":[{"type":"accounts"}]}`))
	f.Add([]byte(`{"included":[{"type":"contacts","id":"c1"}],"data":[{"type":"accounts","relationships":{"c":{"data":{"type":"contacts","id":"c1"}}}},{"type":"accounts"}]}`))
	f.Add([]byte(`{"data":[{"type":"accounts","id":"a"},{"type":"accounts"},{"type":"accounts"}],"included":[{"type":"contacts","id":"c","relationships":{"a":{"data":[{"type":"accounts","id":"a"}]}}}]}`))
	lim := split.Limits{ChunkSize: 2, IncludedChunkSize: 2, MaxFactor: 3, MaxItemBytes: 256}
	f.Fuzz(func(t *testing.T, body []byte) {
		var chunks []split.Chunk
		st, err := split.Split(bytes.NewReader(body), "accounts", lim, func(c split.Chunk) error {
			chunks = append(chunks, c)
			return nil
		})
		if st.Chunks != len(chunks) {
			t.Fatalf("stats say %d chunks, %d emitted", st.Chunks, len(chunks))
		}
		if err != nil {
			l, ok := err.(problem.List)
			if !ok {
				t.Fatalf("error %T %v is not a problem list", err, err)
			}
			if len(l) == 0 || len(l) > split.MaxProblems {
				t.Fatalf("%d problems", len(l))
			}
			for _, p := range l {
				if p.Kind != problem.Invalid && p.Kind != problem.TooLarge || p.Title == "" || p.Detail == "" {
					t.Fatalf("problem %+v", p)
				}
			}
			return
		}
		checkChunks(t, body, "accounts", lim, chunks)
		n, m := 0, 0
		for _, c := range chunks {
			n += len(c.Data)
			m += len(c.Included)
		}
		if n != st.Data || m != st.Included {
			t.Fatalf("stats %+v, chunks hold %d/%d items", st, n, m)
		}
	})
}
