package server

import (
	"strings"
	"testing"

	"github.com/entityapi/entityapi/openapi"
)

// TestLoadDocument: a document is loaded and validated once per process and
// shared; a text that is not a valid document is refused with why.
func TestLoadDocument(t *testing.T) {
	t.Parallel()
	first, err := loadDocument(openapi.Storefront)
	if err != nil {
		t.Fatal(err)
	}
	again, err := loadDocument(append([]byte(nil), openapi.Storefront...))
	if err != nil || again != first {
		t.Errorf("the same text loaded again gave %p (%v), want the first load %p", again, err, first)
	}
	for _, tc := range []struct{ name, text, want string }{
		{"not YAML", "openapi: [3.0.3", "load document"},
		{"not a valid document", "openapi: 3.0.3\ninfo: {title: x}\npaths: {}\n", "document: "},
	} {
		doc, err := loadDocument([]byte(tc.text))
		if err == nil || doc != nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: loadDocument = %v, %v; want an error containing %q", tc.name, doc, err, tc.want)
		}
	}
}
