package server

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage"
)

// engine is the one generic JSON:API engine: every generated handler method of an
// application delegates to it, and it reads what it needs from the route the
// request matched and the resource metadata of the document.
type engine struct {
	store  *storage.Store
	reg    *resource.Registry
	routes *routeTable
	tables map[string]*storage.Table     // resource type -> table
	joins  map[string]*storage.JoinTable // join table name -> join table
	items  *itemSchemas
	cfg    *Config
	// shownCols are the columns the reads that render documents ask for.
	shownCols shownColumns
	// only limits a resource type to the records with these keys, such as
	// the enabled currencies; other records do not exist for the API.
	only map[string][]any
}

// call is the per-request state the engine works with.
type call struct {
	// ctx is the request's own context (the server's deadline, the client's
	// cancellation): the ctx a strict handler receives is Gin's, which
	// carries neither. Held here as http.Request holds its own.
	ctx      context.Context
	id       string // the {id} of the address, "" on a collection
	path     string // the address's path as the client sent it
	origin   string // the scheme and host of the application's public addresses
	rt       *route
	f        format
	org      int64    // the caller's organization
	user     int64    // the caller's user (back office), 0 for a storefront client
	lang     string   // the language of localized values (storefront X-Localization-ID); "": the default
	roles    []string // the caller's roles
	hateoas  bool
	title    bool // meta=title: each resource carries its title
	xinclude map[string]bool
	query    url.Values // the query string, parsed once (queryOf); read only
	base     string     // absolute base of the application's addresses
	routes   *routeTable
}

func (e *engine) begin(ctx context.Context) (*call, error) {
	c, ok := ctx.(*gin.Context)
	if !ok {
		return nil, errNoGinContext
	}
	rt := e.routes.lookup(c.Request.Method, c.FullPath())
	if rt == nil {
		return nil, errNoRoute
	}
	p := principalOf(c)
	if p == nil {
		return nil, errNoPrincipal
	}
	cl := &call{ctx: c.Request.Context(), id: c.Param("id"), path: c.Request.URL.Path, origin: e.publicBase(c.Request),
		rt: rt, f: formatOf(c), org: p.Org, user: p.UserID, roles: p.Roles, routes: e.routes, xinclude: map[string]bool{}}
	for _, v := range c.Request.Header.Values("X-Include") {
		for _, key := range strings.Split(v, ";") {
			if key = strings.TrimSpace(key); key != "" {
				cl.xinclude[key] = true
			}
		}
	}
	cl.hateoas = cl.f == jsonapiFormat && !cl.xinclude["noHateoas"]
	cl.lang = c.GetString(langKey)
	cl.query = queryOf(c)
	if meta, ok := cl.query["meta"]; ok {
		if err := cl.parseMeta(meta[len(meta)-1]); err != nil {
			return nil, err
		}
	}
	cl.base = cl.origin + e.routes.base
	return cl, nil
}

// queryOf is the query string of a request as validate parsed it for
// kin-openapi (the same values the document's parameters were checked on), or
// parsed now where validate did not run. readQuery has made sure that this
// reading is whole (query.go).
func queryOf(c *gin.Context) url.Values {
	if v, ok := c.Get(queryKey); ok {
		return v.(url.Values)
	}
	return c.Request.URL.Query()
}

// publicBase is --public-url, or the scheme and host the request came to.
func (e *engine) publicBase(r *http.Request) string {
	if e.cfg.PublicURL != "" {
		return strings.TrimSuffix(e.cfg.PublicURL, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

func (e *engine) table(res *resource.Resource) *storage.Table {
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
	if cl.f == plainFormat {
		return &jsonapi.Reply{Status: status, ContentType: jsonapi.PlainMediaType, Body: plain}
	}
	return jsonapi.DocumentReply(status, doc)
}

// parseMeta reads meta=title (oro-behaviour §5.3); title is the one meta property.
func (cl *call) parseMeta(value string) error {
	if cl.f == plainFormat {
		return problem.Filter("meta", "The filter is not supported by the plain format; use JSON:API.")
	}
	for _, name := range strings.Split(value, ",") {
		if name != "title" {
			return problem.Filter("meta", fmt.Sprintf("The %q is not known meta property. Known properties: title.", name))
		}
		cl.title = true
	}
	return nil
}
