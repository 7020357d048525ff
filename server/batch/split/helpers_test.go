package split_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/server/batch/split"
	"github.com/entityapi/entityapi/server/problem"
)

// splitAll runs split.Split over body and keeps every emitted chunk.
func splitAll(body string, lim split.Limits) ([]split.Chunk, split.Stats, error) {
	var chunks []split.Chunk
	st, err := split.Split(strings.NewReader(body), "accounts", lim, func(c split.Chunk) error {
		chunks = append(chunks, c)
		return nil
	})
	return chunks, st, err
}

// plain is a data item that refers to nothing.
func plain(i int) string {
	return fmt.Sprintf(`{"type":"accounts","attributes":{"name":"Account %d"}}`, i)
}

// doc builds a body from data items and included items; included comes first
// when first is true.
func doc(data, included []string, first bool) string {
	d := `"data":[` + strings.Join(data, ",") + `]`
	if included == nil {
		return "{" + d + "}"
	}
	in := `"included":[` + strings.Join(included, ",") + `]`
	if first {
		return "{" + in + "," + d + "}"
	}
	return "{" + d + "," + in + "}"
}

func plains(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = plain(i)
	}
	return out
}

// indexes lists the indexes of items, for compact comparisons.
func indexes(items []split.Item) []int {
	out := make([]int, len(items))
	for i, it := range items {
		out[i] = it.Index
	}
	return out
}

// problems extracts the problem list of err, failing the test for anything else.
func problems(t testing.TB, err error) problem.List {
	t.Helper()
	l, ok := err.(problem.List)
	if !ok {
		t.Fatalf("want a problem.List, got %T %v", err, err)
	}
	return l
}

// ref is a type+id key.
func ref(typ, id string) string { return typ + "\x00" + id }

// walkRefs lists the identifiers an item's relationships name, decoded
// generically (independently of the package's own reading).
func walkRefs(raw json.RawMessage) []string {
	var obj map[string]any
	if json.Unmarshal(raw, &obj) != nil {
		return nil
	}
	rels, _ := obj["relationships"].(map[string]any)
	var out []string
	one := func(v any) {
		m, _ := v.(map[string]any)
		t, _ := m["type"].(string)
		id, _ := m["id"].(string)
		if t != "" && id != "" {
			out = append(out, ref(t, id))
		}
	}
	for _, r := range rels {
		rm, _ := r.(map[string]any)
		switch d := rm["data"].(type) {
		case map[string]any:
			one(d)
		case []any:
			for _, e := range d {
				one(e)
			}
		}
	}
	return out
}

