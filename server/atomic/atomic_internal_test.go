package atomic

import (
	"errors"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/server/problem"
)

// TestCount: a body over the limit is refused before any operation is read;
// one within it, one the count cannot read and no limit at all are left to
// the checks that follow.
func TestCount(t *testing.T) {
	t.Parallel()
	ops := func(n int) []byte {
		return []byte(`{"atomic:operations":[` + strings.TrimSuffix(strings.Repeat(`{"op":"add"},`, n), ",") + `]}`)
	}
	for _, tc := range []struct {
		name  string
		body  []byte
		limit int
		over  bool
	}{
		{name: "within", body: ops(3), limit: 3},
		{name: "over", body: ops(4), limit: 3, over: true},
		{name: "no limit", body: ops(4), limit: 0},
		{name: "not json", body: []byte(`{"atomic:operations":[`), limit: 1},
		{name: "not a list", body: []byte(`{"atomic:operations":{}}`), limit: 1},
	} {
		p := Count(tc.body, tc.limit)
		if (p != nil) != tc.over {
			t.Errorf("%s: Count = %v, want refused %v", tc.name, p, tc.over)
			continue
		}
		if p != nil && (p.Kind != problem.TooLarge || p.Pointer != "/atomic:operations" ||
			!strings.Contains(p.Detail, "at most 3 operations; this one holds 4")) {
			t.Errorf("%s: Count = %+v", tc.name, p)
		}
	}
}

// TestAtOperation: the problems of an operation point into the atomic
// request: a pointer into the single request's document goes below the
// operation, one already there stays, one that says nowhere points at the
// operation, a parameter's or header's keeps its place; an error that is no
// problem passes unchanged, and the operation's own problems are not changed.
func TestAtOperation(t *testing.T) {
	t.Parallel()
	in := problem.List{
		problem.RequestData("in the data", "/data/attributes/name"),
		problem.RequestData("already placed", "/atomic:operations/2/op"),
		problem.RequestData("nowhere", ""),
		problem.Filter("page[size]", "named by its parameter"),
		problem.HeaderValue("X-Include", "named by its header"),
	}
	list, ok := problem.From(atOperation(in, 2))
	if !ok || len(list) != len(in) {
		t.Fatalf("atOperation = %v", list)
	}
	want := []string{"/atomic:operations/2/data/attributes/name", "/atomic:operations/2/op", "/atomic:operations/2", "", ""}
	for i, p := range list {
		if p.Pointer != want[i] {
			t.Errorf("problem %d (%s): pointer %q, want %q", i, p.Detail, p.Pointer, want[i])
		}
	}
	if in[0].Pointer != "/data/attributes/name" || in[2].Pointer != "" {
		t.Error("atOperation changed the operation's own problems")
	}
	other := errors.New("not a problem")
	if got := atOperation(other, 0); got != other {
		t.Errorf("atOperation(plain error) = %v", got)
	}
}
