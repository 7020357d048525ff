package resource

import (
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// TestAggregateDeclarations: a wrong x-aggregate fails when the document is
// read, naming what is wrong, rather than as a database error on a request.
func TestAggregateDeclarations(t *testing.T) {
	for _, tc := range []struct {
		name   string
		schema *openapi3.Schema
		fns    []any
		err    string // "" when the declaration is sound
	}{
		{name: "every function on an integer", schema: openapi3.NewIntegerSchema(), fns: []any{"count", "sum", "avg", "min", "max"}},
		{name: "min and max on a date", schema: openapi3.NewStringSchema().WithFormat("date"), fns: []any{"min", "max"}},
		{name: "count on a boolean", schema: openapi3.NewBoolSchema(), fns: []any{"count"}},
		{name: "sum on a string", schema: openapi3.NewStringSchema(), fns: []any{"sum"}, err: `"sum" does not apply`},
		{name: "avg on a date-time", schema: openapi3.NewDateTimeSchema(), fns: []any{"avg"}, err: `"avg" does not apply`},
		{name: "min on a boolean", schema: openapi3.NewBoolSchema(), fns: []any{"min"}, err: `"min" does not apply`},
		{name: "count on a list", schema: openapi3.NewArraySchema().WithItems(openapi3.NewStringSchema()), fns: []any{"count"}, err: `"count" does not apply`},
		{name: "an unknown function", schema: openapi3.NewIntegerSchema(), fns: []any{"median"}, err: `unknown function "median"`},
		{name: "a function twice", schema: openapi3.NewIntegerSchema(), fns: []any{"sum", "sum"}, err: "named twice"},
		{name: "a localized attribute", schema: func() *openapi3.Schema {
			s := openapi3.NewStringSchema()
			s.Extensions = map[string]any{"x-localized": map[string]any{"de": "name_de"}}
			return s
		}(), fns: []any{"count"}, err: "localized"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.schema.Extensions == nil {
				tc.schema.Extensions = map[string]any{}
			}
			tc.schema.Extensions["x-aggregate"] = tc.fns
			a, err := attribute("field", tc.schema)
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.err == "" && len(a.Aggregate) != len(tc.fns):
				t.Fatalf("aggregate %v, want %v", a.Aggregate, tc.fns)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("error %v, want one saying %q", err, tc.err)
			}
		})
	}
}
