package split_test

import (
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/server/batch/split"
	"github.com/entityapi/entityapi/server/problem"
)

const (
	rdc       = "request data constraint"
	malformed = "bad request http exception"
	unlinked  = "The entity should have a relationship with the primary entity and this should be explicitly specified in the request."
)

// want is one expected problem.
type want struct{ title, detail, pointer string }

func TestStructuralProblems(t *testing.T) {
	acc := `{"type":"accounts"}`
	contact := func(id string) string { return `{"type":"contacts","id":"` + id + `"}` }
	linkedTo := func(ids ...string) string {
		var refs []string
		for _, id := range ids {
			refs = append(refs, `{"type":"contacts","id":"`+id+`"}`)
		}
		return `{"type":"accounts","relationships":{"contacts":{"data":[` + strings.Join(refs, ",") + `]}}}`
	}
	contacts := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = contact(fmt.Sprint("c", i+1))
		}
		return out
	}
	many := func(n int, item string) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = item
		}
		return out
	}
	cases := []struct {
		name string
		body string
		lim  split.Limits
		want []want
	}{
		// the document
		{"empty body", ``, split.Limits{}, []want{{rdc, "The request data should not be empty.", ""}}},
		{"white space only", " \n\t ", split.Limits{}, []want{{rdc, "The request data should not be empty.", ""}}},
		{"null body", `null`, split.Limits{}, []want{{rdc, "The request data should not be empty.", ""}}},
		{"empty object", `{}`, split.Limits{}, []want{{rdc, "The request data should not be empty.", ""}}},
		{"meta only", `{"meta":{"a":1},"jsonapi":{"version":"1.0"}}`, split.Limits{}, []want{{rdc, "The request data should not be empty.", ""}}},
		{"included only", `{"included":[]}`, split.Limits{}, []want{{rdc, "The request data should not be empty.", ""}}},
		{"empty data array", `{"data":[]}`, split.Limits{}, []want{{rdc, "The request data should not be empty.", "/data"}}},
		{"null data", `{"data":null}`, split.Limits{}, []want{{rdc, "The request data should not be empty.", "/data"}}},
		{"data is an object", `{"data":{"type":"accounts"}}`, split.Limits{}, []want{{rdc, "The 'data' property should be an array of resource objects.", "/data"}}},
		{"data is a string", `{"data":"x"}`, split.Limits{}, []want{{rdc, "The 'data' property should be an array of resource objects.", "/data"}}},
		{"root is an array", `[{"type":"accounts"}]`, split.Limits{}, []want{{rdc, "The request data should be an object.", ""}}},
		{"root is a string", `"accounts"`, split.Limits{}, []want{{rdc, "The request data should be an object.", ""}}},
		{"unknown member", `{"data":[` + acc + `],"links":{}}`, split.Limits{}, []want{{rdc, "The 'links' property is not allowed here.", "/links"}}},
		{"unknown member escaped", `{"a/b~":1,"data":[` + acc + `]}`, split.Limits{}, []want{{rdc, "The 'a/b~' property is not allowed here.", "/a~1b~0"}}},
		{"data twice", `{"data":[` + acc + `],"data":[` + acc + `]}`, split.Limits{}, []want{{rdc, "The 'data' property should occur only once.", "/data"}}},
		{"included twice", `{"included":[],"data":[` + acc + `],"included":[]}`, split.Limits{}, []want{{rdc, "The 'included' property should occur only once.", "/included"}}},
		{"included not an array", `{"data":[` + acc + `],"included":{}}`, split.Limits{}, []want{{rdc, "The 'included' property should be an array of resource objects.", "/included"}}},

		// malformed JSON, with Oro's [line:column]
		{"truncated", `{"data":[{"type":"accounts"}`, split.Limits{}, []want{{malformed, "Invalid json message received. Parsing error in [1:29]. Unexpected end of JSON input.", ""}}},
		{"truncated literal", `nul`, split.Limits{}, []want{{malformed, "Invalid json message received. Parsing error in [1:4]. Unexpected end of JSON input.", ""}}},
		{"trailing comma in item", `{"data":[{"type":"accounts",}]}`, split.Limits{}, []want{{malformed, "Invalid json message received. Parsing error in [1:29]. Invalid character '}' looking for beginning of object key string.", ""}}},
		{"missing comma between items", `{"data":[{"type":"accounts"} {"type":"accounts"}]}`, split.Limits{}, []want{{malformed, "Invalid json message received. Parsing error in [1:30]. Expected comma after array element.", ""}}},
		{"bad escape inside an item", `{"data":[{"type":"accounts","attributes":{"name":"a\x"}}]}`, split.Limits{}, []want{{malformed, "Invalid json message received. Parsing error in [1:53]. Invalid character 'x' in string escape code.", ""}}},
		{"garbage after the document", `{"data":[{"type":"accounts"}]} x`, split.Limits{}, []want{{malformed, "Invalid json message received. Parsing error in [1:32]. Invalid character 'x' looking for beginning of value.", ""}}},
		{"second document", `{"data":[{"type":"accounts"}]} {}`, split.Limits{}, []want{{malformed, "Invalid json message received. Parsing error in [1:32]. Invalid character '{' after top-level value.", ""}}},
		{"bad value in meta", `{"data":[{"type":"accounts"}],"meta":nul}`, split.Limits{}, []want{{malformed, "Invalid json message received. Parsing error in [1:41]. Invalid character '}' in literal null (expecting 'l').", ""}}},
		{"multi-line", "{\n  \"data\": [\n    {\"type\": \"accounts\"},\n    x\n  ]\n}", split.Limits{}, []want{{malformed, "Invalid json message received. Parsing error in [4:5]. Invalid character 'x' looking for beginning of value.", ""}}},
		{"multi-line inside an item", "{\n  \"data\": [\n    {\"type\": \"accounts\"},\n    {\"type\": tru}\n  ]\n}", split.Limits{}, []want{{malformed, "Invalid json message received. Parsing error in [4:17]. Invalid character '}' in literal true (expecting 'e').", ""}}},
		{"problems before the malformed spot are kept", `{"data":[1 2]}`, split.Limits{}, []want{
			{rdc, "The item should be an object.", "/data/0"},
			{malformed, "Invalid json message received. Parsing error in [1:12]. Expected comma after array element.", ""},
		}},

		// data items
		{"data item not an object", `{"data":[` + acc + `,[],"x"]}`, split.Limits{}, []want{
			{rdc, "The item should be an object.", "/data/1"},
			{rdc, "The item should be an object.", "/data/2"},
		}},
		{"missing type", `{"data":[` + acc + `,{"attributes":{}}]}`, split.Limits{}, []want{{rdc, "The 'type' property is required.", "/data/1/type"}}},
		{"null type", `{"data":[{"type":null}]}`, split.Limits{}, []want{{rdc, "The 'type' property is required.", "/data/0/type"}}},
		{"empty type", `{"data":[{"type":""}]}`, split.Limits{}, []want{{rdc, "The 'type' property is required.", "/data/0/type"}}},
		{"other type", `{"data":[` + acc + `,{"type":"contacts"}]}`, split.Limits{}, []want{{rdc, "The 'type' property of the primary data object should match the requested resource.", "/data/1/type"}}},
		{"type not a string", `{"data":[{"type":1}]}`, split.Limits{}, []want{{rdc, "The 'type' property of the primary data object should match the requested resource.", "/data/0/type"}}},
		{"type is case-sensitive", `{"data":[{"Type":"accounts"}]}`, split.Limits{}, []want{{rdc, "The 'type' property is required.", "/data/0/type"}}},
		{"id not a string", `{"data":[{"type":"accounts","id":12}]}`, split.Limits{}, []want{{rdc, "The 'id' property should be a string.", "/data/0/id"}}},
		{"every problem is reported", `{"data":[{"type":"contacts"},` + acc + `,{"type":"users","id":1}]}`, split.Limits{}, []want{
			{rdc, "The 'type' property of the primary data object should match the requested resource.", "/data/0/type"},
			{rdc, "The 'type' property of the primary data object should match the requested resource.", "/data/2/type"},
			{rdc, "The 'id' property should be a string.", "/data/2/id"},
		}},

		// included items
		{"included not an object", doc([]string{acc}, []string{`1`}, false), split.Limits{}, []want{{rdc, "The item should be an object.", "/included/0"}}},
		{"included without type", doc([]string{linkedTo("c1")}, []string{`{"id":"c1"}`}, false), split.Limits{}, []want{{rdc, "The 'type' property is required.", "/included/0/type"}}},
		{"included type not a string", doc([]string{linkedTo("c1")}, []string{`{"type":7,"id":"c1"}`}, false), split.Limits{}, []want{{rdc, "The 'type' property should be a string.", "/included/0/type"}}},
		{"included without id", doc([]string{linkedTo("c1")}, []string{contact("c1"), `{"type":"contacts"}`}, false), split.Limits{}, []want{{rdc, "The 'id' property is required.", "/included/1/id"}}},
		{"included empty id", doc([]string{linkedTo("c1")}, []string{contact("c1"), contact("")}, true), split.Limits{}, []want{{rdc, "The 'id' property is required.", "/included/1/id"}}},
		{"included id not a string", doc([]string{linkedTo("c1")}, []string{`{"type":"contacts","id":1}`}, false), split.Limits{}, []want{{rdc, "The 'id' property should be a string.", "/included/0/id"}}},
		{"duplicate included", doc([]string{linkedTo("c1")}, []string{contact("c1"), contact("c2"), contact("c1")}, false), split.Limits{}, []want{
			{rdc, "The item duplicates the item with the index 0.", "/included/2"},
			{rdc, unlinked, "/included/1"},
		}},
		{"unlinked included (after data)", doc([]string{linkedTo("c1"), acc}, []string{contact("c1"), contact("c2")}, false), split.Limits{}, []want{{rdc, unlinked, "/included/1"}}},
		{"unlinked included (before data)", doc([]string{linkedTo("c1"), acc}, []string{contact("c2"), contact("c1")}, true), split.Limits{}, []want{{rdc, unlinked, "/included/0"}}},
		{"included items linked only with each other", doc([]string{acc}, []string{
			`{"type":"contacts","id":"c1","relationships":{"x":{"data":{"type":"contacts","id":"c2"}}}}`, contact("c2"),
		}, false), split.Limits{}, []want{{rdc, unlinked, "/included/0"}, {rdc, unlinked, "/included/1"}}},
		{"an id of another type does not link", doc([]string{linkedTo("c1")}, []string{`{"type":"users","id":"c1"}`}, false), split.Limits{}, []want{{rdc, unlinked, "/included/0"}}},

		// sizes
		{"too large group (data)", doc(append([]string{acc}, many(5, linkedTo("c1"))...), []string{contact("c1")}, true),
			split.Limits{ChunkSize: 2, IncludedChunkSize: 2, MaxFactor: 2},
			[]want{{rdc, "The related items of one request part exceed the chunk limit.", "/data/1"}}},
		{"too large group (included)", doc([]string{acc, acc, linkedTo("c1", "c2", "c3", "c4", "c5")}, []string{contact("c1"), contact("c2"), contact("c3"), contact("c4"), contact("c5")}, false),
			split.Limits{ChunkSize: 2, IncludedChunkSize: 2, MaxFactor: 2},
			[]want{{rdc, "The related items of one request part exceed the chunk limit.", "/data/2"}}},
		{"MaxItems", doc(plains(101), nil, false), split.SyncLimits, []want{{rdc, "The data limit for the synchronous operation exceeded.", "/data"}}},
		{"MaxIncluded", doc([]string{linkedTo("c1")}, contacts(51), true), split.SyncLimits, []want{{rdc, "The data limit for the synchronous operation exceeded for the section \"included\".", "/included"}}},
		{"MaxItems stops reading", doc(plains(3), nil, false) + "garbage", split.Limits{MaxItems: 2}, []want{{rdc, "The data limit for the synchronous operation exceeded.", "/data"}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			chunks, _, err := splitAll(tc.body, tc.lim)
			l := problems(t, err)
			var got []want
			for _, p := range l {
				if p.Kind != problem.Invalid || p.Parameter != "" || p.Header != "" {
					t.Errorf("problem %+v: want a 400 about the body", p)
				}
				got = append(got, want{p.Title, p.Detail, p.Pointer})
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("problems\n got %q\nwant %q", got, tc.want)
			}
			if l.Status() != 400 {
				t.Errorf("status %d", l.Status())
			}
			_ = chunks // chunks emitted before a problem was found are void
		})
	}
}

