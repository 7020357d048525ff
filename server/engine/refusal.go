package engine

import (
	"net/http"
	"slices"

	"github.com/entityapi/entityapi/server/problem"
)

// Refusal is the problem answering a method that the documented path of a
// request path does not allow (Allowed lists the methods it does; where no
// documented path matches, the answer is a 404, not this). It is 405 Method
// Not Allowed, HTTP's answer and Oro's (oro-behaviour §7, §8), except where
// JSON:API 1.1 says "a server MUST return 403 Forbidden in response to an
// unsupported request to update a resource or relationship": in a request
// answered in JSON:API (jsonAPI), a PATCH of a record and a PATCH, POST or
// DELETE of a relationship endpoint are 403 (docs/decisions.md §17). The
// plain format is not JSON:API and keeps 405, as does every other method (a
// POST to a read-only collection, a DELETE of a record that cannot be
// deleted) and every address the engine does not route.
func (t *RouteTable) Refusal(method, path string, jsonAPI bool) *problem.Problem {
	e := t.entryOf(path)
	if !jsonAPI || e == nil || e.route == nil || slices.Contains(e.methods, method) {
		return problem.NotAllowed(method) // the last: an address the router did not take as written
	}
	rt := e.route
	switch {
	case rt.kind == itemRoute && method == http.MethodPatch:
		return problem.ResourceNotUpdatable(rt.res.Type, e.methods)
	case rt.kind == relationshipRoute && (method == http.MethodPatch || method == http.MethodPost || method == http.MethodDelete):
		return problem.RelationshipNotChangeable(method, rt.res.Type, rt.rel.Name, !rt.rel.ToMany, e.methods)
	}
	return problem.NotAllowed(method)
}
