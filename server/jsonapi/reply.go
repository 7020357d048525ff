package jsonapi

import (
	"io"
	"net/http"
	"strconv"
	"sync"
)

// Reply is a complete HTTP answer: every generated operation accepts it as its
// response object, so the one engine can serve every operation.
type Reply struct {
	Status      int
	ContentType string
	Header      http.Header
	Body        []byte
	pooled      bool      // Body came from Buffer and goes back once written
	doc         *TopLevel // written in pieces by Write, instead of Body
	docDone     func()    // see OnDocumentDone
}

// DocumentReply is a JSON:API answer whose document is encoded only when the
// reply is written, straight to the connection in pieces (TopLevel.WriteTo),
// so that a large list is never held twice or grown in one buffer.
func DocumentReply(status int, doc *TopLevel) *Reply {
	return &Reply{Status: status, ContentType: MediaType, doc: doc}
}

// Document is the response document of a reply made with DocumentReply and
// not yet written, or nil; an atomic request takes each operation's record
// from it (server/atomic).
// The caller takes the document: OnDocumentDone's function no longer runs.
func (r *Reply) Document() *TopLevel {
	r.docDone = nil
	return r.doc
}

// OnDocumentDone sets fn to run once the reply no longer holds its
// document: when Digest has encoded it into the body, or Write has written
// it. The engine hands the arrays its resource objects were cut from back
// for the next request then (server/engine/arena.go). fn never runs for a
// reply that is dropped unwritten or whose document is taken (Document).
func (r *Reply) OnDocumentDone(fn func()) { r.docDone = fn }

// dropDocument lets go of the document, encoded by now, and runs docDone.
func (r *Reply) dropDocument() {
	r.doc = nil
	if fn := r.docDone; fn != nil {
		r.docDone = nil
		fn()
	}
}

// buffers recycles response buffers: a large list answer would otherwise grow
// a fresh buffer from small to large on every request.
var buffers = sync.Pool{New: func() any { b := make([]byte, 0, 16<<10); return &b }}

// maxPooled keeps unusually large buffers from staying in memory.
const maxPooled = 4 << 20

// Buffer returns an empty buffer for a response body; a Reply made with
// Pooled hands it back once written.
func Buffer() []byte { return (*buffers.Get().(*[]byte))[:0] }

// Pooled marks the reply's body as a Buffer to recycle after Write.
func (r *Reply) Pooled() *Reply {
	r.pooled = true
	return r
}

// Digest writes the body the reply would send to w (a hash, for an ETag),
// without sending it. A document of at most maxHeld bytes (most answers) is
// kept as the reply's body, encoded once for both; a longer one is encoded
// piece by piece, never held whole, and again when written.
func (r *Reply) Digest(w io.Writer) error {
	if r.doc == nil {
		_, err := w.Write(r.Body)
		return err
	}
	whole := -1
	held := &holder{w: w, b: Buffer()}
	b, err := r.doc.writeTo(held, Buffer(), func(n int) { whole = n })
	switch {
	case err == nil && whole >= 0: // one piece: writeTo hands back its buffer emptied, the piece still in it
		r.Body, r.pooled = b[:whole], true
		r.dropDocument()
		held.release()
		return nil
	case err == nil && !held.over:
		r.Body, r.pooled = held.b, true
		r.dropDocument()
	default:
		held.release()
	}
	if cap(b) <= maxPooled {
		buffers.Put(&b)
	}
	return err
}

// maxHeld is the largest document Digest keeps whole to write it as it was
// hashed, rather than encoding it a second time.
const maxHeld = 1 << 20

// holder passes each piece of a document to w and keeps a copy of them
// all until they pass maxHeld.
type holder struct {
	w    io.Writer
	b    []byte
	over bool
}

func (h *holder) Write(p []byte) (int, error) {
	if !h.over {
		if len(h.b)+len(p) > maxHeld {
			h.over = true
		} else {
			h.b = append(h.b, p...)
		}
	}
	return h.w.Write(p)
}

// release hands the copy's buffer back (when Digest did not keep it).
func (h *holder) release() {
	if b := h.b[:0]; cap(b) <= maxPooled {
		buffers.Put(&b)
	}
	h.b = nil
}

// Write sends the reply. Headers already set on w (request id, CORS) are kept.
// A reply whose body is known whole before its first byte is written (a
// body, or a document shorter than a piece) carries a Content-Length, so
// that net/http sends it as it is rather than in chunked encoding: on a
// keep-alive connection that is a write less and no chunk framing per
// answer.
func (r *Reply) Write(w http.ResponseWriter) error {
	h := w.Header()
	for k, v := range r.Header {
		h[k] = v
	}
	if r.ContentType != "" {
		h.Set("Content-Type", r.ContentType)
	}
	var err error
	switch {
	case r.doc != nil:
		var b []byte
		b, err = r.doc.writeTo(w, Buffer(), func(whole int) {
			if whole >= 0 {
				h.Set("Content-Length", strconv.Itoa(whole))
			}
			w.WriteHeader(r.Status)
		})
		if cap(b) <= maxPooled {
			buffers.Put(&b)
		}
		r.dropDocument()
	case len(r.Body) > 0:
		h.Set("Content-Length", strconv.Itoa(len(r.Body)))
		w.WriteHeader(r.Status)
		_, err = w.Write(r.Body)
	default:
		w.WriteHeader(r.Status)
	}
	if r.pooled && cap(r.Body) <= maxPooled {
		b := r.Body[:0]
		r.Body, r.pooled = nil, false
		buffers.Put(&b)
	}
	return err
}
