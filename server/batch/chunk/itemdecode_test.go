package chunk

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/entityapi/entityapi/server/jsonapi"
)

// decodeItem must give what encoding/json gives whenever it takes an item,
// and leave every other item to encoding/json.
func TestDecodeItemAsEncodingJSON(t *testing.T) {
	t.Parallel()
	cases := []struct {
		raw  string
		fast bool
	}{
		{`{"type":"accounts","attributes":{"name":"Batch 1"}}`, true},
		{` { "type" : "accounts" , "id" : "7", "attributes" : { "name" : "é ü", "n": 1.5, "big": 12345678901234567890, "b": true, "f": false, "z": null, "o": {"a":[1,"x",null]}, "l": [] } } `, true},
		{`{"type":"accounts","id":null,"attributes":null,"meta":{"upsert":["name"],"x":{"y":1}}}`, true},
		{`{"type":"contacts","relationships":{"accounts":{"data":[{"type":"accounts","id":"1"}]},"owner":{"data":null}}}`, true},
		{`{"type":"accounts","attributes":{"name":"a","name":"b"}}`, true},
		{`{"type":"accounts","attributes":{}}`, true},
		{`{}`, true},
		{`{"type":"acc\u006funts"}`, false},
		{`{"type":"accounts","attributes":{"na\u006de":"x"}}`, false},
		{`{"type":"accounts","attributes":{"name":"line\nbreak"}}`, true},
		{`{"Type":"accounts"}`, false},
		{`{"type":"accounts","links":{}}`, false},
		{`{"type":"accounts","type":"contacts"}`, false},
		{`{"type":"accounts","attributes":{"a":1},"attributes":{"b":2}}`, false},
		{`{"type":5}`, false},
		{`{"type":null}`, false},
		{`{"type":"accounts","id":5}`, false},
		{`{"type":"accounts","attributes":[]}`, false},
		{`{"type":"accounts","meta":"x"}`, false},
		{`{"type":"accounts","relationships":{"a":5}}`, false},
		{`{"type":"accounts","attributes":{"n":1e400}}`, false},
		{`["type"]`, false},
		{`"x"`, false},
	}
	for _, c := range cases {
		r, value, ok := decodeItem([]byte(c.raw))
		if ok != c.fast {
			t.Errorf("%s: decoded %v, want %v", c.raw, ok, c.fast)
		}
		if !ok {
			continue
		}
		var want jsonapi.Resource
		if err := json.Unmarshal([]byte(c.raw), &want); err != nil {
			t.Fatalf("%s: %v", c.raw, err)
		}
		if !reflect.DeepEqual(r, &want) {
			t.Errorf("%s: resource %+v, want %+v", c.raw, r, &want)
		}
		var wantValue map[string]any
		if err := json.Unmarshal([]byte(c.raw), &wantValue); err != nil {
			t.Fatalf("%s: %v", c.raw, err)
		}
		delete(wantValue, "meta")
		if !reflect.DeepEqual(value, wantValue) {
			t.Errorf("%s: value %#v, want %#v", c.raw, value, wantValue)
		}
	}
}