// checkChunks asserts the invariants of a successful split of body: every item
// of the request is in exactly one chunk, as sent; chunks are numbered in
// order, sorted, within the limits and closed under reference; every included
// item travels with at least one data item.
func checkChunks(t testing.TB, body []byte, typ string, lim split.Limits, chunks []split.Chunk) {
	t.Helper()
	if !json.Valid(body) {
		t.Fatalf("a body that is not JSON was accepted: %q", body)
	}
	var root map[string]json.RawMessage
	if err := json.Unmarshal(body, &root); err != nil {
		t.Fatalf("accepted body has no root object: %v", err)
	}
	var data, included []json.RawMessage
	if err := json.Unmarshal(root["data"], &data); err != nil || len(data) == 0 {
		t.Fatalf("accepted body without data items: %v", err)
	}
	if r, ok := root["included"]; ok {
		if err := json.Unmarshal(r, &included); err != nil {
			t.Fatalf("accepted body with a bad included member: %v", err)
		}
	}
	if lim.ChunkSize <= 0 {
		lim.ChunkSize = 100
	}
	if lim.IncludedChunkSize <= 0 {
		lim.IncludedChunkSize = 50
	}
	if lim.MaxFactor <= 0 {
		lim.MaxFactor = 10
	}
	dataChunk := make([]int, len(data))
	incChunk := make([]int, len(included))
	incKey := map[string]int{}
	dataKey := map[string][]int{}
	for i, raw := range included {
		var o struct{ Type, ID string }
		_ = json.Unmarshal(raw, &o)
		incKey[ref(o.Type, o.ID)] = i
	}
	for i, raw := range data {
		var o map[string]any
		_ = json.Unmarshal(raw, &o)
		if id, _ := o["id"].(string); id != "" {
			dataKey[ref(typ, id)] = append(dataKey[ref(typ, id)], i)
		}
	}
	for n, c := range chunks {
		if c.Number != n+1 {
			t.Fatalf("chunk %d has number %d", n+1, c.Number)
		}
		if len(c.Data) == 0 {
			t.Fatalf("chunk %d has no data items", c.Number)
		}
		if len(c.Data) > lim.MaxFactor*lim.ChunkSize || len(c.Included) > lim.MaxFactor*lim.IncludedChunkSize {
			t.Fatalf("chunk %d is too large: %d/%d", c.Number, len(c.Data), len(c.Included))
		}
		for k, it := range c.Data {
			if it.Included || it.Index < 0 || it.Index >= len(data) {
				t.Fatalf("chunk %d: bad data item %+v", c.Number, it)
			}
			if k > 0 && c.Data[k-1].Index >= it.Index {
				t.Fatalf("chunk %d: data not in request order: %v", c.Number, indexes(c.Data))
			}
			if dataChunk[it.Index] != 0 {
				t.Fatalf("data item %d in chunks %d and %d", it.Index, dataChunk[it.Index], c.Number)
			}
			dataChunk[it.Index] = c.Number
			if !bytes.Equal(it.Raw, data[it.Index]) {
				t.Fatalf("data item %d changed: %q, sent %q", it.Index, it.Raw, data[it.Index])
			}
		}
		for k, it := range c.Included {
			if !it.Included || it.Index < 0 || it.Index >= len(included) {
				t.Fatalf("chunk %d: bad included item %+v", c.Number, it)
			}
			if k > 0 && c.Included[k-1].Index >= it.Index {
				t.Fatalf("chunk %d: included not in request order: %v", c.Number, indexes(c.Included))
			}
			if incChunk[it.Index] != 0 {
				t.Fatalf("included item %d in chunks %d and %d", it.Index, incChunk[it.Index], c.Number)
			}
			incChunk[it.Index] = c.Number
			if !bytes.Equal(it.Raw, included[it.Index]) {
				t.Fatalf("included item %d changed", it.Index)
			}
		}
	}
	for i, c := range dataChunk {
		if c == 0 {
			t.Fatalf("data item %d is in no chunk", i)
		}
		for _, r := range walkRefs(data[i]) {
			if j, ok := incKey[r]; ok && incChunk[j] != c {
				t.Fatalf("data item %d (chunk %d) refers to included item %d (chunk %d)", i, c, j, incChunk[j])
			}
		}
	}
	for i, c := range incChunk {
		if c == 0 {
			t.Fatalf("included item %d is in no chunk", i)
		}
		for _, r := range walkRefs(included[i]) {
			if j, ok := incKey[r]; ok && incChunk[j] != c {
				t.Fatalf("included item %d (chunk %d) refers to included item %d (chunk %d)", i, c, j, incChunk[j])
			}
			for _, d := range dataKey[r] {
				if dataChunk[d] != c {
					t.Fatalf("included item %d (chunk %d) refers to data item %d (chunk %d)", i, c, d, dataChunk[d])
				}
			}
		}
	}
}

// chunkedReader hands out at most n bytes per Read and counts what it gave.
type chunkedReader struct {
	r    io.Reader
	n    int
	read int
}

func (c *chunkedReader) Read(p []byte) (int, error) {
	if len(p) > c.n {
		p = p[:c.n]
	}
	n, err := c.r.Read(p)
	c.read += n
	return n, err
}
