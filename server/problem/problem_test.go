package problem

import (
	"errors"
	"fmt"
	"testing"
)

func TestListStatus(t *testing.T) {
	cases := []struct {
		name string
		list List
		want int
	}{
		{"one", List{NotBlank("/data/attributes/name")}, 400},
		{"same kind", List{NotBlank("/a"), Unique("/b")}, 400},
		{"highest hundred wins", List{NotBlank("/a"), InternalError()}, 500},
		{"several 4xx with 409", List{NotFound(), Conflict("x", "")}, 409},
		{"several 4xx without 409", List{NotFound(), BodyTooLarge(1)}, 400},
		{"one distinct code", List{NotFound(), NotFound()}, 404},
	}
	for _, tc := range cases {
		if got := tc.list.Status(); got != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestFrom(t *testing.T) {
	if _, ok := From(errors.New("boom")); ok {
		t.Error("a plain error must be internal")
	}
	l, ok := From(fmt.Errorf("wrapped: %w", NotFound()))
	if !ok || len(l) != 1 || l.Status() != 404 {
		t.Errorf("wrapped problem: %v %v", l, ok)
	}
	if l, ok := From(List{NotBlank("/a"), NotBlank("/b")}); !ok || len(l) != 2 {
		t.Errorf("list: %v %v", l, ok)
	}
}

func TestKindStatuses(t *testing.T) {
	for k := Invalid; k <= Internal; k++ {
		if s := k.Status(); s < 400 || s > 599 {
			t.Errorf("kind %d maps to %d", k, s)
		}
	}
}
