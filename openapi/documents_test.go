package openapi

import (
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// eachDocumentJSON runs fn, as a subtest per application, on the bundled
// document as kin-openapi loads and writes it back as JSON: every $ref
// resolved the way generators read them, for tests that walk the tree.
func eachDocumentJSON(t *testing.T, fn func(t *testing.T, js []byte)) {
	for name, raw := range map[string][]byte{"backoffice": Backoffice, "storefront": Storefront} {
		t.Run(name, func(t *testing.T) {
			doc, err := openapi3.NewLoader().LoadFromData(raw)
			if err != nil {
				t.Fatal(err)
			}
			js, err := doc.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			fn(t, js)
		})
	}
}
