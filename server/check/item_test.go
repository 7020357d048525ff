package check_test

import (
	"encoding/json"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/entityapi/entityapi/server/check"
)

// itemSchema is the resource object of a create whose id the server
// generates: a type, attributes with a required name of at most 5
// characters, nothing else.
func itemSchema(t *testing.T) *openapi3.Schema {
	t.Helper()
	var s openapi3.Schema
	err := json.Unmarshal([]byte(`{"type": "object", "required": ["type", "attributes"], "additionalProperties": false,
		"properties": {"type": {"type": "string"}, "attributes": {"type": "object", "required": ["name"],
		"additionalProperties": false, "properties": {"name": {"type": "string", "maxLength": 5}}}}}`), &s)
	if err != nil {
		t.Fatal(err)
	}
	return &s
}

// TestItem: an item sent inside another request is checked as its own
// request's resource object would be, with the problems placed below the
// item; its meta and the temporary id of a record the server numbers are not
// the resource's, and a NUL in a string is refused as in a body of its own.
func TestItem(t *testing.T) {
	t.Parallel()
	schema := itemSchema(t)
	for _, tc := range []struct {
		name, raw      string
		update         bool
		title, pointer string // of the one problem; "" for none
	}{
		{name: "valid", raw: `{"type": "x", "attributes": {"name": "ab"}, "meta": {"upsert": true}, "id": "tmp-1"}`},
		{name: "not an object", raw: `[1]`, title: "request data constraint", pointer: "/included/0"},
		{name: "too long", raw: `{"type": "x", "attributes": {"name": "abcdef"}}`,
			title: "length constraint", pointer: "/included/0/attributes/name"},
		{name: "missing", raw: `{"type": "x", "attributes": {}}`,
			title: "not blank constraint", pointer: "/included/0/attributes/name"},
		{name: "extra", raw: `{"type": "x", "attributes": {"name": "a", "color": "red"}}`,
			title: "extra fields constraint", pointer: "/included/0/attributes"},
		{name: "id of an update is the resource's", raw: `{"type": "x", "id": "7", "attributes": {"name": "a"}}`, update: true,
			title: "request data constraint", pointer: "/included/0/id"},
		{name: "NUL", raw: `{"type": "x", "attributes": {"name": "a\u0000"}}`,
			title: "value constraint", pointer: "/included/0/attributes/name"},
	} {
		got := check.Item(schema, json.RawMessage(tc.raw), tc.update, "/included/0")
		if tc.title == "" {
			if got != nil {
				t.Errorf("%s: %v", tc.name, got)
			}
			continue
		}
		if len(got) != 1 || got[0].Title != tc.title || got[0].Pointer != tc.pointer {
			for _, p := range got {
				t.Logf("%s: %q at %q: %s", tc.name, p.Title, p.Pointer, p.Detail)
			}
			t.Errorf("%s: want one %q at %q", tc.name, tc.title, tc.pointer)
		}
	}
}
