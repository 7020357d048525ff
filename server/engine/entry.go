package engine

import (
	"context"
	"strings"

	"github.com/entityapi/entityapi/storage"
)

// A request can stand for several requests of the engine: an atomic request
// (server/atomic) is a list of operations, each served as the single request
// it stands for, all in one transaction. What such a request needs of the
// engine beyond the entry points the handlers call is here, and no more:
// the check every entry point makes first (Admit), one transaction of the
// store for them all (Tx, with Request.Tx), and the routes to map each
// operation to (RouteTable.Match, Base, and what kind of write a route is).

// Admit makes the check every entry point of the engine makes first: the
// edge handed over a complete request (its route and its caller; otherwise a
// wiring mistake, answered 500), whose meta parameter names what the engine
// knows. server/atomic admits the atomic request itself so, before it serves
// any of its operations.
func (e *Engine) Admit(r *Request) error {
	_, err := e.begin(r)
	return err
}

// Tx runs fn in one transaction of the engine's store: the requests fn hands
// the engine with Request.Tx set to tx read and write in it, and an error of
// fn rolls every one of them back. server/atomic runs the operations of an
// atomic request so: every one stored, or none.
func (e *Engine) Tx(ctx context.Context, fn func(tx *storage.Conn) error) error {
	return e.store.Conn.Tx(ctx, fn)
}

// Base is the application's base path, such as /admin, which every address
// of its routes starts with; server/atomic reads an operation's href against
// it.
func (t *RouteTable) Base() string { return t.base }

// Match finds the route of a method on a request path, and the values of its
// path parameters, as the router would; nil when no documented operation
// matches (Allowed tells a path with other methods from an unknown one).
// server/atomic maps each operation to the route of its single request so.
func (t *RouteTable) Match(method, path string) (*Route, map[string]string) {
	segs := strings.Split(path, "/")
	for key, rt := range t.byKey {
		if !strings.HasPrefix(key, method+" ") {
			continue
		}
		pat := strings.Split(rt.pattern, "/")
		if len(pat) != len(segs) {
			continue
		}
		params := map[string]string{}
		ok := true
		for i, s := range pat {
			switch {
			case strings.HasPrefix(s, ":"):
				if segs[i] == "" {
					ok = false
				}
				params[s[1:]] = segs[i]
			case s != segs[i]:
				ok = false
			}
			if !ok {
				break
			}
		}
		if ok {
			return rt, params
		}
	}
	return nil, nil
}

// IsCollection tells whether the route is a collection's address,
// /api/{type} (whose POST is Create); server/atomic maps an add to it.
func (rt *Route) IsCollection() bool { return rt.kind == collectionRoute }

// IsItem tells whether the route is a record's address, /api/{type}/{id}
// (whose PATCH is Update and DELETE Delete); server/atomic maps an update
// and a remove to it.
func (rt *Route) IsItem() bool { return rt.kind == itemRoute }
