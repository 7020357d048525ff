package engine

import (
	"sync"

	"github.com/entityapi/entityapi/server/jsonapi"
)

// A page of records is rendered into resource objects whose members,
// relationships and identifiers are cut from a few arrays (objectSlab): on
// a GET of ten regions those arrays were a third of the bytes the request
// allocated, and every byte allocated brings the next garbage collection
// closer (issue 16). They live only until the document is encoded: a list
// reply is encoded for its ETag (tagged) and then holds bytes, not objects.
// A list therefore cuts its arrays from a renderArena taken from a pool,
// and its reply hands the arena back once the document is encoded
// (jsonapi.Reply.OnDocumentDone). Replies that are not encoded, or whose
// document is taken (an atomic request's), leave their arena to the garbage
// collector, as before.

// renderArena holds the arrays one request's resource objects are cut from.
// Each slice's length is what the request has used; what a request needs
// beyond the capacity is allocated on its own, and the arena grows to the
// request's whole need when it is released (up to the arenaMax bounds), so
// that the next request of that size fits.
type renderArena struct {
	objs  []jsonapi.ResourceObject
	ptrs  []*jsonapi.ResourceObject
	attrs []jsonapi.Member
	rels  []jsonapi.RelationshipObject
	ids   []jsonapi.Identifier
	// need is what the request asked for of each, fitting or not.
	need struct{ objs, attrs, rels, ids int }
	// done is release, made once: a method value taken per request would
	// be an allocation of its own.
	done func()
}

// The largest arrays an arena keeps: a page of a hundred records with
// includes fits; a larger answer allocates the rest as it did before.
const (
	arenaMaxObjects    = 1024
	arenaMaxMembers    = 8192
	arenaMaxRelations  = 4096
	arenaMaxIdentities = 8192
)

var arenas sync.Pool

// newArena is an empty arena, a released one when there is one.
func newArena() *renderArena {
	if a, ok := arenas.Get().(*renderArena); ok {
		return a
	}
	a := new(renderArena)
	a.done = a.release
	return a
}

// objects returns n zeroed resource objects and n pointers to fill; a nil
// arena allocates them.
func (a *renderArena) objects(n int) ([]jsonapi.ResourceObject, []*jsonapi.ResourceObject) {
	if a == nil {
		return make([]jsonapi.ResourceObject, n), make([]*jsonapi.ResourceObject, n)
	}
	a.need.objs += n
	return take(&a.objs, n), take(&a.ptrs, n)
}

// members, relationships and identifiers return empty slices with room for
// exactly n (see objectSlab); a nil arena allocates them.
func (a *renderArena) members(n int) []jsonapi.Member {
	if a == nil {
		return make([]jsonapi.Member, 0, n)
	}
	a.need.attrs += n
	return take(&a.attrs, n)[:0]
}

func (a *renderArena) relationships(n int) []jsonapi.RelationshipObject {
	if a == nil {
		return make([]jsonapi.RelationshipObject, 0, n)
	}
	a.need.rels += n
	return take(&a.rels, n)[:0]
}

func (a *renderArena) identifiers(n int) []jsonapi.Identifier {
	if a == nil {
		return make([]jsonapi.Identifier, 0, n)
	}
	a.need.ids += n
	return take(&a.ids, n)[:0]
}

// take extends *pool's length by n and returns those n elements (zero: the
// arena is cleared when released), capped so that appending to them never
// reaches a neighbour; beyond the capacity it allocates n of its own.
func take[T any](pool *[]T, n int) []T {
	p := *pool
	if cap(p)-len(p) < n {
		return make([]T, n)
	}
	*pool = p[:len(p)+n]
	return p[len(p) : len(p)+n : len(p)+n]
}

// release empties the arena (reset) and puts it back for the next request.
// The caller must hold nothing cut from it any longer.
func (a *renderArena) release() {
	a.reset()
	arenas.Put(a)
}

// reset clears what the request used (the values it pointed to become
// garbage, and the next request finds zero objects) and grows each array to
// the request's need within its bound.
func (a *renderArena) reset() {
	a.objs = reuse(a.objs, a.need.objs, arenaMaxObjects)
	a.ptrs = reuse(a.ptrs, a.need.objs, arenaMaxObjects)
	a.attrs = reuse(a.attrs, a.need.attrs, arenaMaxMembers)
	a.rels = reuse(a.rels, a.need.rels, arenaMaxRelations)
	a.ids = reuse(a.ids, a.need.ids, arenaMaxIdentities)
	a.need = struct{ objs, attrs, rels, ids int }{}
}

// reuse is s emptied for the next request: cleared, or a new array of need
// elements when s was too small for this request and need is within bound.
func reuse[T any](s []T, need, bound int) []T {
	if need > cap(s) && need <= bound {
		return make([]T, 0, need)
	}
	clear(s)
	return s[:0]
}
