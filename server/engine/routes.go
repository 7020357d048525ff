package engine

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"

	"github.com/entityapi/entityapi/server/check"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/server/resource"
)

// routeKind says which engine action serves an address.
type routeKind int

const (
	collectionRoute        routeKind = iota // /api/{type}
	itemRoute                               // /api/{type}/{id}
	subresourceRoute                        // /api/{type}/{id}/{relationship}
	relationshipRoute                       // /api/{type}/{id}/relationships/{relationship}
	operationRoute                          // /api/asyncoperations/{id}
	operationErrorsRoute                    // /api/asyncoperations/{id}/errors
	atomicRoute                             // POST /api/operations (JSON:API Atomic Operations)
	webhooksRoute                           // /api/webhooks
	webhookRoute                            // /api/webhooks/{id}
	webhookDeliveriesRoute                  // /api/webhooks/{id}/deliveries
	searchRoute                             // GET /api/search (searchall.go)
)

// operationsType is the resource type of batch operations; they are not
// records of the generic engine but of the batch pipeline (server/batch/operations.go).
const operationsType = "asyncoperations"

// operationsResource stands for asyncoperations where routes need a resource:
// its identifiers are integers and every caller with a role may try to read
// it (the owner check is the handler's).
var operationsResource = &resource.Resource{Type: operationsType, IntID: true}

// webhooksType is the resource type of webhooks, which server/webhook
// serves (its secret and its checks are not the generic engine's); the
// engine routes it and checks the caller's role: administrators only.
const webhooksType = "webhooks"

// webhooksResource stands for webhooks where routes need a resource.
var webhooksResource = &resource.Resource{Type: webhooksType, IntID: true, Readers: []string{roleAdministrator}}

// atomicType names the address of atomic requests, /api/operations; it is not
// a resource type: each of its operations is checked against its own route
// (server/atomic).
const atomicType = "operations"

// atomicResource stands for the atomic address where routes need a resource.
var atomicResource = &resource.Resource{Type: atomicType}

// route is one documented operation as the engine and the validator see it.
type Route struct {
	method  string
	pattern string
	kind    routeKind
	res     *resource.Resource
	rel     *resource.Relationship
	kin     *routers.Route
	checks  *check.Operation // the operation compiled for checking requests
	// searches are the types a search route spans, as its operation
	// declares them (x-entityapi search); nil on other routes.
	searches []*resource.Resource
}

// pathEntry is one documented path with the methods it allows, for Allow headers.
type pathEntry struct {
	segments []string // "" stands for a path parameter
	methods  []string
	// route is one of the path's routes, whatever its method: its kind,
	// resource and relationship say what a method the path lacks would
	// have done (Refusal); nil on a path the engine does not route.
	route *Route
}

// routeTable indexes the operations of one application's document.
type RouteTable struct {
	byKey map[string]*Route // method + " " + Gin path
	paths []pathEntry
	base  string // the application's base path, such as /admin
	links relationshipEndpoints
}

// methodOrder is the order of methods in Allow headers (oro-behaviour §8).
var methodOrder = []string{http.MethodOptions, http.MethodGet, http.MethodHead, http.MethodPatch, http.MethodPost, http.MethodDelete}

func newRouteTable(doc *openapi3.T, reg *resource.Registry, base string) (*RouteTable, error) {
	t := &RouteTable{byKey: map[string]*Route{}, base: base}
	for path, item := range doc.Paths.Map() {
		segs := strings.Split(strings.Trim(path, "/"), "/")
		entry := pathEntry{}
		for _, s := range segs {
			if strings.HasPrefix(s, "{") {
				s = ""
			}
			entry.segments = append(entry.segments, s)
		}
		entry.segments = append(strings.Split(strings.Trim(base, "/"), "/"), entry.segments...)
		if base == "" || base == "/" {
			entry.segments = entry.segments[1:]
		}
		ops := item.Operations()
		allowed := map[string]bool{http.MethodOptions: true}
		for method, op := range ops {
			allowed[method] = true
			if method == http.MethodGet {
				allowed[http.MethodHead] = true
			}
			rt, err := newRoute(doc, reg, base, path, item, method, op)
			if err != nil {
				return nil, err
			}
			if rt != nil {
				rt.checks = check.NewOperation(rt.kin, rt.res.IntID)
				t.byKey[method+" "+rt.pattern] = rt
				if entry.route == nil {
					entry.route = rt
				}
			}
		}
		for _, m := range methodOrder {
			if allowed[m] {
				entry.methods = append(entry.methods, m)
			}
		}
		t.paths = append(t.paths, entry)
	}
	sort.Slice(t.paths, func(i, j int) bool { return len(t.paths[i].segments) < len(t.paths[j].segments) })
	t.links = t.relationshipEndpoints()
	return t, nil
}