func TestProblemCap(t *testing.T) {
	items := make([]string, 150)
	for i := range items {
		items[i] = `{"type":"contacts"}`
	}
	var emitted int
	body := doc(items, nil, false) + "garbage that is never read"
	_, err := split.Split(strings.NewReader(body), "accounts", split.Limits{}, func(split.Chunk) error { emitted++; return nil })
	l := problems(t, err)
	if len(l) != split.MaxProblems {
		t.Fatalf("%d problems, want %d", len(l), split.MaxProblems)
	}
	if l[99].Pointer != "/data/99/type" {
		t.Errorf("last problem at %s", l[99].Pointer)
	}
	if emitted != 0 {
		t.Errorf("%d chunks emitted for a void request", emitted)
	}
}

func TestNoChunkAfterAProblem(t *testing.T) {
	items := plains(250)
	items[0] = `{"type":"contacts"}`
	chunks, st, err := splitAll(doc(items, nil, false), split.Limits{})
	if len(problems(t, err)) != 1 || len(chunks) != 0 || st.Chunks != 0 || st.Data != 250 {
		t.Fatalf("err %v, %d chunks, stats %+v", err, len(chunks), st)
	}
}

func TestPlainChunks(t *testing.T) {
	body := doc(plains(250), nil, false)
	r := &chunkedReader{r: strings.NewReader(body), n: 512}
	var chunks []split.Chunk
	var readAt []int
	st, err := split.Split(r, "accounts", split.DefaultLimits, func(c split.Chunk) error {
		chunks = append(chunks, c)
		readAt = append(readAt, r.read)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if st != (split.Stats{Data: 250, Chunks: 3}) {
		t.Errorf("stats %+v", st)
	}
	wantRanges := [][2]int{{0, 99}, {100, 199}, {200, 249}}
	if len(chunks) != 3 {
		t.Fatalf("%d chunks", len(chunks))
	}
	for i, c := range chunks {
		idx := indexes(c.Data)
		if c.Number != i+1 || len(c.Included) != 0 || idx[0] != wantRanges[i][0] || idx[len(idx)-1] != wantRanges[i][1] || len(idx) != wantRanges[i][1]-wantRanges[i][0]+1 {
			t.Errorf("chunk %d: number %d, data %v..%v (%d)", i+1, c.Number, idx[0], idx[len(idx)-1], len(idx))
		}
		if c.Data[0].Type != "accounts" || c.Data[0].ID != "" || c.Data[0].Included || string(c.Data[0].Raw) != plain(c.Data[0].Index) {
			t.Errorf("chunk %d: first item %+v", i+1, c.Data[0])
		}
	}
	// Streaming: the first chunks are emitted before the body has been read.
	if readAt[0] >= len(body)/2 || readAt[1] >= len(body) {
		t.Errorf("chunks emitted after reading %v of %d bytes", readAt, len(body))
	}
	checkChunks(t, []byte(body), "accounts", split.DefaultLimits, chunks)
}

// The 250-item example of the issue, as updates: items with ids may be linked
// with included items still to come, so they are held, and chunked the same.
func TestPlainChunksWithIDs(t *testing.T) {
	items := make([]string, 250)
	for i := range items {
		items[i] = fmt.Sprintf(`{"type":"accounts","id":"%d","meta":{"update":true},"attributes":{"name":"n"}}`, i+1)
	}
	chunks, _, err := splitAll(doc(items, nil, false), split.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != 3 || len(chunks[0].Data) != 100 || len(chunks[1].Data) != 100 || len(chunks[2].Data) != 50 || chunks[2].Data[0].Index != 200 {
		t.Fatalf("chunks %d", len(chunks))
	}
	if chunks[0].Data[4].ID != "5" {
		t.Errorf("id %q", chunks[0].Data[4].ID)
	}
	checkChunks(t, []byte(doc(items, nil, false)), "accounts", split.Limits{}, chunks)
}

func TestIncludedChunks(t *testing.T) {
	acc := func(i int) string { return plain(i) }
	refTo := func(ids ...string) string {
		var refs []string
		for _, id := range ids {
			refs = append(refs, `{"type":"contacts","id":"`+id+`"}`)
		}
		return `{"type":"accounts","relationships":{"contacts":{"data":[` + strings.Join(refs, ",") + `]},"owner":{"data":{"type":"users","id":"1"}}}}`
	}
	contact := func(id string, rels ...string) string {
		s := `{"type":"contacts","id":"` + id + `","attributes":{"firstName":"x"}`
		if len(rels) > 0 {
			s += `,"relationships":{` + strings.Join(rels, ",") + `}`
		}
		return s + "}"
	}
	type chunk struct{ data, included []int }
	small := split.Limits{ChunkSize: 2, IncludedChunkSize: 1, MaxFactor: 10}
	cases := []struct {
		name     string
		data     []string
		included []string
		lim      split.Limits
		first    []chunk // included before data
		after    []chunk // included after data (nil: as first)
	}{
		{
			name:     "one group among plain items",
			data:     []string{acc(0), acc(1), acc(2), refTo("c1"), acc(4)},
			included: []string{contact("c1")},
			lim:      small,
			first:    []chunk{{[]int{0, 1}, []int{}}, {[]int{2, 4}, []int{}}, {[]int{3}, []int{0}}},
		},
		{
			name:     "an included item refers back to a data item by id",
			data:     []string{acc(0), `{"type":"accounts","id":"a1"}`, acc(2)},
			included: []string{contact("c1", `"account":{"data":{"type":"accounts","id":"a1"}}`)},
			lim:      small,
			first:    []chunk{{[]int{0, 2}, []int{}}, {[]int{1}, []int{0}}},
			after:    []chunk{{[]int{0, 2}, []int{}}, {[]int{1}, []int{0}}},
		},
		{
			name:     "linked through another included item",
			data:     []string{refTo("c1"), acc(1)},
			included: []string{contact("c2"), contact("c1", `"friend":{"data":{"type":"contacts","id":"c2"}}`)},
			lim:      split.Limits{ChunkSize: 2, IncludedChunkSize: 2},
			first:    []chunk{{[]int{0, 1}, []int{0, 1}}},
		},
		{
			name:     "two data items share an included item",
			data:     []string{refTo("c1"), acc(1), acc(2), refTo("c1", "c2")},
			included: []string{contact("c1"), contact("c2")},
			lim:      small,
			first:    []chunk{{[]int{1, 2}, []int{}}, {[]int{0, 3}, []int{0, 1}}},
		},
		{
			name:     "groups are packed while they fit",
			data:     []string{refTo("c1"), refTo("c2"), refTo("c3"), acc(3)},
			included: []string{contact("c1"), contact("c2"), contact("c3")},
			lim:      split.Limits{ChunkSize: 3, IncludedChunkSize: 2},
			// plain item 3 is emitted with the last group
			first: []chunk{{[]int{0, 1}, []int{0, 1}}, {[]int{2, 3}, []int{2}}},
		},
		{
			name:     "a group larger than the chunk size gets its own chunk",
			data:     []string{acc(0), refTo("c1"), refTo("c1"), refTo("c1"), acc(4)},
			included: []string{contact("c1")},
			lim:      split.Limits{ChunkSize: 2, IncludedChunkSize: 1, MaxFactor: 2},
			first:    []chunk{{[]int{0, 4}, []int{}}, {[]int{1, 2, 3}, []int{0}}},
		},
		{
			name:     "references to records outside the request are not links",
			data:     []string{refTo(), acc(1)},
			included: []string{contact("c1", `"account":{"data":[{"type":"accounts","id":"999"},{"type":"accounts","id":"a"}]}`)},
			lim:      small,
			first:    nil, // unlinked: see TestStructuralProblems
		},
	}
	for _, tc := range cases {
		if tc.first == nil {
			continue
		}
		for _, first := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/included first %v", tc.name, first), func(t *testing.T) {
				body := doc(tc.data, tc.included, first)
				chunks, st, err := splitAll(body, tc.lim)
				if err != nil {
					t.Fatal(err)
				}
				want := tc.first
				if !first && tc.after != nil {
					want = tc.after
				}
				var got []chunk
				for _, c := range chunks {
					got = append(got, chunk{indexes(c.Data), indexes(c.Included)})
				}
				if !reflect.DeepEqual(got, want) {
					t.Errorf("chunks\n got %v\nwant %v", got, want)
				}
				if st.Data != len(tc.data) || st.Included != len(tc.included) || st.Chunks != len(chunks) {
					t.Errorf("stats %+v", st)
				}
				checkChunks(t, []byte(body), "accounts", tc.lim, chunks)
			})
		}
	}
}

