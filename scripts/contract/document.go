package main

import (
	"bytes"
	"encoding/json"
)

// prepareDocument is the served document as Portman is given it: the same,
// but for one Portman bug worked around. Portman 1.33 compiles a response
// schema as JSON Schema (draft 7) without translating OpenAPI 3.0's boolean
// `exclusiveMinimum` and `exclusiveMaximum` (`minimum: 0, exclusiveMinimum:
// true`, the weight units' conversion rates), finds the schema invalid, and
// leaves that operation's response unchecked. The copy says the same in
// JSON Schema's words: `exclusiveMinimum: 0`, and `exclusiveMinimum: false`
// dropped. checkCollection then holds every operation to a schema check.
func prepareDocument(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber() // numbers as written, not rounded through float64
	var doc any
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	exclusiveBounds(doc)
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// exclusiveBounds rewrites, in every object under v, a boolean
// exclusiveMinimum (exclusiveMaximum) with its minimum (maximum) into the
// numeric form.
func exclusiveBounds(v any) {
	switch v := v.(type) {
	case map[string]any:
		for _, b := range [][2]string{{"exclusiveMinimum", "minimum"}, {"exclusiveMaximum", "maximum"}} {
			exclusive, ok := v[b[0]].(bool)
			if !ok {
				continue
			}
			delete(v, b[0])
			if bound, ok := v[b[1]]; ok && exclusive {
				v[b[0]] = bound
				delete(v, b[1])
			}
		}
		for _, x := range v {
			exclusiveBounds(x)
		}
	case []any:
		for _, x := range v {
			exclusiveBounds(x)
		}
	}
}