func newRoute(doc *openapi3.T, reg *resource.Registry, base, path string, item *openapi3.PathItem, method string, op *openapi3.Operation) (*Route, error) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	if len(segs) < 2 || segs[0] != "api" {
		return nil, nil
	}
	if segs[1] == operationsType {
		return newOperationRoute(doc, base, path, item, method, op, segs)
	}
	if segs[1] == webhooksType {
		return newWebhookRoute(doc, base, path, item, method, op, segs)
	}
	if segs[1] == searchType && len(segs) == 2 {
		searches, err := searchedByOperation(reg, op)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", method, path, err)
		}
		return &Route{method: method, pattern: base + path, kind: searchRoute, res: searchResource, searches: searches,
			kin: &routers.Route{Spec: doc, Server: doc.Servers[0], Path: path, PathItem: item, Method: method, Operation: op}}, nil
	}
	if segs[1] == atomicType && len(segs) == 2 {
		return &Route{method: method, pattern: base + path, kind: atomicRoute, res: atomicResource,
			kin: &routers.Route{Spec: doc, Server: doc.Servers[0], Path: path, PathItem: item, Method: method, Operation: op}}, nil
	}
	res, ok := reg.Get(segs[1])
	if !ok {
		return nil, nil
	}
	rt := &Route{method: method, pattern: base + patternOf(path), res: res,
		kin: &routers.Route{Spec: doc, Server: doc.Servers[0], Path: path, PathItem: item, Method: method, Operation: op}}
	switch {
	case len(segs) == 2:
		rt.kind = collectionRoute
	case len(segs) == 3:
		rt.kind = itemRoute
	case len(segs) == 4:
		rt.kind = subresourceRoute
		rt.rel, ok = res.Relationship(segs[3])
	case len(segs) == 5 && segs[3] == "relationships":
		rt.kind = relationshipRoute
		rt.rel, ok = res.Relationship(segs[4])
	default:
		ok = false
	}
	if !ok {
		return nil, fmt.Errorf("%s %s: the path names no relationship of %s", method, path, res.Type)
	}
	return rt, nil
}

func newOperationRoute(doc *openapi3.T, base, path string, item *openapi3.PathItem, method string, op *openapi3.Operation, segs []string) (*Route, error) {
	rt := &Route{method: method, pattern: base + patternOf(path), res: operationsResource,
		kin: &routers.Route{Spec: doc, Server: doc.Servers[0], Path: path, PathItem: item, Method: method, Operation: op}}
	switch {
	case len(segs) == 3:
		rt.kind = operationRoute
	case len(segs) == 4 && segs[3] == "errors":
		rt.kind = operationErrorsRoute
	default:
		return nil, fmt.Errorf("%s %s: unknown asyncoperations path", method, path)
	}
	return rt, nil
}

func newWebhookRoute(doc *openapi3.T, base, path string, item *openapi3.PathItem, method string, op *openapi3.Operation, segs []string) (*Route, error) {
	rt := &Route{method: method, pattern: base + patternOf(path), res: webhooksResource,
		kin: &routers.Route{Spec: doc, Server: doc.Servers[0], Path: path, PathItem: item, Method: method, Operation: op}}
	switch {
	case len(segs) == 2:
		rt.kind = webhooksRoute
	case len(segs) == 3:
		rt.kind = webhookRoute
	case len(segs) == 4 && segs[3] == "deliveries":
		rt.kind = webhookDeliveriesRoute
	default:
		return nil, fmt.Errorf("%s %s: unknown webhooks path", method, path)
	}
	return rt, nil
}

// ReadsRecords tells whether a route is a GET of a resource's records: a
// collection, a record, its related records or a relationship's linkage
// (not a search, an operation or a webhook's route). Its answer is made of
// the records of its resource and of those related to them.
func (rt *Route) ReadsRecords() bool {
	if rt.method != http.MethodGet {
		return false
	}
	switch rt.kind {
	case collectionRoute, itemRoute, subresourceRoute, relationshipRoute:
		return true
	}
	return false
}

// IsAtomic tells whether a route is POST /api/operations, the JSON:API Atomic
// Operations request, whose media types carry the extension (negotiate.go).
func (rt *Route) IsAtomic() bool { return rt.kind == atomicRoute }

// IsBatch tells whether a route is the batch operation of its type (PATCH on
// the collection), which streams its body past the validator.
func (rt *Route) IsBatch() bool { return rt.kind == collectionRoute && rt.method == http.MethodPatch }

// patternOf turns /api/x/{id} into the router's pattern /api/x/:id.
func patternOf(path string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
			segs[i] = ":" + s[1:len(s)-1]
		}
	}
	return strings.Join(segs, "/")
}

// Lookup finds the route of the pattern the router matched (HEAD is GET's);
// nil when the document has no such operation.
func (t *RouteTable) Lookup(method, pattern string) *Route {
	if method == http.MethodHead {
		method = http.MethodGet
	}
	return t.byKey[method+" "+pattern]
}

// Allowed returns the methods of the documented path matching a request path, or
// nil when no documented path matches.
func (t *RouteTable) Allowed(path string) []string {
	if e := t.entryOf(path); e != nil {
		return e.methods
	}
	return nil
}

