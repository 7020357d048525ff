package engine

import (
	"net/http"

	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/storage"
)

// Related answers GET /api/{type}/{id}/{relationship}: the related record, or a
// list of related records with the target's paging, sorting and filters.
func (e *Engine) Related(r *Request) (*jsonapi.Reply, error) { return tagged(r, e.relatedAnswer) }

// relatedAnswer is Related before its ETag (tagged).
func (e *Engine) relatedAnswer(r *Request) (*jsonapi.Reply, error) {
	cl, owner, err := e.beginOwnedRead(r)
	if err != nil {
		return nil, err
	}
	ctx := cl.ctx
	res, rel := cl.rt.res, cl.rt.rel
	target, _ := e.reg.Get(rel.Target)
	self := cl.origin + cl.path
	if rel.ToMany {
		cond := e.memberOf(rel, []any{owner[res.IDColumn]})
		return e.list(ctx, cl, target, &cond, self)
	}
	p, err := e.parseShape(cl, target)
	if err != nil {
		return nil, err
	}
	_, rows, err := e.related(ctx, cl, res, []storage.Row{owner}, rel)
	if err != nil {
		return nil, err
	}
	var row storage.Row
	if len(rows) > 0 {
		row = rows[0]
	}
	return e.single(ctx, cl, target, row, p, http.StatusOK)
}

// Relationship answers GET /api/{type}/{id}/relationships/{relationship} with
// resource identifiers (paged for to-many). It takes no include, fields, sort or
// filter (nor page on a to-one): a 400 names them, as the document declares
// none, rather than answering as if they were absent.
func (e *Engine) Relationship(r *Request) (*jsonapi.Reply, error) {
	return tagged(r, e.relationshipAnswer)
}

// relationshipAnswer is Relationship before its ETag (tagged).
func (e *Engine) relationshipAnswer(r *Request) (*jsonapi.Reply, error) {
	cl, owner, err := e.beginOwnedRead(r)
	if err != nil {
		return nil, err
	}
	ctx := cl.ctx
	res, rel := cl.rt.res, cl.rt.rel
	id := keyString(owner[res.IDColumn])
	self := cl.link(res.Type, id) + "/relationships/" + rel.Name
	links := &jsonapi.Links{Self: self}
	_, links.Related = cl.relationshipLinks(res.Type, id, rel.Name)
	q := cl.query
	p := &listParams{}
	var errs problem.List
	target, _ := e.reg.Get(rel.Target)
	// The parameters a relationship endpoint does not take (include,
	// fields, sort, filter; page on a to-one) never get here: the check
	// refuses what the operation's document does not declare
	// (check/query.go).
	if rel.ToMany {
		p.number, p.size, errs = parsePage(q)
		if len(errs) == 0 {
			p.cursor, errs = e.parseCursor(q, e.table(target), nil, "", p.size)
		}
	}
	if len(errs) > 0 {
		return nil, errs
	}
	if !rel.ToMany {
		doc := &jsonapi.TopLevel{Data: jsonapi.ToOne{}}
		if v := toOneKey(cl, rel, owner); v != nil {
			doc.Data = jsonapi.ToOne{Identifier: &jsonapi.Identifier{Type: rel.Target, ID: keyString(v)}}
		}
		if cl.hateoas {
			doc.Links = links
		}
		return cl.reply(http.StatusOK, doc, nil), nil
	}
	related := storage.Query{Table: e.table(target), Columns: e.shown(target, cl.lang), Org: cl.org, Where: []storage.Cond{e.memberOf(rel, []any{owner[res.IDColumn]})}}
	rows, hasMore, total, err := e.page(ctx, cl, related, p)
	if err != nil {
		return nil, err
	}
	data := make(jsonapi.ToMany, len(rows))
	for i, row := range rows {
		data[i] = jsonapi.Identifier{Type: target.Type, ID: keyString(row[target.IDColumn])}
	}
	storage.Release(rows) // the identifiers are made: the rows go back to storage
	doc := &jsonapi.TopLevel{Data: data}
	if cl.hateoas {
		doc.Links = cl.listLinks(self, p, hasMore, total)
		doc.Links.Related = links.Related
	}
	return cl.withProfile(withTotal(cl.reply(http.StatusOK, doc, nil), total), p), nil
}

// beginOwnedRead starts a read of a relationship or subresource: the
// caller, and the record whose relationship it is (404 when the caller
// cannot see it), read as a document in the caller's language would show it
// (loadShown).
func (e *Engine) beginOwnedRead(r *Request) (*call, storage.Row, error) {
	cl, err := e.begin(r)
	if err != nil {
		return nil, nil, err
	}
	owner, err := e.loadShown(cl.ctx, cl, cl.rt.res, cl.id)
	if err != nil {
		return nil, nil, err
	}
	return cl, owner, nil
}
