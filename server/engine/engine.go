package engine

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/entityapi/entityapi/server/identity"
	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage"
)

// Engine is the one generic JSON:API engine of an application: every
// generated handler method delegates to it, and it reads what it needs from
// the route the request matched and the resource metadata of the document.
// It knows nothing of HTTP servers: the edge (package server) hands it a
// Request it has read, negotiated, authenticated and checked.
type Engine struct {
	store  *storage.Store
	reg    *resource.Registry
	routes *RouteTable
	tables map[string]*storage.Table     // resource type -> table
	joins  map[string]*storage.JoinTable // join table name -> join table
	items  *itemSchemas
	cfg    Config
	// shownCols are the columns the reads that render documents ask for.
	shownCols shownColumns
	// only limits a resource type to the records with these keys, such as
	// the enabled currencies; other records do not exist for the API.
	only map[string][]any
	// cursors signs and checks the cursors of cursor paging.
	cursors cursorCodec
}

// Config is what an engine is told from outside, once, at start.
type Config struct {
	// MaxAggregationValues is the most values one count of
	// filter[aggregations] answers (zero: DefaultAggregationValues).
	MaxAggregationValues int
}

// Request is one API request as the edge hands it to the engine: the route it
// matched and what the edge read, negotiated, authenticated and checked. The
// engine reads nothing else of the HTTP exchange.
type Request struct {
	// Ctx is the request's own context: the server's deadline, the client's
	// cancellation.
	Ctx    context.Context
	Route  *Route
	ID     string // the {id} of the address, "" on a collection
	Path   string // the address's path as the client sent it
	Origin string // the scheme and host of the application's public addresses
	// Query is the query string, parsed once and read whole (ReadQuery); read only.
	Query     url.Values
	Format    Format
	Principal *identity.Principal // who is calling; nil until authenticated
	Lang      string              // the language of localized values (storefront X-Localization-ID); "": the default
	XInclude  []string            // the X-Include header's values
	Currency  string              // the storefront's X-Currency as it applies; "" elsewhere
	// IfMatch and IfNoneMatch are the values of those headers, nil when the
	// request has none (etag.go).
	IfMatch     []string
	IfNoneMatch []string
	// Tx, when set, is the transaction the request runs in (Engine.Tx): one
	// operation of an atomic request (server/atomic), or a write sent with
	// an Idempotency-Key, which keeps its answer there. Nil: the store.
	Tx *storage.Conn
	// Keyed names the request's Idempotency-Key (its owner and text,
	// hashed) and KeyedRequest the request's fingerprint, "" without a key:
	// for what a keyed write queues outside the store's transaction (a
	// webhook's message), which must be queued once.
	Keyed, KeyedRequest string
	// BodyTags makes a record's ETag a hash of its answer's bytes, as a
	// list's is, instead of its version: the tag of an answer a shared cache
	// keeps (a storefront guest's, server/cache.go), which must change with
	// every byte of it.
	BodyTags bool
	// ShowsSecret is set by a handler whose answer shows a secret once (a
	// webhook's, made or rotated): a copy kept for a retry of an
	// Idempotency-Key is sealed as the secret is.
	ShowsSecret bool
}

// call is the per-request state the engine works with.
type call struct {
	ctx      context.Context
	id       string // the {id} of the address, "" on a collection
	path     string // the address's path as the client sent it
	origin   string // the scheme and host of the application's public addresses
	rt       *Route
	f        Format
	org      int64    // the caller's organization
	user     int64    // the caller's user (back office), 0 for a storefront client
	client   string   // the caller's client, "" when unknown (a batch job)
	lang     string   // the language of localized values (storefront X-Localization-ID); "": the default
	currency string   // the storefront's currency, part of a representation's ETag
	roles    []string // the caller's roles
	hateoas  bool
	title    bool            // metaProperties=title: each resource carries its title
	xinclude map[string]bool // the X-Include keys; nil when there are none
	query    url.Values      // the query string, parsed once; read only
	base     string          // absolute base of the application's addresses
	routes   *RouteTable
	// ifMatch and ifNoneMatch are the conditional headers' values (nil: absent).
	ifMatch, ifNoneMatch []string
	bodyTags             bool // Request.BodyTags
	// arena, when set, is where the call's resource objects are cut from
	// (arena.go): a list's, handed back once its document is encoded.
	arena *renderArena
	// db runs every query of the call: the store itself, or the one
	// transaction an atomic request (or a validate-only write) runs in, so
	// that a later step reads what an earlier one wrote.
	db *storage.Conn
}