// entryOf is the documented path matching a request path; nil when none does.
func (t *RouteTable) entryOf(path string) *pathEntry {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	for n := range t.paths {
		p := &t.paths[n]
		if len(p.segments) != len(segs) {
			continue
		}
		match := true
		for i, s := range p.segments {
			if s != "" && s != segs[i] {
				match = false
				break
			}
		}
		if match {
			return p
		}
	}
	return nil
}

// has tells whether a documented operation exists.
func (t *RouteTable) has(method, pattern string) bool {
	_, ok := t.byKey[method+" "+pattern]
	return ok
}

// relationshipEndpoints tells, per resource type and relationship, whether its
// relationship endpoint and its subresource exist (links lead only there).
type relationshipEndpoints map[string]map[string][2]bool

func (t *RouteTable) relationshipEndpoints() relationshipEndpoints {
	out := relationshipEndpoints{}
	for _, rt := range t.byKey {
		if rt.method != http.MethodGet || rt.rel == nil {
			continue
		}
		if out[rt.res.Type] == nil {
			out[rt.res.Type] = map[string][2]bool{}
		}
		e := out[rt.res.Type][rt.rel.Name]
		if rt.kind == relationshipRoute {
			e[0] = true
		} else {
			e[1] = true
		}
		out[rt.res.Type][rt.rel.Name] = e
	}
	return out
}

// Batches are the batch operations of the application, which the edge
// routes to its streaming handler rather than a generated one.
func (t *RouteTable) Batches() []*Route {
	var out []*Route
	for _, rt := range t.byKey {
		if rt.IsBatch() {
			out = append(out, rt)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].pattern < out[j].pattern })
	return out
}

// Atomic is the application's atomic request route, POST /api/operations, if
// its document has one; the edge serves it by hand (server/atomic.go).
func (t *RouteTable) Atomic() []*Route {
	var out []*Route
	for _, rt := range t.byKey {
		if rt.IsAtomic() {
			out = append(out, rt)
		}
	}
	return out
}

// Pattern is the route's path as the router writes it, such as
// Searches are the types a search route spans (x-entityapi search of its
// operation); nil on other routes.
func (rt *Route) Searches() []string {
	if rt.searches == nil {
		return nil
	}
	out := make([]string, len(rt.searches))
	for i, res := range rt.searches {
		out[i] = res.Type
	}
	return out
}

// /admin/api/accounts/:id.
func (rt *Route) Pattern() string { return rt.pattern }

// Method is the route's HTTP method.
func (rt *Route) Method() string { return rt.method }

// Resource is the resource type the route serves (asyncoperations' stand-in
// for its operations).
func (rt *Route) Resource() *resource.Resource { return rt.res }

// Operation is the route as kin-openapi's request validator reads it.
func (rt *Route) Operation() *routers.Route { return rt.kin }

// Checks are the checks of the requests sent to the route (server/check),
// which the edge runs before the engine serves them.
func (rt *Route) Checks() *check.Operation { return rt.checks }

// IsRelationship tells whether the route is a relationship endpoint, which
// speaks JSON:API only (docs/decisions.md §3).
func (rt *Route) IsRelationship() bool { return rt.kind == relationshipRoute }

// Allows tells whether a caller with these roles may do what the route does
// (the back office; 403 otherwise, Denied).
//
// Every caller of the application may send an atomic request: each of its
// operations is checked against the roles of its own route (server/atomic).
func (rt *Route) Allows(roles []string) bool {
	return rt.kind == atomicRoute || allowed(roles, rt.res, routeAction(rt))
}

// CheckAddress answers 409 when a JSON:API body's type or id contradicts the
// address (oro-behaviour §15); it runs before schema validation, as Oro does.
func (rt *Route) CheckAddress(id string, body []byte, isJSONAPI bool) *problem.Problem {
	if !isJSONAPI || (rt.kind != collectionRoute && rt.kind != itemRoute && rt.kind != operationRoute &&
		rt.kind != webhooksRoute && rt.kind != webhookRoute) {
		return nil
	}
	var doc struct {
		Data struct {
			Type *string `json:"type"`
			ID   *string `json:"id"`
		} `json:"data"`
	}
	if json.Unmarshal(body, &doc) != nil {
		return nil // the schema check reports it
	}
	if t := doc.Data.Type; t != nil && *t != rt.res.Type {
		return problem.Conflict("The 'type' property of the primary data object should match the requested resource.", "/data/type")
	}
	if rt.kind != collectionRoute && rt.kind != webhooksRoute && doc.Data.ID != nil && *doc.Data.ID != id {
		return problem.Conflict("The 'id' property of the primary data object should match 'id' parameter of the query string.", "/data/id")
	}
	return nil
}

// Collections lists the resource types the application has an address
// for (/api/<type>), sorted: what a mistyped address is compared with.
func (t *RouteTable) Collections() []string {
	prefix := strings.Split(strings.Trim(t.base+"/api", "/"), "/")
	seen := map[string]bool{}
	var out []string
	for _, p := range t.paths {
		if len(p.segments) != len(prefix)+1 || !slices.Equal(p.segments[:len(prefix)], prefix) {
			continue
		}
		if name := p.segments[len(prefix)]; name != "" && !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}
