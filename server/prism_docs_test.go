package server_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// The media types of the two formats.
const (
	mediaJSONAPI = "application/vnd.api+json"
	mediaPlain   = "application/json"
)

// prismDocument writes, for one application and one format, the copy of the public
// document that a Prism proxy validates against, and returns its file name. Prism
// picks a response schema by media-type suffix, so an operation that lists both
// formats would have its JSON:API answers checked against the plain schema: each
// format gets its own Prism and a copy that keeps only that format's content where an
// operation offers both. Shared responses (#/components/responses) are inlined before
// that, so every documented status stays visible. The copy's paths carry the
// application's base (its only server), so Prism needs no servers list.
func prismDocument(t *testing.T, app string, raw []byte, base, format, dir string) string {
	t.Helper()
	js, err := loadDoc(t, raw).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(js, &doc); err != nil {
		t.Fatal(err)
	}
	components, _ := doc["components"].(map[string]any)
	shared, _ := components["responses"].(map[string]any)
	paths := map[string]any{}
	for path, item := range doc["paths"].(map[string]any) {
		for _, op := range item.(map[string]any) {
			op, ok := op.(map[string]any)
			if !ok {
				continue // the path item's parameters
			}
			if body, ok := op["requestBody"].(map[string]any); ok {
				keepFormat(body, format)
			}
			responses, _ := op["responses"].(map[string]any)
			for status, r := range responses {
				r := r.(map[string]any)
				if ref, ok := r["$ref"].(string); ok {
					r = deepCopy(t, shared[strings.TrimPrefix(ref, "#/components/responses/")]).(map[string]any)
					responses[status] = r
				}
				keepFormat(r, format)
			}
		}
		paths[strings.TrimSuffix(base, "/")+path] = item
	}
	doc["paths"] = paths
	delete(doc, "servers")
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(dir, app+"-"+strings.ReplaceAll(format, "/", "-")+".json")
	if err := os.WriteFile(name, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return name
}

// loadDoc loads a public document.
func loadDoc(t *testing.T, raw []byte) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

// keepFormat drops the other format's media type from a request body or response
// that lists both; one that lists a single media type (a token request, a JSON:API
// relationship endpoint) is kept as it is.
func keepFormat(holder map[string]any, format string) {
	content, _ := holder["content"].(map[string]any)
	if content[mediaJSONAPI] == nil || content[mediaPlain] == nil {
		return
	}
	for mediaType := range content {
		if mediaType != format {
			delete(content, mediaType)
		}
	}
}

// deepCopy copies a decoded JSON value, so that a shared response inlined in many
// operations is filtered once per operation.
func deepCopy(t *testing.T, v any) any {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
