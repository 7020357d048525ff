package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage"
)

// maxDeleteList caps a delete by filter (DESIGN.md §10).
const maxDeleteList = 1000

// input is a request body in either format, reduced to what the engine writes.
type input struct {
	id      *string
	attrs   map[string]json.RawMessage
	rels    map[string]jsonapi.Relationship
	pointer func(member, name string) string // where a field is in the body
}

func readInput(res *resource.Resource, doc *jsonapi.Document, plain jsonapi.Object) (*input, error) {
	if doc != nil {
		r, err := doc.Primary()
		if err != nil {
			return nil, problem.RequestData("The primary data object should exist.", "/data")
		}
		return &input{id: r.ID, attrs: r.Attributes, rels: r.Relationships, pointer: func(member, name string) string {
			if member == "relationships" {
				return "/data/relationships/" + name + "/data"
			}
			return "/data/" + member + "/" + name
		}}, nil
	}
	in := &input{attrs: map[string]json.RawMessage{}, rels: map[string]jsonapi.Relationship{},
		pointer: func(_, name string) string { return "/" + name }}
	for name, raw := range plain {
		switch _, isRel := res.Relationship(name); {
		case name == "id":
			var s string
			if json.Unmarshal(raw, &s) != nil {
				s = string(bytes.TrimSpace(raw))
			}
			in.id = &s
		case isRel:
			in.rels[name] = plainLinkage(res, name, raw)
		default:
			in.attrs[name] = raw
		}
	}
	return in, nil
}

// plainLinkage turns an inline related identifier into a relationship.
func plainLinkage(res *resource.Resource, name string, raw json.RawMessage) jsonapi.Relationship {
	rel, _ := res.Relationship(name)
	if jsonapi.IsNull(raw) {
		return jsonapi.Relationship{Data: json.RawMessage("null")}
	}
	id := string(bytes.Trim(bytes.TrimSpace(raw), `"`))
	b, _ := json.Marshal(jsonapi.Identifier{Type: rel.Target, ID: id})
	return jsonapi.Relationship{Data: b}
}

