package dialect

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestEncodeActor: the actor's text is the JSON object the PostgreSQL
// triggers read, fields absent where the actor has none, strings escaped.
func TestEncodeActor(t *testing.T) {
	for _, c := range []struct {
		actor Actor
		want  map[string]any
	}{
		{Actor{int64(1), "demo", int64(7), "req-1"}, map[string]any{"o": 1.0, "c": "demo", "u": 7.0, "r": "req-1"}},
		{Actor{int64(2), nil, nil, nil}, map[string]any{"o": 2.0}},
		{Actor{nil, `a"b\c`, nil, nil}, map[string]any{"c": `a"b\c`}},
		{Actor{}, map[string]any{}},
	} {
		var got map[string]any
		text := EncodeActor(&c.actor)
		if err := json.Unmarshal([]byte(text), &got); err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("EncodeActor(%v) = %s (%v), want %v", c.actor, text, err, c.want)
		}
	}
}
