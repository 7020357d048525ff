package jsonapi

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
)

// pieceRecorder keeps what each Write was given.
type pieceRecorder struct {
	all    bytes.Buffer
	writes []int
}

func (r *pieceRecorder) Write(p []byte) (int, error) {
	r.writes = append(r.writes, len(p))
	return r.all.Write(p)
}

// TestWriteToInPieces: a large list is written in pieces of about pieceSize
// (never one buffer holding the whole document), and the pieces add up to
// exactly what AppendJSON gives, for lists, single resources, linkage and
// included members.
func TestWriteToInPieces(t *testing.T) {
	object := func(i int) *ResourceObject {
		return &ResourceObject{Type: "contacts", ID: strconv.Itoa(i),
			Attributes: []Member{{Name: "firstName", Value: strings.Repeat("x", 200)}},
			Relationships: []RelationshipObject{{Name: "accounts", ToMany: true,
				Data: []Identifier{{Type: "accounts", ID: "1"}, {Type: "accounts", ID: "2"}}}}}
	}
	many := func(n int) Many {
		m := make(Many, n)
		for i := range m {
			m[i] = object(i)
		}
		return m
	}
	for _, tc := range []struct {
		name      string
		doc       *TopLevel
		minWrites int
	}{
		{"a large list with included", &TopLevel{Data: many(5000), Included: many(3000), Links: &Links{Self: "http://x/api/contacts"}}, 10},
		{"an empty list, include asked", &TopLevel{Data: Many{}, IncludeAsked: true}, 1},
		{"one resource", &TopLevel{Data: One{Resource: object(1)}}, 1},
		{"no resource", &TopLevel{Data: One{}}, 1},
		{"to-many linkage", &TopLevel{Data: ToMany{{Type: "accounts", ID: "1"}}}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.doc.AppendJSON(nil)
			var rec pieceRecorder
			if _, err := tc.doc.WriteTo(&rec, nil); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(rec.all.Bytes(), want) {
				t.Fatalf("WriteTo wrote %d bytes that differ from AppendJSON's %d", rec.all.Len(), len(want))
			}
			if len(rec.writes) < tc.minWrites {
				t.Errorf("%d writes for %d bytes, want at least %d", len(rec.writes), len(want), tc.minWrites)
			}
			largestObject := len(object(99999).AppendJSON(nil)) + 1
			for i, n := range rec.writes {
				if n > pieceSize+largestObject {
					t.Errorf("write %d holds %d bytes, more than a piece (%d) and one object", i, n, pieceSize)
				}
			}
		})
	}
}
