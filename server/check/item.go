package check

import (
	"encoding/json"
	"errors"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/entityapi/entityapi/server/problem"
)

// A record can come inside another request: an included record of a single
// write, an item of a batch. It is checked against the schema of the
// resource object its own create or update would take, and its problems are
// worded and placed as that request's would be, below the item's pointer.

// Item validates one resource object found at base in the body against
// schema, the create or update schema of its type. The meta member of an
// item, and the client's temporary id of a new record whose id the server
// generates, are the request's business, not the resource's; where the
// client chooses the id (weightunits), the create schema declares it and it
// is checked like the rest.
func Item(schema *openapi3.Schema, raw json.RawMessage, update bool, base string) []*problem.Problem {
	var value map[string]any
	if err := json.Unmarshal(raw, &value); err != nil {
		return []*problem.Problem{problem.RequestData("The item should be an object.", base)}
	}
	return Decoded(schema, value, update, base)
}

// Decoded is Item on the item already decoded (value, which it changes), as
// a batch chunk reads it.
func Decoded(schema *openapi3.Schema, value map[string]any, update bool, base string) []*problem.Problem {
	delete(value, "meta")
	if _, declared := schema.Properties["id"]; !update && !declared {
		delete(value, "id")
	}
	if out := Visit(schema, value, base, base, func() *problem.Problem {
		return problem.RequestData("The item is not valid.", base)
	}); out != nil {
		return out
	}
	if p := nulProblem(value, base); p != nil {
		return []*problem.Problem{p} // as a request of its own (RefuseNUL)
	}
	return nil
}

// Visit checks value against schema and turns each failure into the
// problems of docs/decisions.md §3's table, pointing below root (the value's
// own pointer) within the item at object; a failure that is not a schema
// error becomes other(). No failure is nil. A batch item (Item) and a batch
// password checked before staging report alike through it.
func Visit(schema *openapi3.Schema, value any, root, object string, other func() *problem.Problem) []*problem.Problem {
	err := schema.VisitJSON(value, openapi3.MultiErrors())
	if err == nil {
		return nil
	}
	var out []*problem.Problem
	for _, e := range flattenErrors(err) {
		var se *openapi3.SchemaError
		if errors.As(e, &se) {
			out = append(out, schemaProblems(se, true, root, object)...)
		} else {
			out = append(out, other())
		}
	}
	return out
}
