package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage"
)

// upsert is how a record finds the record it updates (oro-behaviour §9): by its
// identifier, or by one field the resource lists as an upsert criterion.
type upsert struct {
	byID  bool
	field *resource.Attribute
}

func readUpsert(res *resource.Resource, in *input, raw json.RawMessage, method string) (*upsert, error) {
	var on bool
	var fields []string
	switch {
	case json.Unmarshal(raw, &on) == nil:
		if !on {
			return nil, valueProblem(in, "upsert", "This value should be true or an array of field names.")
		}
		fields = []string{"id"}
	case json.Unmarshal(raw, &fields) != nil || len(fields) == 0:
		return nil, valueProblem(in, "upsert", "This value should be true or an array of field names.")
	}
	if len(res.Upsert) == 0 {
		return nil, valueProblem(in, "upsert", "The upsert operation is not allowed.")
	}
	if len(fields) > 1 {
		return nil, valueProblem(in, "upsert", "The upsert operation cannot use these fields to find an entity.")
	}
	name := fields[0]
	allowed := false
	for _, criterion := range res.Upsert {
		if len(criterion) == 1 && criterion[0] == name {
			allowed = true
		}
	}
	if name == "id" {
		switch {
		case !allowed && method == http.MethodPatch:
			return nil, valueProblem(in, "upsert", "The upsert operation is not supported for resources with auto-generated identifier value.")
		case !allowed:
			return nil, valueProblem(in, "upsert", "The upsert operation cannot use the entity identifier to find an entity.")
		case in.id == nil || *in.id == "":
			return nil, valueProblem(in, "upsert", `The "id" field does not exist in the request data.`)
		}
		return &upsert{byID: true}, nil
	}
	if method == http.MethodPatch {
		return nil, valueProblem(in, "upsert", "The upsert operation can find an entity only by its identifier here.")
	}
	a, ok := res.Attribute(name)
	switch {
	case !ok || a.WriteOnly:
		return nil, valueProblem(in, "upsert", fmt.Sprintf("The %q field is unknown.", name))
	case !allowed:
		return nil, valueProblem(in, "upsert", "The upsert operation cannot use this field to find an entity.")
	}
	if raw, sent := in.attrs[name]; !sent || isJSONNull(raw) {
		return nil, valueProblem(in, "upsert", fmt.Sprintf("The %q field does not exist in the request data.", name))
	}
	return &upsert{field: a}, nil
}

func isJSONNull(raw json.RawMessage) bool { return string(raw) == "null" }

func valueProblem(in *input, option, detail string) *problem.Problem {
	return problem.Constraint("value constraint", detail, in.base+"/meta/"+option)
}

// match finds the record an upsert updates, within the caller's organization:
// none (the record is created), one (it is updated), or several (409). In a
// transaction it first takes the lock of the criterion's value, so concurrent
// upserts of one new value create one record.
func (e *Engine) match(ctx context.Context, c *storage.Conn, cl *call, it *item) error {
	t := e.table(it.res)
	column, value := it.res.IDColumn, any(nil)
	if it.upsert.byID {
		k, err := key(it.res, *it.in.id)
		if err != nil {
			return err
		}
		value = k
	} else {
		column, value = it.upsert.field.Column, it.ch.row[it.upsert.field.Column]
	}
	if c.InTx() {
		if err := c.LockKey(ctx, fmt.Sprintf("upsert/%s/%d/%s/%v", t.Name, cl.org, column, value)); err != nil {
			return err
		}
	}
	rows, err := c.Find(ctx, storage.Query{Table: t, Org: cl.org, Where: []storage.Cond{{Column: column, Op: storage.Eq, Values: []any{value}}}, Limit: 2})
	if err != nil {
		return err
	}
	switch len(rows) {
	case 0:
		it.update, it.key, it.current = false, nil, nil
		if it.upsert.byID {
			it.ch.row[it.res.IDColumn] = value
		}
	case 1:
		it.update, it.key, it.current = true, rows[0][it.res.IDColumn], rows[0]
		delete(it.ch.row, it.res.IDColumn)
	default:
		return problem.Conflict("The upsert operation founds more than one entity.", "")
	}
	return nil
}
