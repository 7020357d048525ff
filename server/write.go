package server

import (
	"context"
	"errors"
	"net/http"
	"strconv"

	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage"
)

// maxDeleteList caps a delete by filter (DESIGN.md §10).
const maxDeleteList = 1000

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
					list = append(list, problem.Unique(in.pointer(attributesMember, a.Name)))
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

// Create answers POST /api/{type}: the record, and the related records of the
// body's included array, in one transaction.
func (e *engine) Create(ctx context.Context, doc *jsonapi.Document, plain jsonapi.Object) (*jsonapi.Reply, error) {
	return e.save(ctx, doc, plain, false)
}

// Update answers PATCH /api/{type}/{id}: only the fields sent change; a to-many
// relationship sent is replaced as a whole.
func (e *engine) Update(ctx context.Context, doc *jsonapi.Document, plain jsonapi.Object) (*jsonapi.Reply, error) {
	return e.save(ctx, doc, plain, true)
}

func (e *engine) save(ctx context.Context, doc *jsonapi.Document, plain jsonapi.Object, update bool) (*jsonapi.Reply, error) {
	cl, err := e.begin(ctx)
	if err != nil {
		return nil, err
	}
	ctx = cl.c.Request.Context()
	res := cl.rt.res
	in, err := readInput(res, doc, plain)
	if err != nil {
		return nil, err
	}
	primary := &item{res: res, in: in, update: update}
	if update {
		if primary.current, err = e.load(ctx, cl, res, cl.c.Param("id")); err != nil {
			return nil, err
		}
		primary.key = primary.current[res.IDColumn]
	} else if !res.IntID {
		if in.id == nil || *in.id == "" {
			return nil, problem.Constraint("entity identifier constraint", "The identifier is mandatory.", in.pointer(idMember, "id"))
		}
	}
	set, err := e.newItemSet(ctx, cl, primary, doc)
	if err != nil {
		return nil, err
	}
	if err := e.prepare(ctx, cl, set); err != nil {
		return nil, err
	}
	if !update && !res.IntID {
		primary.ch.row[res.IDColumn] = *in.id
	}
	if err := e.write(ctx, cl, set); err != nil {
		return nil, err
	}
	row, err := e.store.Get(ctx, e.table(res), cl.org, primary.key)
	if err != nil {
		return nil, err
	}
	extra, err := e.includedObjects(ctx, cl, set)
	if err != nil {
		return nil, err
	}
	status := http.StatusOK
	if !update {
		status = http.StatusCreated
	}
	reply, err := e.single(ctx, cl, res, row, &listParams{}, status, extra...)
	if err != nil {
		return nil, err
	}
	if !update {
		reply.Header = http.Header{"Location": {cl.link(res.Type, keyString(primary.key))}}
	}
	return reply, nil
}

func (e *engine) replaceLinks(ctx context.Context, c *storage.Conn, rel *resource.Relationship, owner any, keys []any) error {
	j := e.joins[rel.Through.Table]
	if err := c.UnlinkAll(ctx, j, rel.Through.Column, owner); err != nil {
		return err
	}
	return c.Link(ctx, j, joinPairs(j, rel, owner, keys))
}

// joinPairs orders (owner, member) pairs as the join table's (left, right).
func joinPairs(j *storage.JoinTable, rel *resource.Relationship, owner any, keys []any) [][2]any {
	pairs := make([][2]any, len(keys))
	for i, k := range keys {
		if j.Left == rel.Through.Column {
			pairs[i] = [2]any{owner, k}
		} else {
			pairs[i] = [2]any{k, owner}
		}
	}
	return pairs
}

// Delete answers DELETE /api/{type}/{id}.
func (e *engine) Delete(ctx context.Context) (*jsonapi.Reply, error) {
	cl, err := e.begin(ctx)
	if err != nil {
		return nil, err
	}
	ctx = cl.c.Request.Context()
	k, err := key(cl.rt.res, cl.c.Param("id"))
	if err != nil {
		return nil, err
	}
	if err := e.store.Delete(ctx, e.table(cl.rt.res), cl.org, k); err != nil {
		if errors.Is(err, storage.ErrNotFound) {
			return nil, problem.NotFound()
		}
		return nil, writeProblem(cl.rt.res, &input{}, err)
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
	ctx = cl.c.Request.Context()
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
		return nil, writeProblem(res, &input{}, err)
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