// A group spanning items 5 and 180 lands in one chunk with its included item,
// wherever included stands.
func TestGroupAcrossChunks(t *testing.T) {
	items := plains(200)
	link := `{"type":"accounts","attributes":{"name":"x"},"relationships":{"contacts":{"data":[{"type":"contacts","id":"new-1"}]}}}`
	items[5], items[180] = link, link
	included := []string{`{"type":"contacts","id":"new-1","attributes":{"firstName":"A"}}`}
	for _, first := range []bool{true, false} {
		t.Run(fmt.Sprintf("included first %v", first), func(t *testing.T) {
			body := doc(items, included, first)
			chunks, st, err := splitAll(body, split.DefaultLimits)
			if err != nil {
				t.Fatal(err)
			}
			found := false
			for _, c := range chunks {
				idx := indexes(c.Data)
				has5, has180 := contains(idx, 5), contains(idx, 180)
				if has5 != has180 || has5 != (len(c.Included) == 1) {
					t.Errorf("chunk %d: data %v, included %v", c.Number, idx, indexes(c.Included))
				}
				if has5 {
					found = true
					if c.Included[0].Type != "contacts" || c.Included[0].ID != "new-1" || !c.Included[0].Included || c.Included[0].Index != 0 {
						t.Errorf("included item %+v", c.Included[0])
					}
				}
			}
			if !found || st.Chunks != 2 || st.Data != 200 || st.Included != 1 {
				t.Errorf("found %v, stats %+v", found, st)
			}
			checkChunks(t, []byte(body), "accounts", split.DefaultLimits, chunks)
		})
	}
}

