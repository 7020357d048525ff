package jsonapi

import (
	"bytes"
	"io"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// TestDigestThenWrite: a reply digested for its ETag writes exactly the
// bytes it digested, and the bytes it would have written undigested; a
// document of one piece is encoded once (kept as the body), a longer one
// is not held whole.
func TestDigestThenWrite(t *testing.T) {
	many := func(n int) Many {
		m := make(Many, n)
		for i := range m {
			m[i] = &ResourceObject{Type: "regions", ID: strconv.Itoa(i), Attributes: []Member{{Name: "name", Value: strings.Repeat("r", 100)}}}
		}
		return m
	}
	for _, tc := range []struct {
		name string
		n    int
		kept bool // encoded once, kept as the body
	}{
		{"one piece", 10, true},
		{"several pieces, held", 2000, true},
		{"more than is held", 12000, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := &TopLevel{Data: many(tc.n), Links: &Links{Self: "http://x/api/regions"}}
			want := doc.AppendJSON(nil)
			reply := DocumentReply(200, doc)
			var digested bytes.Buffer
			if err := reply.Digest(&digested); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(digested.Bytes(), want) {
				t.Fatalf("digested %d bytes, the document is %d", digested.Len(), len(want))
			}
			if kept := reply.Document() == nil; kept != tc.kept {
				t.Errorf("document kept as the body: %v, want %v", kept, tc.kept)
			}
			rec := httptest.NewRecorder()
			if err := reply.Write(rec); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(rec.Body.Bytes(), want) {
				t.Fatalf("wrote %d bytes after the digest, the document is %d", rec.Body.Len(), len(want))
			}
			if rec.Header().Get("Content-Type") != MediaType {
				t.Errorf("Content-Type %q", rec.Header().Get("Content-Type"))
			}
			if tc.kept && rec.Header().Get("Content-Length") != strconv.Itoa(len(want)) {
				t.Errorf("Content-Length %q, want %d", rec.Header().Get("Content-Length"), len(want))
			}
		})
	}
}

// TestOnDocumentDone: the function runs once, as soon as the reply holds
// its document no longer: after Digest when the document became the body,
// after Write when it was too long to hold; never when the document is
// taken.
func TestOnDocumentDone(t *testing.T) {
	doc := func(n int) *TopLevel {
		m := make(Many, n)
		for i := range m {
			m[i] = &ResourceObject{Type: "regions", ID: strconv.Itoa(i), Attributes: []Member{{Name: "name", Value: strings.Repeat("r", 100)}}}
		}
		return &TopLevel{Data: m}
	}
	for _, tc := range []struct {
		name         string
		n            int
		digest, take bool
		afterDigest  int // runs once Digest returned
	}{
		{name: "digested, held", n: 10, digest: true, afterDigest: 1},
		{name: "digested, too long to hold", n: 12000, digest: true, afterDigest: 0},
		{name: "written without a digest", n: 10},
		{name: "document taken", n: 10, take: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runs := 0
			reply := DocumentReply(200, doc(tc.n))
			reply.OnDocumentDone(func() { runs++ })
			if tc.digest {
				if err := reply.Digest(io.Discard); err != nil {
					t.Fatal(err)
				}
				if runs != tc.afterDigest {
					t.Errorf("%d runs after Digest, want %d", runs, tc.afterDigest)
				}
			}
			want := 1
			if tc.take {
				if reply.Document() == nil {
					t.Fatal("no document to take")
				}
				want = 0
			}
			if err := reply.Write(httptest.NewRecorder()); err != nil {
				t.Fatal(err)
			}
			if runs != want {
				t.Errorf("%d runs after Write, want %d", runs, want)
			}
		})
	}
}
