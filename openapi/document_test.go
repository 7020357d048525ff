package openapi

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestPublicDocuments holds every public document to the bar of docs/decisions.md §2:
// described operations, parameters and responses, an example per media type, the
// common error responses, no default responses and no code-generation hints.
func TestPublicDocuments(t *testing.T) {
	for name, raw := range map[string][]byte{"backoffice": Backoffice, "storefront": Storefront} {
		t.Run(name, func(t *testing.T) {
			if strings.Contains(string(raw), "x-go-") {
				t.Error("the public document carries x-go-* hints")
			}
			doc, err := openapi3.NewLoader().LoadFromData(raw)
			if err != nil {
				t.Fatal(err)
			}
			if err := doc.Validate(context.Background()); err != nil {
				t.Fatal(err)
			}
			var problems []string
			for path, item := range doc.Paths.Map() {
				for method, op := range item.Operations() {
					for _, p := range operationProblems(path, item, op) {
						problems = append(problems, fmt.Sprintf("%s %s: %s", method, path, p))
					}
				}
			}
			sort.Strings(problems)
			for _, p := range problems {
				t.Error(p)
			}
		})
	}
}

func operationProblems(path string, item *openapi3.PathItem, op *openapi3.Operation) []string {
	var out []string
	if op.Summary == "" || op.Description == "" {
		out = append(out, "needs a summary and a description")
	}
	for _, p := range append(item.Parameters, op.Parameters...) {
		if p.Value.Description == "" {
			out = append(out, "parameter "+p.Value.Name+" has no description")
		}
	}
	if op.Responses.Default() != nil {
		out = append(out, "has a default response")
	}
	public := op.Security != nil && len(*op.Security) == 0
	want := []string{"400", "401", "403", "406", "429", "500"}
	if public {
		want = []string{"400", "429", "500"} // the token endpoint: OAuth's own errors
	}
	if strings.Contains(path, "{") {
		want = append(want, "404")
	}
	if op.RequestBody != nil && !public {
		want = append(want, "409", "413", "415")
	}
	if op.RequestBody != nil {
		for mt, c := range op.RequestBody.Value.Content {
			if c.Example == nil && len(c.Examples) == 0 {
				out = append(out, "request body "+mt+" has no example")
			}
		}
	}
	for _, code := range want {
		if op.Responses.Value(code) == nil {
			out = append(out, "does not document "+code)
		}
	}
	for code, r := range op.Responses.Map() {
		if r.Value.Description == nil || *r.Value.Description == "" {
			out = append(out, "response "+code+" has no description")
		}
		for mt, c := range r.Value.Content {
			if c.Example == nil && len(c.Examples) == 0 {
				out = append(out, "response "+code+" "+mt+" has no example")
			}
		}
		if _, ok := r.Value.Headers["X-Request-ID"]; !ok {
			out = append(out, "response "+code+" does not declare X-Request-ID")
		}
	}
	return out
}
