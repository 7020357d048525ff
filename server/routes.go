package server

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"

	"github.com/entityapi/entityapi/server/resource"
)

// routeKind says which engine action serves an address.
type routeKind int

const (
	collectionRoute      routeKind = iota // /api/{type}
	itemRoute                             // /api/{type}/{id}
	subresourceRoute                      // /api/{type}/{id}/{relationship}
	relationshipRoute                     // /api/{type}/{id}/relationships/{relationship}
	operationRoute                        // /api/asyncoperations/{id}
	operationErrorsRoute                  // /api/asyncoperations/{id}/errors
)

// operationsType is the resource type of batch operations; they are not
// records of the generic engine but of the batch code (operations.go).
const operationsType = "asyncoperations"

// operationsResource stands for asyncoperations where routes need a resource:
// its identifiers are integers and every caller with a role may try to read
// it (the owner check is the handler's).
var operationsResource = &resource.Resource{Type: operationsType, IntID: true}

// route is one documented operation as the engine and the validator see it.
type route struct {
	method  string
	ginPath string
	kind    routeKind
	res     *resource.Resource
	rel     *resource.Relationship
	kin     *routers.Route
	params  []routeParam // the operation's parameters, for checkRequest
}

// pathEntry is one documented path with the methods it allows, for Allow headers.
type pathEntry struct {
	segments []string // "" stands for a path parameter
	methods  []string
}

// routeTable indexes the operations of one application's document.
type routeTable struct {
	byKey map[string]*route // method + " " + Gin path
	paths []pathEntry
	base  string // the application's base path, such as /admin
	links relationshipEndpoints
}

// methodOrder is the order of methods in Allow headers (oro-behaviour §8).
var methodOrder = []string{http.MethodOptions, http.MethodGet, http.MethodHead, http.MethodPatch, http.MethodPost, http.MethodDelete}

func newRouteTable(doc *openapi3.T, reg *resource.Registry, base string) (*routeTable, error) {
	t := &routeTable{byKey: map[string]*route{}, base: base}
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
				rt.params = routeParams(item, op)
				t.byKey[method+" "+rt.ginPath] = rt
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

func newRoute(doc *openapi3.T, reg *resource.Registry, base, path string, item *openapi3.PathItem, method string, op *openapi3.Operation) (*route, error) {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	if len(segs) < 2 || segs[0] != "api" {
		return nil, nil
	}
	if segs[1] == operationsType {
		return newOperationRoute(doc, base, path, item, method, op, segs)
	}
	res, ok := reg.Get(segs[1])
	if !ok {
		return nil, nil
	}
	rt := &route{method: method, ginPath: base + ginTemplate(path), res: res,
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

func newOperationRoute(doc *openapi3.T, base, path string, item *openapi3.PathItem, method string, op *openapi3.Operation, segs []string) (*route, error) {
	rt := &route{method: method, ginPath: base + ginTemplate(path), res: operationsResource,
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

// isBatch tells whether a route is the batch operation of its type (PATCH on
// the collection), which streams its body past the validator.
func (rt *route) isBatch() bool { return rt.kind == collectionRoute && rt.method == http.MethodPatch }

// ginTemplate turns /api/x/{id} into Gin's /api/x/:id.
func ginTemplate(path string) string {
	segs := strings.Split(path, "/")
	for i, s := range segs {
		if strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") {
			segs[i] = ":" + s[1:len(s)-1]
		}
	}
	return strings.Join(segs, "/")
}

// lookup finds the route Gin matched.
func (t *routeTable) lookup(method, ginPath string) *route {
	if method == http.MethodHead {
		method = http.MethodGet
	}
	return t.byKey[method+" "+ginPath]
}

// allowed returns the methods of the documented path matching a request path, or
// nil when no documented path matches.
func (t *routeTable) allowed(path string) []string {
	segs := strings.Split(strings.Trim(path, "/"), "/")
	for _, p := range t.paths {
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
			return p.methods
		}
	}
	return nil
}

// has tells whether a documented operation exists.
func (t *routeTable) has(method, ginPath string) bool {
	_, ok := t.byKey[method+" "+ginPath]
	return ok
}

// relationshipEndpoints tells, per resource type and relationship, whether its
// relationship endpoint and its subresource exist (links lead only there).
type relationshipEndpoints map[string]map[string][2]bool

func (t *routeTable) relationshipEndpoints() relationshipEndpoints {
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
