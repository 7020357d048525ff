package storage

import (
	"strconv"
	"testing"
)

// TestReleaseEmptiesRows: Release takes the row out of the caller's slice
// and empties it, the values read from it before stay what they were, and
// newRow's rows (released ones or new) are empty and usable.
func TestReleaseEmptiesRows(t *testing.T) {
	r := newRow(4)
	r["code"], r["name"] = "AT-1", "Burgenland"
	name := r["name"]
	rows := []Row{r}
	Release(rows)
	if rows[0] != nil {
		t.Errorf("the released slice still holds the row")
	}
	if len(r) != 0 {
		t.Errorf("a released row holds %v", r)
	}
	if name != "Burgenland" {
		t.Errorf("a value read before Release became %v", name)
	}
	// sync.Pool may drop what it holds at any time: reuse is not asserted.
	for range 3 {
		again := newRow(4)
		if len(again) != 0 {
			t.Fatalf("newRow gave %v", again)
		}
		again["code"] = "AT-2"
		if len(again) != 1 || again["code"] != "AT-2" {
			t.Fatalf("a new row holds %v", again)
		}
		Release([]Row{again})
	}
}

// TestReleaseLeavesWideRows: rows wider than the largest class are left to
// the garbage collector untouched, and nil rows are skipped.
func TestReleaseLeavesWideRows(t *testing.T) {
	wide := Row{}
	for i := range 8<<(len(rowPools)-1) + 1 {
		wide["c"+strconv.Itoa(i)] = i
	}
	n := len(wide)
	Release([]Row{wide, nil})
	if len(wide) != n {
		t.Errorf("a wide row was emptied: %d columns left of %d", len(wide), n)
	}
	for cols, want := range map[int]int{1: 0, 8: 0, 9: 1, 64: 3, n: -1} {
		if got := rowClass(cols); got != want {
			t.Errorf("rowClass(%d) = %d, want %d", cols, got, want)
		}
	}
}