func contains(s []int, v int) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

func TestSyncLimitsGiveOneChunk(t *testing.T) {
	items := plains(100)
	var inc []string
	for i := range 50 {
		items[i*2] = fmt.Sprintf(`{"type":"accounts","relationships":{"contacts":{"data":[{"type":"contacts","id":"c%d"}]}}}`, i)
		inc = append(inc, fmt.Sprintf(`{"type":"contacts","id":"c%d"}`, i))
	}
	for _, first := range []bool{true, false} {
		chunks, _, err := splitAll(doc(items, inc, first), split.SyncLimits)
		if err != nil {
			t.Fatal(err)
		}
		if len(chunks) != 1 || len(chunks[0].Data) != 100 || len(chunks[0].Included) != 50 {
			t.Fatalf("included first %v: %d chunks", first, len(chunks))
		}
	}
}

func TestEmitErrorStops(t *testing.T) {
	boom := errors.New("boom")
	calls := 0
	st, err := split.Split(strings.NewReader(doc(plains(1000), nil, false)), "accounts", split.DefaultLimits, func(c split.Chunk) error {
		calls++
		if c.Number == 2 {
			return boom
		}
		return nil
	})
	if err != boom {
		t.Fatalf("err %v, want the emit error as is", err)
	}
	if calls != 2 || st.Chunks != 2 || st.Data >= 1000 {
		t.Errorf("calls %d, stats %+v", calls, st)
	}
	// The same at the end of the body, where groups are emitted.
	body := doc([]string{plain(0), `{"type":"accounts","relationships":{"c":{"data":{"type":"contacts","id":"1"}}}}`}, []string{`{"type":"contacts","id":"1"}`}, false)
	_, err = split.Split(strings.NewReader(body), "accounts", split.DefaultLimits, func(split.Chunk) error { return boom })
	if err != boom {
		t.Fatalf("err %v at the end", err)
	}
}

