package engine

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

// maxDeleteList caps a delete by filter (docs/decisions.md §10).
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
		// a related record deleted since the write checked it: the 404 of
		// problem.MissingRelated, without a pointer the database cannot give
		p := problem.MissingRelated("")
		p.Detail = "A related entity does not exist."
		return p
	}
	return err
}

// Create answers POST /api/{type}: the record, and the related records of the
// body's included array, in one transaction.
func (e *Engine) Create(r *Request, doc *jsonapi.Document, plain jsonapi.Object) (*jsonapi.Reply, error) {
	return e.save(r, doc, plain, false)
}

// Update answers PATCH /api/{type}/{id}: only the fields sent change; a to-many
// relationship sent is replaced as a whole.
func (e *Engine) Update(r *Request, doc *jsonapi.Document, plain jsonapi.Object) (*jsonapi.Reply, error) {
	return e.save(r, doc, plain, true)
}

func (e *Engine) save(r *Request, doc *jsonapi.Document, plain jsonapi.Object, update bool) (*jsonapi.Reply, error) {
	cl, err := e.begin(r)
	if err != nil {
		return nil, err
	}
	res := cl.rt.res
	in, err := readInput(res, doc, plain)
	if err != nil {
		return nil, err
	}
	opts, err := readMeta(res, in, true, cl.rt.method)
	if err != nil {
		return nil, err
	}
	if opts.validate {
		return e.dryRun(cl, func(cl *call) (*jsonapi.Reply, error) {
			return e.saveItem(cl, doc, in, opts.upsert, update)
		})
	}
	return e.saveItem(cl, doc, in, opts.upsert, update)
}

// saveItem writes the request's primary record (and its included ones) and
// answers it.
func (e *Engine) saveItem(cl *call, doc *jsonapi.Document, in *input, up *upsert, update bool) (*jsonapi.Reply, error) {
	ctx, res := cl.ctx, cl.rt.res
	primary := &item{res: res, in: in, update: update, upsert: up}
	var err error
	if primary.expect, err = readVersion(in, update, primary.upsert); err != nil {
		return nil, err
	}
	if update {
		if primary.ifMatch, err = readIfMatch(cl); err != nil {
			return nil, err
		}
	}
	pre := primary.ifMatch
	// An update that needs nothing of the record but its key (no business
	// rule reads it, no included record) does not read it first: the UPDATE
	// finds it or answers 404. checkLater makes the other answers the same:
	// a request the record's absence would have stopped is 404, whatever
	// else is wrong with it.
	checkLater := false
	switch {
	case primary.upsert != nil:
	case update && rules[res.Type] == nil && !hasIncluded(doc):
		if primary.key, err = e.visibleKey(cl, res, cl.id); err != nil {
			return nil, missingAsPrecondition(pre, err)
		}
		checkLater = true
	case update:
		if primary.current, err = e.load(ctx, cl, res, cl.id); err != nil {
			return nil, missingAsPrecondition(pre, err)
		}
		primary.key = primary.current[res.IDColumn]
	case res.IntID && in.id != nil:
		return nil, problem.ClientIDDenied(in.pointer(idMember, "id"))
	case !res.IntID && (in.id == nil || *in.id == ""):
		return nil, problem.Constraint("entity identifier constraint", "The identifier is mandatory.", in.pointer(idMember, "id"))
	}
	set, err := e.newItemSet(ctx, cl, primary, doc)
	if err != nil {
		return nil, err
	}
	if set.present, err = e.lookAhead(ctx, cl, set); err != nil {
		return nil, err
	}
	if err := e.prepare(ctx, cl, set); err != nil {
		if _, isProblem := problem.From(err); isProblem && checkLater {
			if _, missing := e.load(ctx, cl, res, cl.id); missing != nil {
				return nil, missingAsPrecondition(pre, missing)
			}
		}
		return nil, err
	}
	if primary.keepsClientID() {
		primary.ch.row[res.IDColumn] = *in.id
	}
	if err := e.write(ctx, cl, set); err != nil {
		return nil, missingAsPrecondition(pre, err)
	}
	row, err := e.writtenRow(ctx, cl, primary)
	if err != nil {
		return nil, err
	}
	links, err := e.answerLinkage(ctx, cl, set, row)
	if err != nil {
		return nil, err
	}
	extra, err := e.includedObjects(ctx, cl, set)
	if err != nil {
		return nil, err
	}
	status := http.StatusOK
	if !primary.update {
		status = http.StatusCreated
	}
	reply, err := e.singleLinked(ctx, cl, res, row, links, &listParams{}, status, extra...)
	if err != nil {
		return nil, err
	}
	if !primary.update {
		reply.Header = http.Header{"Location": {cl.link(res.Type, keyString(primary.key))}}
	}
	return reply, nil
}

func (e *Engine) replaceLinks(ctx context.Context, c *storage.Conn, rel *resource.Relationship, owner any, keys []any) error {
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
func (e *Engine) Delete(r *Request) (*jsonapi.Reply, error) {
	cl, err := e.begin(r)
	if err != nil {
		return nil, err
	}
	ctx := cl.ctx
	pre, err := readIfMatch(cl)
	if err != nil {
		return nil, err
	}
	k, err := key(cl.rt.res, cl.id)
	if err != nil {
		return nil, missingAsPrecondition(pre, err)
	}
	t := e.table(cl.rt.res)
	// The event first, so that it reads the version the record had; a
	// record that is not there rolls it back with the DELETE. On PostgreSQL
	// a DELETE without If-Match records it in its own statement.
	events := []storage.Event{cl.event(t, cl.rt.res, k, storage.EventDeleted)}
	if pre == nil && cl.db.NotesInline() {
		err = cl.db.Noting(events[0]).Delete(ctx, t, cl.org, k)
	} else {
		err = cl.db.Atomic(ctx, func(c *storage.Conn) error {
			if pre != nil {
				if err := pre.check(ctx, c, t, cl.org, k); err != nil {
					return err
				}
			}
			if err := c.RecordEvents(ctx, events); err != nil {
				return err
			}
			return c.Delete(ctx, t, cl.org, k)
		})
	}
	if err != nil {
		if errors.Is(err, storage.ErrNotFound) {
			return nil, missingAsPrecondition(pre, problem.NotFound())
		}
		if _, isProblem := problem.From(err); isProblem {
			return nil, err
		}
		return nil, writeProblem(cl.rt.res, &input{}, err)
	}
	return &jsonapi.Reply{Status: http.StatusNoContent}, nil
}

// DeleteList answers DELETE /api/{type}?filter[...]: at least one filter, at most
// maxDeleteList matches, all or nothing.
func (e *Engine) DeleteList(r *Request) (*jsonapi.Reply, error) {
	cl, err := e.begin(r)
	if err != nil {
		return nil, err
	}
	ctx := cl.ctx
	res := cl.rt.res
	p, err := e.parseList(cl, res)
	if err != nil {
		return nil, err
	}
	if p.aggs != nil {
		return nil, problem.Filter(aggregationsKey, "Aggregations are answered by lists, not by deletes.")
	}
	if !p.filtered {
		return nil, problem.Filter("filter", "At least one filter must be provided.")
	}
	q := storage.Query{Table: e.table(res), Org: cl.org, Where: p.where}
	ev := cl.event(q.Table, res, nil, storage.EventDeleted)
	n, err := cl.db.DeleteWhere(ctx, q, maxDeleteList, &ev)
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
