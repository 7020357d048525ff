package engine

import (
	"testing"

	"github.com/entityapi/entityapi/server/jsonapi"
)

// TestRenderArena: a request's arrays come from the arena once it has grown
// to the request's need; what a request left in them is gone for the next
// one; slices cut side by side never overwrite each other; a need beyond the
// bound is not kept.
func TestRenderArena(t *testing.T) {
	a := new(renderArena)
	objs, ptrs := a.objects(3)
	if len(objs) != 3 || len(ptrs) != 3 || cap(a.objs) != 0 {
		t.Fatalf("an empty arena: %d objects, %d pointers, arena capacity %d", len(objs), len(ptrs), cap(a.objs))
	}
	a.members(4)
	a.reset()
	if cap(a.objs) != 3 || cap(a.ptrs) != 3 || cap(a.attrs) != 4 {
		t.Fatalf("after a request of 3 objects and 4 members the arena holds %d, %d and %d", cap(a.objs), cap(a.ptrs), cap(a.attrs))
	}

	objs, _ = a.objects(3)
	if &objs[0] != &a.objs[:1][0] {
		t.Fatal("a request that fits is not served from the arena")
	}
	objs[2] = jsonapi.ResourceObject{Type: "regions", ID: "AD-02", Meta: []jsonapi.Member{{Name: "title", Value: "Canillo"}}}
	first, second := a.members(2), a.members(2)
	first = append(first, jsonapi.Member{Name: "a", Value: 1}, jsonapi.Member{Name: "b", Value: 2})
	second = append(second, jsonapi.Member{Name: "c", Value: 3}, jsonapi.Member{Name: "d", Value: 4})
	if first[1].Name != "b" || second[0].Name != "c" || cap(first) != 2 {
		t.Fatalf("side by side: %v and %v (capacity %d)", first, second, cap(first))
	}
	if a.members(1) == nil || cap(a.attrs) != 4 {
		t.Fatal("a request beyond the arena's room must get a slice of its own")
	}
	a.reset()
	if cap(a.attrs) != 5 {
		t.Errorf("the arena grew to %d members, want the request's need of 5", cap(a.attrs))
	}
	again, _ := a.objects(3)
	if again[2].Type != "" || again[2].Meta != nil {
		t.Errorf("the next request found %+v left from the last", again[2])
	}

	a.reset()
	a.objects(arenaMaxObjects + 1)
	a.reset()
	if cap(a.objs) > arenaMaxObjects {
		t.Errorf("the arena kept %d objects, bound %d", cap(a.objs), arenaMaxObjects)
	}
}