type failingReader struct{ err error }

func (f failingReader) Read([]byte) (int, error) { return 0, f.err }

func TestReaderErrorIsReturnedAsIs(t *testing.T) {
	tooLarge := errors.New("http: request body too large")
	r := io.MultiReader(strings.NewReader(`{"data":[{"type":"accounts"},`), failingReader{tooLarge})
	_, err := split.Split(r, "accounts", split.DefaultLimits, func(split.Chunk) error { return nil })
	if err != tooLarge {
		t.Fatalf("err %v, want the reader's error", err)
	}
	if _, ok := problem.From(err); ok {
		t.Error("a reader error must not be a problem")
	}
}

func TestItemPointer(t *testing.T) {
	if p := (split.Item{Index: 17}).Pointer(); p != "/data/17" {
		t.Error(p)
	}
	if p := (split.Item{Included: true, Index: 2}).Pointer(); p != "/included/2" {
		t.Error(p)
	}
}

// The [line:column] of a syntax error stays right deep into a multi-line body,
// however the body arrives.
func TestMalformedPosition(t *testing.T) {
	var b strings.Builder
	b.WriteString("{\n\"data\": [\n")
	for i := range 300 {
		if i > 0 {
			b.WriteString(",\n")
		}
		if i == 250 {
			b.WriteString(`  {"type": "accounts", "attributes": {"name": "x" "y"}}`)
			continue
		}
		b.WriteString("  {\"type\": \"accounts\",\n   \"attributes\": {\"name\": \"" + strings.Repeat("é", i%7) + "\"}}")
	}
	b.WriteString("\n]\n}\n")
	body := b.String()
	// item i starts on line 3+2i; item 250's error is at the second name
	want := "Invalid json message received. Parsing error in [503:51]. Invalid character '\"' after object key:value pair."
	for _, n := range []int{1, 7, 512, 1 << 20} {
		r := &chunkedReader{r: strings.NewReader(body), n: n}
		_, err := split.Split(r, "accounts", split.DefaultLimits, func(split.Chunk) error { return nil })
		l := problems(t, err)
		if len(l) != 1 || l[0].Title != malformed || l[0].Detail != want {
			t.Errorf("reads of %d bytes: %v", n, err)
		}
	}
}

