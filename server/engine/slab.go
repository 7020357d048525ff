package engine

import (
	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/resource"
)

// objectSlab hands out the slices of rendered resource objects from arrays
// allocated once for a set of records of one type: rendering a page of
// records then costs a few allocations, not a few per record. Every slice it
// returns is empty with a capacity of exactly what was asked, so appending
// within it never reaches a neighbour's part; a request beyond what the slab
// was sized for gets a slice of its own.
type objectSlab struct {
	attrs []jsonapi.Member
	rels  []jsonapi.RelationshipObject
	ids   []jsonapi.Identifier
	// collection is the address of the records' collection, built for the
	// first of them and shared by all: each object's address is written
	// from it and the object's id (jsonapi.ResourceObject.Collection).
	collection string
}

// newObjectSlab sizes a slab for n records of res: every attribute and
// relationship of each, one identifier per to-one relationship, and the
// related keys links holds for its to-many relationships. Its arrays are
// cut from arena (nil: allocated).
func newObjectSlab(res *resource.Resource, n int, links linkage, arena *renderArena) objectSlab {
	ids := 0
	for _, rel := range res.Relationships {
		if !rel.ToMany {
			ids += n
			continue
		}
		for _, keys := range links[rel.Name] {
			ids += len(keys)
		}
	}
	return objectSlab{
		attrs: arena.members(n * len(res.Attributes)),
		rels:  arena.relationships(n * len(res.Relationships)),
		ids:   arena.identifiers(ids),
	}
}

func (s *objectSlab) members(n int) []jsonapi.Member {
	return cut(&s.attrs, n)
}

func (s *objectSlab) relationships(n int) []jsonapi.RelationshipObject {
	return cut(&s.rels, n)
}

// identifiers returns room for n identifiers; none (n == 0) is an empty
// list, not a nil one: an empty to-many relationship is [], not null.
func (s *objectSlab) identifiers(n int) []jsonapi.Identifier {
	return cut(&s.ids, n)
}

// cut takes n elements of room from the end of *pool's length, or makes a
// new slice when the pool's capacity is used up.
func cut[T any](pool *[]T, n int) []T {
	p := *pool
	if cap(p)-len(p) < n {
		return make([]T, 0, n)
	}
	*pool = p[:len(p)+n]
	return p[len(p) : len(p) : len(p)+n]
}
