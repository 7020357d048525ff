package engine

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage"
)

// Get answers GET /api/{type}/{id}.
func (e *Engine) Get(r *Request) (*jsonapi.Reply, error) {
	cl, err := e.begin(r)
	if err != nil {
		return nil, err
	}
	ctx := cl.ctx
	res := cl.rt.res
	p, err := e.parseShape(cl, res)
	if err != nil {
		return nil, err
	}
	if err := e.sequence(cl); err != nil {
		return nil, err
	}
	row, links, err := e.loadShownLinked(ctx, cl, res, cl.id, p.fields[res.Type])
	if err != nil {
		return nil, err
	}
	reply, err := e.singleLinked(ctx, cl, res, row, links, p, http.StatusOK)
	if err != nil {
		return nil, err
	}
	// A shared cache's answer (bodyTags) is tagged by its bytes alone. A
	// version tag names the record's own state only: with include, the
	// hash of the answer's bytes joins its shape, so that the tag changes
	// when an included record does, and If-Match still reads the version.
	var tag string
	if !cl.bodyTags {
		tag = recordETag(cl, e.table(res), row, links)
	}
	if tag != "" && len(p.include) > 0 {
		body, err := bodyETag(reply)
		if err != nil {
			return nil, err
		}
		tag = tag[:len(tag)-1] + body[2:] // "<version>-<shape><hash>"
	}
	if tag == "" { // its answer's hash
		if tag, err = bodyETag(reply); err != nil {
			return nil, err
		}
	}
	return conditionalRead(cl.ifNoneMatch, reply, tag)
}

// loadShownLinked is loadShown and loadLinkage in one statement (see
// storage.GetMembers): the record and the keys of each to-many
// relationship its document shows.
func (e *Engine) loadShownLinked(ctx context.Context, cl *call, res *resource.Resource, id string, fields map[string]bool) (storage.Row, linkage, error) {
	k, err := e.visibleKey(cl, res, id)
	if err != nil {
		return nil, nil, err
	}
	var (
		members []storage.Members
		names   []string
	)
	for _, rel := range res.Relationships {
		if !rel.ToMany || (cl.f == JSONAPI && !wanted(fields, rel.Name)) {
			continue
		}
		names = append(names, rel.Name)
		members = append(members, e.membersOf(cl, rel))
	}
	row, keys, err := cl.db.GetMembers(ctx, e.table(res), cl.org, k, e.shown(res, cl.lang), members)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil, problem.NotFound()
	}
	if err != nil || len(members) == 0 {
		return row, nil, err
	}
	links := make(linkage, len(names))
	owner := keyString(row[res.IDColumn])
	for i, name := range names {
		m := map[string][]any{}
		if len(keys[i]) > 0 {
			m[owner] = keys[i]
		}
		links[name] = m
	}
	return row, links, nil
}

// load reads one record of the caller's organization by identifier, every
// column of it: what a write compares and changes.
func (e *Engine) load(ctx context.Context, cl *call, res *resource.Resource, id string) (storage.Row, error) {
	return e.loadColumns(ctx, cl, res, id, nil)
}

// loadShown is load for a read: only the columns a document in the
// caller's language shows (engine.shown).
func (e *Engine) loadShown(ctx context.Context, cl *call, res *resource.Resource, id string) (storage.Row, error) {
	return e.loadColumns(ctx, cl, res, id, e.shown(res, cl.lang))
}

// loadColumns is load reading the columns cols (nil: every column).
func (e *Engine) loadColumns(ctx context.Context, cl *call, res *resource.Resource, id string, cols []string) (storage.Row, error) {
	k, err := e.visibleKey(cl, res, id)
	if err != nil {
		return nil, err
	}
	row, err := cl.db.GetColumns(ctx, e.table(res), cl.org, k, cols)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, problem.NotFound()
	}
	return row, err
}