// Keys match exactly and may be escaped; strings are decoded as encoding/json
// decodes them.
func TestEscapedMembers(t *testing.T) {
	body := `{"data":[{"\u0074ype":"acc\u006funts","id":"\"a\\","relationships":{"r":{"data":[{"type":"contacts","id":"\u00e9"}]}}}],` +
		`"included":[{"type":"contacts","id":"é"}]}`
	chunks, _, err := splitAll(body, split.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != 1 || len(chunks[0].Included) != 1 || chunks[0].Data[0].ID != `"a\` || chunks[0].Data[0].Type != "accounts" || chunks[0].Included[0].ID != "é" {
		t.Fatalf("chunks %+v", chunks)
	}
}

// @-members are ignored (JSON:API 1.1): a root one is no unknown member, and
// an item's are gone from the bytes emitted, so that what reads the item
// later never sees one.
func TestAtMembersAreIgnored(t *testing.T) {
	body := `{"@context":"https://schema.org","data":[{"type":"accounts","@id":"x","attributes":{"@type":"Thing","name":"A"},` +
		`"relationships":{"@r":{"data":[{"type":"contacts","id":"c9"}]},"contacts":{"data":[{"type":"contacts","id":"c1","@x":1}]}}}],` +
		`"\u0040y":{},"included":[{"type":"contacts","id":"c1","@z":2,"attributes":{"lastName":"C","@w":3}}]}`
	chunks, _, err := splitAll(body, split.DefaultLimits)
	if err != nil {
		t.Fatal(err)
	}
	if len(chunks) != 1 || len(chunks[0].Data) != 1 || len(chunks[0].Included) != 1 {
		t.Fatalf("chunks %+v, want one of the account and c1", chunks)
	}
	wantData := `{"type":"accounts","attributes":{"name":"A"},"relationships":{"contacts":{"data":[{"type":"contacts","id":"c1"}]}}}`
	wantIncluded := `{"type":"contacts","id":"c1","attributes":{"lastName":"C"}}`
	if got := string(chunks[0].Data[0].Raw); got != wantData {
		t.Errorf("data item %s\nwant %s", got, wantData)
	}
	if got := string(chunks[0].Included[0].Raw); got != wantIncluded {
		t.Errorf("included item %s\nwant %s", got, wantIncluded)
	}
}

// Items with ids and relationships stream when included (even empty) comes
// first, and are held when it may still come.
func TestEmptyIncludedFirstStreams(t *testing.T) {
	items := make([]string, 300)
	for i := range items {
		items[i] = fmt.Sprintf(`{"type":"accounts","id":"%d","meta":{"update":true},"relationships":{"owner":{"data":{"type":"users","id":"1"}}}}`, i+1)
	}
	for _, tc := range []struct {
		name    string
		body    string
		early   bool
		nChunks int
	}{
		{"included first", `{"included":[],` + doc(items, nil, false)[1:], true, 3},
		{"no included", doc(items, nil, false), false, 3},
		{"included after", doc(items, []string{}, false), false, 3},
	} {
		r := &chunkedReader{r: strings.NewReader(tc.body), n: 256}
		var readAt []int
		st, err := split.Split(r, "accounts", split.DefaultLimits, func(split.Chunk) error {
			readAt = append(readAt, r.read)
			return nil
		})
		if err != nil || st.Chunks != tc.nChunks {
			t.Fatalf("%s: %v %+v", tc.name, err, st)
		}
		if early := readAt[0] < len(tc.body)/2; early != tc.early {
			t.Errorf("%s: first chunk emitted after %d of %d bytes", tc.name, readAt[0], len(tc.body))
		}
	}
}