// values converts the body's fields into column values and checks that every
// related record exists in the caller's organization.
func (e *engine) values(ctx context.Context, cl *call, res *resource.Resource, in *input) (storage.Row, error) {
	row := storage.Row{}
	var errs problem.List
	for name, raw := range in.attrs {
		a, ok := res.Attribute(name)
		if !ok || a.ReadOnly {
			errs = append(errs, problem.ExtraFields(in.pointer("attributes", "")[:len(in.pointer("attributes", ""))-1], name))
			continue
		}
		v, err := storageValue(a.Type, raw)
		if err != nil {
			errs = append(errs, problem.Constraint("type constraint", "This value is not valid.", in.pointer("attributes", name)))
			continue
		}
		row[a.Column] = v
	}
	for name, r := range in.rels {
		rel, ok := res.Relationship(name)
		if !ok || rel.ToMany {
			errs = append(errs, problem.ExtraFields("/data/relationships", name))
			continue
		}
		ids, _, err := r.Linkage()
		if err != nil {
			errs = append(errs, problem.RequestData("The relationship data is not valid.", in.pointer("relationships", name)))
			continue
		}
		if len(ids) == 0 {
			row[rel.Column] = nil
			continue
		}
		target, _ := e.reg.Get(rel.Target)
		k, err := key(target, ids[0].ID)
		if err == nil {
			_, err = e.store.Get(ctx, e.table(target), cl.org, k)
		}
		if err != nil {
			if _, isProblem := problem.From(err); isProblem || errors.Is(err, storage.ErrNotFound) {
				errs = append(errs, problem.MissingRelated(in.pointer("relationships", name)))
				continue
			}
			return nil, err
		}
		row[rel.Column] = k
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return row, nil
}

// storageValue decodes one attribute value for storage.
func storageValue(t resource.FieldType, raw json.RawMessage) (any, error) {
	if jsonapi.IsNull(raw) {
		return nil, nil
	}
	switch t {
	case resource.String:
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	case resource.Integer:
		var n int64
		err := json.Unmarshal(raw, &n)
		return n, err
	case resource.Number:
		var f float64
		err := json.Unmarshal(raw, &f)
		return f, err
	case resource.Boolean:
		var b bool
		err := json.Unmarshal(raw, &b)
		return b, err
	case resource.DateTime, resource.Date:
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		layout := time.RFC3339
		if t == resource.Date {
			layout = dateLayout
		}
		tm, err := time.Parse(layout, s)
		return tm.UTC().Truncate(time.Second), err
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, err
	}
	return json.RawMessage(buf.Bytes()), nil
}

// writeProblem maps a storage write error to what the client did wrong.
func writeProblem(res *resource.Resource, in *input, err error) error {
	var ue *storage.UniqueError
	if errors.As(err, &ue) {
		if len(ue.Columns) == 1 && ue.Columns[0] == res.IDColumn {
			return problem.Conflict("The entity already exists.", "")
		}
		var list problem.List
		for _, col := range ue.Columns {
			for _, a := range res.Attributes {
				if a.Column == col {
					list = append(list, problem.Unique(in.pointer("attributes", a.Name)))
				}
			}
		}
		if len(list) > 0 {
			return list
		}
		return problem.Conflict("The entity already exists.", "")
	}
	var fe *storage.ForeignKeyError
	if errors.As(err, &fe) {
		return problem.Constraint("form constraint", "A related entity does not exist.", "")
	}
	return err
}

// Create answers POST /api/{type}.
func (e *engine) Create(ctx context.Context, doc *jsonapi.Document, plain jsonapi.Object) (*jsonapi.Reply, error) {
	cl, err := e.begin(ctx)
	if err != nil {
		return nil, err
	}
	res := cl.rt.res
	in, err := readInput(res, doc, plain)
	if err != nil {
		return nil, err
	}
	row, err := e.values(ctx, cl, res, in)
	if err != nil {
		return nil, err
	}
	if !res.IntID {
		if in.id == nil || *in.id == "" {
			return nil, problem.Constraint("entity identifier constraint", "The identifier is mandatory.", in.pointer("", "id")[:len(in.pointer("", "id"))])
		}
		row[res.IDColumn] = *in.id
	}
	k, err := e.store.Insert(ctx, e.table(res), cl.org, row)
	if err != nil {
		return nil, writeProblem(res, in, err)
	}
	created, err := e.store.Get(ctx, e.table(res), cl.org, k)
	if err != nil {
		return nil, err
	}
	p := &listParams{}
	reply, err := e.single(ctx, cl, res, created, p, http.StatusCreated)
	if err != nil {
		return nil, err
	}
	reply.Header = http.Header{"Location": {cl.link(res.Type, keyString(k))}}
	return reply, nil
}

// Update answers PATCH /api/{type}/{id}: only the fields sent change.
func (e *engine) Update(ctx context.Context, doc *jsonapi.Document, plain jsonapi.Object) (*jsonapi.Reply, error) {
	cl, err := e.begin(ctx)
	if err != nil {
		return nil, err
	}
	res := cl.rt.res
	current, err := e.load(ctx, cl, res, cl.c.Param("id"))
	if err != nil {
		return nil, err
	}
	in, err := readInput(res, doc, plain)
	if err != nil {
		return nil, err
	}
	row, err := e.values(ctx, cl, res, in)
	if err != nil {
		return nil, err
	}
	k := current[res.IDColumn]
	if err := e.store.Update(ctx, e.table(res), cl.org, k, row); err != nil {
		if errors.Is(err, storage.ErrNotFound) {
			return nil, problem.NotFound()
		}
		return nil, writeProblem(res, in, err)
	}
	updated, err := e.store.Get(ctx, e.table(res), cl.org, k)
	if err != nil {
		return nil, err
	}
	return e.single(ctx, cl, res, updated, &listParams{}, http.StatusOK)
}

// Delete answers DELETE /api/{type}/{id}.
func (e *engine) Delete(ctx context.Context) (*jsonapi.Reply, error) {
	cl, err := e.begin(ctx)
	if err != nil {
		return nil, err
	}
	k, err := key(cl.rt.res, cl.c.Param("id"))
	if err != nil {
		return nil, err
	}
	if err := e.store.Delete(ctx, e.table(cl.rt.res), cl.org, k); err != nil {
		if errors.Is(err, storage.ErrNotFound) {
			return nil, problem.NotFound()
		}
		return nil, writeProblem(cl.rt.res, &input{pointer: func(string, string) string { return "" }}, err)
	}
	return &jsonapi.Reply{Status: http.StatusNoContent}, nil
}

// DeleteList answers DELETE /api/{type}?filter[...]: at least one filter, at most
// maxDeleteList matches, all or nothing.
func (e *engine) DeleteList(ctx context.Context) (*jsonapi.Reply, error) {
	cl, err := e.begin(ctx)
	if err != nil {
		return nil, err
	}
	res := cl.rt.res
	p, err := e.parseList(cl.c.Request.URL.Query(), res, cl.f)
	if err != nil {
		return nil, err
	}
	if !p.filtered {
		return nil, problem.Filter("filter", "At least one filter must be provided.")
	}
	q := storage.Query{Table: e.table(res), Org: cl.org, Where: p.where}
	n, err := e.store.DeleteWhere(ctx, q, maxDeleteList)
	if errors.Is(err, storage.ErrTooMany) {
		return nil, problem.Filter("filter", "More than 1000 records match the filters; nothing was deleted.")
	}
	if err != nil {
		return nil, writeProblem(res, &input{pointer: func(string, string) string { return "" }}, err)
	}
	reply := &jsonapi.Reply{Status: http.StatusNoContent, Header: http.Header{}}
	if cl.xinclude["deletedCount"] {
		reply.Header.Set("X-Include-Deleted-Count", strconv.Itoa(n))
	}
	if cl.xinclude["totalCount"] {
		reply.Header.Set("X-Include-Total-Count", strconv.Itoa(n))
	}
	return reply, nil
}