// membersOf names the keys of a to-many relationship of one record for
// storage.GetMembers and UpdateRowMembers, as pairs reads them for a page.
func (e *Engine) membersOf(cl *call, rel *resource.Relationship) storage.Members {
	if th := rel.Through; th != nil {
		return storage.Members{Join: e.joins[th.Table], Column: th.Column}
	}
	target, _ := e.reg.Get(rel.Target)
	back, _ := target.Relationship(rel.Inverse)
	return storage.Members{Table: e.table(target), Org: cl.org, Column: back.Column}
}

// visibleKey converts an identifier to the key of a record the caller may
// see, or answers 404 without asking the database when it names none.
func (e *Engine) visibleKey(cl *call, res *resource.Resource, id string) (any, error) {
	k, err := key(res, id)
	if err != nil {
		return nil, err
	}
	if res.Self && k != any(cl.org) {
		return nil, problem.NotFound()
	}
	if only, ok := e.only[res.Type]; ok && !slices.Contains(only, k) {
		return nil, problem.NotFound()
	}
	return k, nil
}

// single renders one record (or none: null data) as a document.
func (e *Engine) single(ctx context.Context, cl *call, res *resource.Resource, row storage.Row, p *listParams, status int, extra ...*jsonapi.ResourceObject) (*jsonapi.Reply, error) {
	var rows []storage.Row
	if row != nil {
		rows = []storage.Row{row}
	}
	links, err := e.loadLinkage(ctx, cl, res, rows, p.fields[res.Type])
	if err != nil {
		return nil, err
	}
	return e.singleLinked(ctx, cl, res, row, links, p, status, extra...)
}

// singleLinked is single with the to-many linkage of row already known.
func (e *Engine) singleLinked(ctx context.Context, cl *call, res *resource.Resource, row storage.Row, links linkage, p *listParams, status int, extra ...*jsonapi.ResourceObject) (*jsonapi.Reply, error) {
	var rows []storage.Row
	if row != nil {
		rows = []storage.Row{row}
	}
	var err error
	if cl.f == Plain {
		if row == nil {
			return cl.reply(status, nil, []byte("null")), nil
		}
		return cl.reply(status, nil, jsonapi.AppendObject(nil, e.plainObject(cl, res, row, links))), nil
	}
	doc := &jsonapi.TopLevel{Data: jsonapi.One{}, IncludeAsked: p.includeAsked}
	if row != nil {
		doc.Data = jsonapi.One{Resource: e.resourceObject(cl, res, row, p.fields[res.Type], links)}
	}
	if doc.Included, err = e.included(ctx, cl, res, rows, p); err != nil {
		return nil, err
	}
	doc.Included = append(doc.Included, extra...)
	if cl.hateoas {
		doc.Links = &jsonapi.Links{Self: cl.link(res.Type, "")}
		if cl.rt.kind == subresourceRoute {
			doc.Links = &jsonapi.Links{Self: cl.origin + cl.path}
		}
	}
	return cl.reply(status, doc, nil), nil
}

// List answers GET /api/{type}.
//
// Its ETag is a hash of the answer (tagged).
func (e *Engine) List(r *Request) (*jsonapi.Reply, error) { return tagged(r, e.listAnswer) }

// listAnswer is List before its ETag.
func (e *Engine) listAnswer(r *Request) (*jsonapi.Reply, error) {
	cl, err := e.begin(r)
	if err != nil {
		return nil, err
	}
	ctx := cl.ctx
	if err := e.sequence(cl); err != nil {
		return nil, err
	}
	return e.list(ctx, cl, cl.rt.res, nil, cl.link(cl.rt.res.Type, ""))
}

