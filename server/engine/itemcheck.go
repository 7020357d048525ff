package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/problem"
)

// itemSchemas holds, per resource type, the schema of the resource object a
// create and an update accept: the one item validator that checks records sent
// inside another request (included records now, batch items later) exactly as a
// request of their own would be checked.
type itemSchemas struct {
	create, update map[string]*openapi3.Schema
}

func newItemSchemas(routes *RouteTable) *itemSchemas {
	s := &itemSchemas{create: map[string]*openapi3.Schema{}, update: map[string]*openapi3.Schema{}}
	for _, rt := range routes.byKey {
		body := rt.kin.Operation.RequestBody
		if body == nil || body.Value == nil {
			continue
		}
		mt := body.Value.Content.Get(jsonapi.MediaType)
		if mt == nil || mt.Schema == nil || mt.Schema.Value == nil {
			continue
		}
		data := mt.Schema.Value.Properties["data"]
		if data == nil || data.Value == nil {
			continue
		}
		switch {
		case rt.kind == collectionRoute && rt.method == http.MethodPost:
			s.create[rt.res.Type] = data.Value
		case rt.kind == itemRoute && rt.method == http.MethodPatch:
			s.update[rt.res.Type] = data.Value
		}
	}
	return s
}

// checkItem validates one resource object found at base in the body against
// the create or update schema of its type. The meta member of an item, and the
// client's temporary id of a new record whose id the server generates, are the
// request's business, not the resource's; where the client chooses the id
// (weightunits), the create schema declares it and it is checked like the rest.
func (e *Engine) checkItem(raw json.RawMessage, typ string, update bool, base string) []*problem.Problem {
	schema, out := e.itemSchema(typ, update, base)
	if out != nil {
		return out
	}
	var value map[string]any
	if err := json.Unmarshal(raw, &value); err != nil {
		return []*problem.Problem{problem.RequestData("The item should be an object.", base)}
	}
	return checkDecoded(schema, value, update, base)
}

// itemSchema is the create or update schema of typ, or the problem of an
// action the type does not allow.
func (e *Engine) itemSchema(typ string, update bool, base string) (*openapi3.Schema, []*problem.Problem) {
	schemas, action := e.items.create, "create"
	if update {
		schemas, action = e.items.update, "update"
	}
	schema := schemas[typ]
	if schema == nil {
		return nil, []*problem.Problem{problem.RequestData(fmt.Sprintf("The %q action is not allowed for %s.", action, typ), base)}
	}
	return schema, nil
}

// checkDecoded is checkItem on the item already decoded (value, which it
// changes), as a batch chunk reads it (decodeItem).
func checkDecoded(schema *openapi3.Schema, value map[string]any, update bool, base string) []*problem.Problem {
	delete(value, "meta")
	if _, declared := schema.Properties["id"]; !update && !declared {
		delete(value, "id")
	}
	if out := visitSchema(schema, value, base, base, func() *problem.Problem {
		return problem.RequestData("The item is not valid.", base)
	}); out != nil {
		return out
	}
	if p := nulProblem(value, base); p != nil {
		return []*problem.Problem{p} // as a request of its own (refuseNUL)
	}
	return nil
}

// visitSchema checks value against schema and turns each failure into the
// problems of docs/decisions.md §3's table, pointing below root (the value's own
// pointer) within the item at object; a failure that is not a schema error
// becomes other(). No failure is nil. A batch item (checkItem) and a batch
// password checked before staging (sealValue) report alike through it.
func visitSchema(schema *openapi3.Schema, value any, root, object string, other func() *problem.Problem) []*problem.Problem {
	err := schema.VisitJSON(value, openapi3.MultiErrors())
	if err == nil {
		return nil
	}
	var out []*problem.Problem
	for _, e := range flattenErrors(err) {
		var se *openapi3.SchemaError
		if errors.As(e, &se) {
			out = append(out, schemaProblems(se, JSONAPI, root, object)...)
		} else {
			out = append(out, other())
		}
	}
	return out
}
