package engine

import (
	"context"
	"slices"
	"time"

	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage"
)

// View is a request as a resource the engine does not keep in its tables
// sees it (asyncoperations, which server/batch serves from storage/jobs): who
// is calling, what the query asks, and the engine's way of answering, so that
// such a resource is linked, paged and rendered in either format like every
// other.
type View struct{ cl *call }

// View starts a request on a resource outside the engine's tables.
func (e *Engine) View(r *Request) (*View, error) {
	cl, err := e.begin(r)
	if err != nil {
		return nil, err
	}
	return &View{cl: cl}, nil
}

// Ctx is the request's context.
func (v *View) Ctx() context.Context { return v.cl.ctx }

// Conn is where the request reads and writes: the transaction it runs in
// (Request.Tx), else the store (or, for a read, its replica).
func (v *View) Conn() *storage.Conn { return v.cl.db }

// ID is the {id} of the address, "" on a collection.
func (v *View) ID() string { return v.cl.id }

// Org is the caller's organization.
func (v *View) Org() int64 { return v.cl.org }

// User is the caller's user, 0 for a client without one.
func (v *View) User() int64 { return v.cl.user }

// Administrator tells whether the caller administers its organization.
func (v *View) Administrator() bool { return slices.Contains(v.cl.roles, roleAdministrator) }

// Plain tells whether the answer is in the plain format.
func (v *View) Plain() bool { return v.cl.f == Plain }

// Hateoas tells whether the answer carries links (JSON:API without
// X-Include: noHateoas).
func (v *View) Hateoas() bool { return v.cl.hateoas }

// Includes tells whether X-Include names key (totalCount, say).
func (v *View) Includes(key string) bool { return v.cl.xinclude[key] }

// Link is the absolute address of a resource of typ, or of its collection
// when id is "".
func (v *View) Link(typ, id string) string { return v.cl.link(typ, id) }

// Reply encodes the answer in the negotiated format: doc for JSON:API,
// plain for the plain format.
func (v *View) Reply(status int, doc *jsonapi.TopLevel, plain []byte) *jsonapi.Reply {
	return v.cl.reply(status, doc, plain)
}

// Page reads page[number] and page[size] of a paged list that takes no
// other list parameter (the check refuses the others, cursors included,
// since the operation's document declares none: check/query.go); size is
// -1 for every record at once, at most MaxUnpaged.
func (v *View) Page() (number, size int, errs problem.List) {
	return parsePage(v.cl.query)
}

// PageLinks are the self, first, prev and next links of a page of a list
// whose address is self.
func (v *View) PageLinks(self string, number, size int, hasMore bool) *jsonapi.Links {
	return v.cl.pageLinks(self, &listParams{number: number, size: size}, hasMore, -1)
}

// MaxUnpaged is the most records page[size]=-1 answers with.
const MaxUnpaged = maxUnpaged

// WithTotal adds X-Include-Total-Count to a reply when total is known (>= 0).
func WithTotal(r *jsonapi.Reply, total int) *jsonapi.Reply { return withTotal(r, total) }

// DateTime is a time as the documents write a date-time attribute.
func DateTime(t time.Time) any { return wireValue(resource.DateTime, t) }

// ParseID reads an integer identifier of an address; false when it is not one.
func ParseID(id string) (int64, bool) { return parseID(id) }

// OperationsType is the resource type of batch operations, which server/batch
// serves; the engine routes it and checks nothing of it but the caller's role.
const OperationsType = operationsType

// WebhooksType is the resource type of webhooks, which server/webhook serves;
// the engine routes it and lets only administrators reach it.
const WebhooksType = webhooksType
