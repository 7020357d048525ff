package stage

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/entityapi/entityapi/storage/jobs"
)

// readItems must read what encode writes as encoding/json does.
func TestReadItemsAsEncodingJSON(t *testing.T) {
	t.Parallel()
	items := []jobs.ChunkItem{
		{Index: 0, Raw: json.RawMessage(`{"type":"accounts","attributes":{"name":"a"}}`)},
		{Index: 17, Raw: json.RawMessage(`{"type":"users","attributes":{"password":"$2a$10$x"}}`), Hashed: true},
		{Index: 3, Raw: json.RawMessage(`{"type":"users"}`), Problems: []jobs.ChunkProblem{{Title: "t", Detail: "d", Pointer: "/data/3/attributes/password"}}},
	}
	raw := encode(items)
	got, ok := readItems(raw)
	if !ok {
		t.Fatalf("readItems refused %s", raw)
	}
	var want []jobs.ChunkItem
	if err := json.Unmarshal(raw, &want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("readItems = %+v, want %+v", got, want)
	}
	for _, other := range []string{`[{"index":1}]`, `[{"index":1.5,"raw":{}}]`, `[{"index":1,"raw":{},"x":1}]`, `{"index":1}`, `[{"index":1,"raw":{}]`} {
		if _, ok := readItems([]byte(other)); ok {
			t.Errorf("readItems took %s", other)
		}
	}
}
