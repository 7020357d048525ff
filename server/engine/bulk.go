package engine

import (
	"fmt"
	"net/http"

	"github.com/entityapi/entityapi/server/identity"
	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage"
)

// This file, bulkitem.go and bulkgroup.go are the engine's bulk writes: many
// records of one caller, read, checked and written in groups, each exactly as
// a single request's record is. Their user is the batch (docs/decisions.md
// §7), whose code is server/batch/...: the pipeline reads, splits, stages and
// queues the body, and server/batch/chunk checks and writes each chunk through
// a Bulk. The engine knows nothing of chunks, staging, jobs or operations.

// Bulk is the caller of one bulk write (a batch) as the engine serves it: who
// writes, to which type, on which connection.
type Bulk struct {
	e  *Engine
	cl *call
}

// BeginBulk starts the bulk write of a batch request: the caller may create and edit records
// of the type, or the answer is 403.
func (e *Engine) BeginBulk(r *Request) (*Bulk, error) {
	cl, err := e.begin(r)
	if err != nil {
		return nil, err
	}
	res := cl.rt.res
	if !allowed(cl.roles, res, createAction) || !allowed(cl.roles, res, editAction) {
		return nil, Denied()
	}
	return &Bulk{e: e, cl: cl}, nil
}

// BulkAs is the bulk write a batch job runs for p, long after its request: the user
// who sent it (p.UserID, 0 for none) with the roles the job looked up now,
// the client named by the change events of its records. Its transactions
// run on the store's bulk connection (storage.Store.Bulk): they record their
// events themselves (writeRecords is never inline here).
func (e *Engine) BulkAs(p identity.Principal) *Bulk {
	cl := &call{f: JSONAPI, org: p.Org, user: p.UserID, client: p.ClientID, roles: p.Roles, routes: e.routes,
		xinclude: map[string]bool{}, db: e.store.Bulk()}
	return &Bulk{e: e, cl: cl}
}

// Resource is the type the batch writes (BeginBulk's; nil for BulkAs, whose
// type is its operation's).
func (b *Bulk) Resource() *resource.Resource {
	if b.cl.rt == nil {
		return nil
	}
	return b.cl.rt.res
}

// Caller is who sends the batch: the organization, user and client an
// operation record names, and the roles its items are checked with.
func (b *Bulk) Caller() identity.Principal {
	return identity.Principal{ClientID: b.cl.client, UserID: b.cl.user, Org: b.cl.org, Roles: b.cl.roles}
}

// Conn is where the batch's reads and transactions go: the store for a
// request, its bulk connection for a job.
func (b *Bulk) Conn() *storage.Conn { return b.cl.db }

// Resources are the application's types, which included items name.
func (b *Bulk) Resources() *resource.Registry { return b.e.reg }

// View is the batch request as its answers see it (the operation's address
// and rendering are server/batch's).
func (b *Bulk) View() *View { return &View{cl: b.cl} }

// Render renders the written items in request order, the answer of a
// synchronous batch: primary records with the client's id in meta.dataId,
// the included ones with meta.includeId. Records are read back on c (nil:
// Conn), with one query per type (and its linkage) whatever their number; a
// validate-only batch renders them in the transaction it then rolls back.
func (b *Bulk) Render(c *storage.Conn, data, included []*Item) (*jsonapi.Reply, error) {
	e, cl := b.e, b.cl
	if c != nil {
		dry := *cl
		dry.db = c
		cl = &dry
	}
	ctx := cl.ctx
	byType := map[*resource.Resource][]*Item{}
	for _, it := range append(append([]*Item(nil), data...), included...) {
		byType[it.res] = append(byType[it.res], it)
	}
	objects := map[*Item]*jsonapi.ResourceObject{}
	for res, items := range byType {
		keys := make([]any, len(items))
		for i, it := range items {
			keys[i] = it.key
		}
		rows, err := cl.db.Find(ctx, storage.Query{Table: e.table(res), Org: cl.org,
			Where: []storage.Cond{{Column: res.IDColumn, Op: storage.Eq, Values: keys}}})
		if err != nil {
			return nil, err
		}
		links, err := e.loadLinkage(ctx, cl, res, rows, nil)
		if err != nil {
			return nil, err
		}
		byKey := make(map[string]storage.Row, len(rows))
		for _, row := range rows {
			byKey[keyString(row[res.IDColumn])] = row
		}
		for _, it := range items {
			row, ok := byKey[keyString(it.key)]
			if !ok {
				return nil, fmt.Errorf("engine: batch record %s %v vanished before the answer", res.Type, it.key)
			}
			objects[it] = e.resourceObject(cl, res, row, nil, links)
		}
	}
	withMeta := func(it *Item, name string) *jsonapi.ResourceObject {
		obj := objects[it]
		if it.clientID != "" {
			obj.Meta = append(obj.Meta, jsonapi.Member{Name: name, Value: it.clientID})
		}
		return obj
	}
	out := make(jsonapi.Many, len(data))
	for i, it := range data {
		out[i] = withMeta(it, "dataId")
	}
	doc := &jsonapi.TopLevel{Data: out}
	for _, it := range included {
		doc.Included = append(doc.Included, withMeta(it, "includeId"))
	}
	return cl.reply(http.StatusOK, doc, nil), nil
}
