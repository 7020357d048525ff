package engine

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/entityapi/entityapi/server/check"
	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/problem"
)

// itemSchemas holds, per resource type, the schema of the resource object a
// create and an update accept, as the routes of the type's create and update
// declare it: records sent inside another request (included records, batch
// items) are checked against it (server/check, item.go) exactly as a request
// of their own would be checked.
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
// the create or update schema of its type (check.Item).
func (e *Engine) checkItem(raw json.RawMessage, typ string, update bool, base string) []*problem.Problem {
	schema, out := e.itemSchema(typ, update, base)
	if out != nil {
		return out
	}
	return check.Item(schema, raw, update, base)
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