// list serves a list of res, optionally narrowed by an extra condition (the
// records related to a subresource's owner).
func (e *Engine) list(ctx context.Context, cl *call, res *resource.Resource, extra *storage.Cond, self string) (*jsonapi.Reply, error) {
	p, err := e.parseList(cl, res)
	if err != nil {
		return nil, err
	}
	q := storage.Query{Table: e.table(res), Columns: e.shown(res, cl.lang), Org: cl.org, Where: p.where, OrderBy: p.order}
	if res.Self {
		q.Where = append(q.Where, storage.Cond{Column: res.IDColumn, Op: storage.Eq, Values: []any{cl.org}})
	}
	if extra != nil {
		q.Where = append(q.Where, *extra)
	}
	if only, ok := e.only[res.Type]; ok {
		q.Where = append(q.Where, storage.Cond{Column: res.IDColumn, Op: storage.Eq, Values: only})
	}
	rows, hasMore, total, err := e.page(ctx, cl, q, p)
	if err != nil {
		return nil, err
	}
	// The reply holds the rows' values, not the rows: they go back to
	// storage for the next read once it is built.
	defer storage.Release(rows)
	links, err := e.loadLinkage(ctx, cl, res, rows, p.fields[res.Type])
	if err != nil {
		return nil, err
	}
	if cl.f == Plain {
		objs := make([][]jsonapi.Member, len(rows))
		for i, row := range rows {
			objs[i] = e.plainObject(cl, res, row, links)
		}
		reply := cl.reply(http.StatusOK, nil, jsonapi.AppendObjects(jsonapi.Buffer(), objs)).Pooled()
		return withTotal(cl.withLinkHeader(reply, self, p), total), nil
	}
	// The objects, the included ones too, are cut from an arena the reply
	// hands back once encoded (arena.go); on an error it is left to the
	// garbage collector.
	var arena *renderArena
	if cl.arena == nil {
		arena = newArena()
		cl.arena = arena
		defer func() { cl.arena = nil }()
	}
	data := jsonapi.Many(e.resourceObjects(cl, res, rows, p.fields[res.Type], links))
	doc := &jsonapi.TopLevel{Data: data, IncludeAsked: p.includeAsked}
	if doc.Included, err = e.included(ctx, cl, res, rows, p); err != nil {
		return nil, err
	}
	if cl.hateoas {
		doc.Links = cl.listLinks(self, p, hasMore, total)
	}
	if p.aggs != nil {
		data, err := e.aggregatedData(ctx, q, p.aggs)
		if err != nil {
			return nil, err
		}
		doc.Meta = []jsonapi.Member{{Name: "aggregatedData", Value: data}}
	}
	reply := cl.withProfile(withTotal(cl.reply(http.StatusOK, doc, nil), total), p)
	if arena != nil {
		reply.OnDocumentDone(arena.done)
	}
	return reply, nil
}

// page reads one page of q: the rows, whether more follow (a cursor page
// keeps that in p.cursor), and the number of all matches when X-Include
// asks for it (-1 otherwise). Fetching one row more than the page tells
// whether a next page exists without counting.
func (e *Engine) page(ctx context.Context, cl *call, q storage.Query, p *listParams) (rows []storage.Row, hasMore bool, total int, err error) {
	total = -1
	if cl.xinclude["totalCount"] {
		if total, err = cl.db.Count(ctx, q); err != nil {
			return nil, false, 0, err
		}
	}
	if p.cursor != nil {
		rows, err = e.cursorRead(ctx, q, p)
		return rows, false, total, err
	}
	limit := p.size
	if p.size < 0 {
		limit = maxUnpaged
	} else {
		q.Offset = (p.number - 1) * p.size
	}
	q.Limit = limit + 1
	if rows, err = cl.db.Find(ctx, q); err != nil {
		return nil, false, 0, err
	}
	hasMore = len(rows) > limit
	if hasMore && p.size < 0 {
		return nil, false, 0, problem.Filter("page[size]", fmt.Sprintf("More than %d records match; use paging.", maxUnpaged))
	}
	if hasMore {
		storage.Release(rows[limit:]) // read only to tell that more follow
		rows = rows[:limit]
	}
	return rows, hasMore, total, nil
}

// withTotal adds X-Include-Total-Count to a successful reply when it was asked for.
func withTotal(r *jsonapi.Reply, total int) *jsonapi.Reply {
	if total >= 0 {
		if r.Header == nil {
			r.Header = http.Header{}
		}
		r.Header.Set("X-Include-Total-Count", strconv.Itoa(total))
	}
	return r
}
