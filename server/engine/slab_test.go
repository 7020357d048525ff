package engine

import (
	"reflect"
	"testing"
)

// TestCutKeepsPartsApart: a part cut from a pool has exactly the room asked
// for, so filling it (and appending past it) never writes into the next part;
// a pool used up hands out slices of their own; no room is an empty list,
// not nil.
func TestCutKeepsPartsApart(t *testing.T) {
	pool := make([]int, 0, 5)
	a, b := cut(&pool, 2), cut(&pool, 3)
	a = append(a, 1, 2)
	b = append(b, 3, 4, 5)
	a = append(a, 99) // beyond its room: a copy, b untouched
	if !reflect.DeepEqual(b, []int{3, 4, 5}) || !reflect.DeepEqual(a, []int{1, 2, 99}) {
		t.Fatalf("a = %v, b = %v", a, b)
	}
	if c := cut(&pool, 1); cap(c) != 1 || len(c) != 0 {
		t.Errorf("past the pool: len %d cap %d, want 0 and 1", len(c), cap(c))
	}
	if none := cut(&pool, 0); none == nil {
		t.Error("no room is nil, want an empty list")
	}
}

// TestGroupByOwner keeps each owner's related keys in the order of the pairs.
func TestGroupByOwner(t *testing.T) {
	got := groupByOwner([][2]any{{int64(7), int64(1)}, {int64(3), int64(2)}, {int64(5), int64(1)}, {"x", int64(2)}, {int64(9), int64(100)}})
	want := map[string][]any{"1": {int64(7), int64(5)}, "2": {int64(3), "x"}, "100": {int64(9)}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("groupByOwner = %v, want %v", got, want)
	}
	// As storage answers them: by owner, one run each.
	got = groupByOwner([][2]any{{"a", "US"}, {"b", "US"}, {"c", "US"}, {int64(4), int64(1)}, {"d", "DE"}})
	want = map[string][]any{"US": {"a", "b", "c"}, "1": {int64(4)}, "DE": {"d"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("groupByOwner of runs = %v, want %v", got, want)
	}
	// A list cut from the shared array must not be written by a later append.
	got = groupByOwner([][2]any{{int64(1), "x"}, {int64(2), "y"}, {int64(3), "x"}})
	if want := map[string][]any{"x": {int64(1), int64(3)}, "y": {int64(2)}}; !reflect.DeepEqual(got, want) {
		t.Errorf("groupByOwner of split runs = %v, want %v", got, want)
	}
	if got := groupByOwner(nil); len(got) != 0 {
		t.Errorf("groupByOwner(nil) = %v", got)
	}
}