// Errors of a request the edge handed over incomplete: a wiring mistake, never
// a client's (answered 500).
var (
	errNoRoute     = errors.New("engine: no documented route for this request")
	errNoPrincipal = errors.New("engine: a documented route was reached without authentication")
)

// onReplica tells whether a request may read from a read replica
// (storage.Store.ReadConn decides whether it does): a read of records, their
// related records or relationships, except what must see the primary's
// latest state: the change-events feed (sequenced on the primary as it is
// read), and a cursor walk's next pages (page[after], page[before]), which
// stay where walks begin to page over the same records (docs/scaling.md,
// "Read replicas"). Writes, their preconditions (If-Match) and upserts'
// matching run on the primary; so do asyncoperations, outside the engine.
func onReplica(r *Request) bool {
	if m := r.Route.method; m != http.MethodGet && m != http.MethodHead {
		return false
	}
	switch r.Route.kind {
	case collectionRoute, itemRoute, subresourceRoute, relationshipRoute:
	default:
		return false
	}
	if r.Route.res != nil && r.Route.res.Feed {
		return false
	}
	_, after := r.Query["page[after]"]
	_, before := r.Query["page[before]"]
	return !after && !before
}

func (e *Engine) begin(r *Request) (*call, error) {
	if r == nil || r.Route == nil {
		return nil, errNoRoute
	}
	p := r.Principal
	if p == nil {
		return nil, errNoPrincipal
	}
	cl := &call{ctx: r.Ctx, id: r.ID, path: r.Path, origin: r.Origin, rt: r.Route, f: r.Format, org: p.Org, user: p.UserID, client: p.ClientID,
		roles: p.Roles, lang: r.Lang, currency: r.Currency, query: r.Query, routes: e.routes,
		ifMatch: r.IfMatch, ifNoneMatch: r.IfNoneMatch, bodyTags: r.BodyTags, db: e.store.Conn}
	for _, v := range r.XInclude {
		for _, key := range strings.Split(v, ";") {
			if key = strings.TrimSpace(key); key != "" {
				if cl.xinclude == nil { // most requests name none: no map for them
					cl.xinclude = map[string]bool{}
				}
				cl.xinclude[key] = true
			}
		}
	}
	if r.Tx != nil {
		cl.db = r.Tx
	} else if e.store.HasReplica() && onReplica(r) {
		cl.db = e.store.ReadConn(r.Ctx)
	}
	cl.hateoas = cl.f == JSONAPI && !cl.xinclude["noHateoas"]
	if meta, ok := cl.query["metaProperties"]; ok {
		if err := cl.parseMeta(meta[len(meta)-1]); err != nil {
			return nil, err
		}
	}
	cl.base = cl.origin + e.routes.base
	return cl, nil
}

func (e *Engine) table(res *resource.Resource) *storage.Table {
	return e.tables[res.Type]
}

// key converts an identifier from an address or a body to a storage key.
func key(res *resource.Resource, id string) (any, error) {
	if !res.IntID {
		return id, nil
	}
	n, ok := parseID(id)
	if !ok {
		return nil, problem.NotFound()
	}
	return n, nil
}

func parseID(s string) (int64, bool) {
	if s == "" || len(s) > 18 {
		return 0, false
	}
	var n int64
	for _, r := range s {
		if r < '0' || r > '9' {
			return 0, false
		}
		n = n*10 + int64(r-'0')
	}
	return n, true
}

// reply encodes a response document or plain body.
func (cl *call) reply(status int, doc *jsonapi.TopLevel, plain []byte) *jsonapi.Reply {
	if cl.f == Plain {
		return &jsonapi.Reply{Status: status, ContentType: jsonapi.PlainMediaType, Body: plain}
	}
	return jsonapi.DocumentReply(status, doc)
}

// parseMeta reads metaProperties=title (oro-behaviour §5.3, where it is
// called meta: JSON:API 1.1 reserves all-lower-case names, docs/queries.md);
// title is the one meta property.
func (cl *call) parseMeta(value string) error {
	if cl.f == Plain {
		return problem.Filter("metaProperties", jsonAPIOnly("metaProperties"))
	}
	for _, name := range strings.Split(value, ",") {
		if name != "title" {
			return problem.Filter("metaProperties", fmt.Sprintf("The %q is not known meta property. Known properties: title.", name))
		}
		cl.title = true
	}
	return nil
}
