package split_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/server/batch/split"
)

// TestRandomBodies builds well-formed bodies with random links and checks the
// split against an independent model: which included items are unlinked,
// which groups are too large, and otherwise the invariants of checkChunks.
func TestRandomBodies(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	spoolDir := t.TempDir()
	t.Cleanup(func() {
		if left, _ := os.ReadDir(spoolDir); len(left) > 0 {
			t.Errorf("%d spool files left behind", len(left))
		}
	})
	for iter := range 2000 {
		nData, nInc := 1+rng.IntN(30), rng.IntN(12)
		lim := split.Limits{ChunkSize: 1 + rng.IntN(5), IncludedChunkSize: 1 + rng.IntN(3), MaxFactor: 1 + rng.IntN(4)}
		if iter%2 == 1 { // held items go to a temporary file after the first few bytes
			lim.SpoolMemory, lim.SpoolDir = int64(1+rng.IntN(200)), spoolDir
		}
		dataID := make([]string, nData)
		for i := range dataID {
			if rng.IntN(3) == 0 {
				dataID[i] = fmt.Sprint("a", rng.IntN(nData)) // ids may repeat
			}
		}
		// edges: data → included, included → included, included → data id
		adj := make([][]int, nData+nInc) // undirected graph: data i is node i, included j is node nData+j
		link := func(a, b int) { adj[a] = append(adj[a], b); adj[b] = append(adj[b], a) }
		ident := func(typ, id string) string { return `{"type":"` + typ + `","id":"` + id + `"}` }
		rels := func(ids []string) string {
			if len(ids) == 0 {
				return ""
			}
			return `,"relationships":{"r":{"data":[` + strings.Join(ids, ",") + `]},"owner":{"data":{"type":"users","id":"1"}}}`
		}
		data := make([]string, nData)
		for i := range data {
			var ids []string
			for range rng.IntN(3) {
				if nInc == 0 || rng.IntN(4) == 0 {
					ids = append(ids, ident("contacts", "nowhere"))
					continue
				}
				j := rng.IntN(nInc)
				ids = append(ids, ident("contacts", fmt.Sprint("c", j)))
				link(i, nData+j)
			}
			id := ""
			if dataID[i] != "" {
				id = `,"id":"` + dataID[i] + `"`
			}
			data[i] = `{"type":"accounts"` + id + rels(ids) + `}`
		}
		included := make([]string, nInc)
		for j := range included {
			var ids []string
			for range rng.IntN(3) {
				if rng.IntN(2) == 0 && nInc > 0 {
					k := rng.IntN(nInc)
					ids = append(ids, ident("contacts", fmt.Sprint("c", k)))
					link(nData+j, nData+k)
				} else {
					a := fmt.Sprint("a", rng.IntN(nData))
					ids = append(ids, ident("accounts", a))
					for i, id := range dataID {
						if id == a {
							link(nData+j, i)
						}
					}
				}
			}
			included[j] = `{"type":"contacts","id":"c` + fmt.Sprint(j) + `"` + rels(ids) + `}`
		}
		// the model: connected components
		comp := make([]int, nData+nInc)
		for i := range comp {
			comp[i] = -1
		}
		var stack []int
		for s := range comp {
			if comp[s] >= 0 {
				continue
			}
			comp[s] = s
			stack = append(stack[:0], s)
			for len(stack) > 0 {
				n := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				for _, m := range adj[n] {
					if comp[m] < 0 {
						comp[m] = s
						stack = append(stack, m)
					}
				}
			}
		}
		var wantPointers []string
		for j := range nInc {
			linked := false
			for i := range nData {
				linked = linked || comp[i] == comp[nData+j]
			}
			if !linked {
				wantPointers = append(wantPointers, fmt.Sprint("/included/", j))
			}
		}
		seen := map[int]bool{}
		for i := range nData {
			c := comp[i]
			if seen[c] {
				continue
			}
			seen[c] = true
			d, in := 0, 0
			for n, cn := range comp {
				if cn == c {
					if n < nData {
						d++
					} else {
						in++
					}
				}
			}
			if in > 0 && (d > lim.MaxFactor*lim.ChunkSize || in > lim.MaxFactor*lim.IncludedChunkSize) {
				wantPointers = append(wantPointers, fmt.Sprint("/data/", i))
			}
		}

		first := rng.IntN(2) == 0
		body := doc(data, included, first)
		if nInc == 0 && rng.IntN(2) == 0 {
			body = doc(data, nil, false)
		}
		chunks, st, err := splitAll(body, lim)
		if len(wantPointers) > 0 {
			var got []string
			for _, p := range problems(t, err) {
				got = append(got, p.Pointer)
			}
			if !slices.Equal(got, wantPointers) {
				t.Fatalf("iteration %d: problems at %v, want %v\n%s", iter, got, wantPointers, body)
			}
			continue
		}
		if err != nil {
			t.Fatalf("iteration %d: %v\n%s", iter, err, body)
		}
		if st.Data != nData || st.Included != nInc {
			t.Fatalf("iteration %d: stats %+v", iter, st)
		}
		checkChunks(t, []byte(body), "accounts", lim, chunks)
		// Plain chunks are full except perhaps the last ones: no chunk of
		// plain items only is smaller than needed.
		for _, c := range chunks {
			if len(c.Data) > lim.ChunkSize && len(c.Included) == 0 {
				t.Fatalf("iteration %d: plain chunk of %d", iter, len(c.Data))
			}
		}
	}
}
