package server

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/entityapi/entityapi/server/answercache"
	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/storage"
)

// Reference data from memory (issue 34, item 1; docs/answers.md). The
// reads of reference data (resource.Registry.Reference: countries, regions,
// currencies, localizations, user roles), which change only by migration or
// an operator's write, are answered from the rendered answers kept in
// memory (server/answercache), shared by both applications of the process:
//
//   - the key is everything that changes the answer: the application, the
//     path and query as sent, the format, the public origin of the links,
//     the language and currency, X-Include, and who asks as the answer
//     sees it (a guest or not, the roles, which decide what the route and
//     the fields allow);
//   - an answer is served only when the reference generation read after the
//     request arrived (storage.Store.ReferenceGeneration: counters the
//     database's triggers raise with every change of those tables, in every
//     process; or spared while the reference mark shows nothing changed
//     since a reading: storage.Store.ReferenceMark) is the one it was
//     rendered at; otherwise the engine answers,
//     reading the primary, and its answer is kept at that generation;
//   - only a 200 is kept. A request with If-None-Match is answered from a
//     kept answer as the engine would (engine.NotModified: a 304 with the
//     answer's headers but its body's, or the 200), but never fills one; a
//     request with If-Match, or a malformed If-None-Match, goes to the
//     engine.
//
// The middleware runs last, after the request's checks, its caller's
// rights and its rate: a kept answer skips only the engine.

// DefaultAnswerCache is the memory of kept answers (--answer-cache).
const DefaultAnswerCache = 32 << 20

// newAnswerCache is the cache of cfg's size over store, nil when off; it
// reads the generation until life ends.
func newAnswerCache(life context.Context, cfg *Config, store *storage.Store) *answercache.Cache {
	size := cfg.AnswerCache
	switch {
	case size < 0:
		return nil
	case size == 0:
		size = DefaultAnswerCache
	}
	store.KeepReferenceLease(life)
	marks := func() (answercache.Mark, bool) {
		m, ok := store.ReferenceMark()
		return answercache.Mark(m), ok
	}
	return answercache.New(life, size, store.ReferenceGeneration, marks)
}

// serveKept answers a read of reference data from the kept answers, or
// keeps the engine's answer (see the top of this file).
func (a *application) serveKept(c *gin.Context) {
	r := requestOf(c)
	if a.kept == nil || r == nil || !a.keepable(r) {
		c.Next()
		return
	}
	gen, err := a.kept.Fresh(r.Ctx)
	if err != nil {
		c.Next() // the engine answers, and its error says what the database does
		return
	}
	ifNoneMatch, err := engine.ParseIfNoneMatch(r.IfNoneMatch)
	if err != nil {
		c.Next() // a malformed If-None-Match: the engine says why
		return
	}
	key := a.answerKey(c, r)
	if kept := a.kept.Get(key, gen); kept != nil {
		serveAnswer(c, ifNoneMatch, kept)
		c.Abort()
		return
	}
	if r.IfNoneMatch != nil {
		c.Next() // the engine's answer may be a 304: nothing to keep
		return
	}
	w := newKeepingWriter(c.Writer, a.kept.MaxAnswer())
	c.Writer = w
	r.Ctx = storage.OnPrimary(r.Ctx) // the answer is tagged with the primary's generation
	c.Next()
	c.Writer = w.ResponseWriter
	if w.Status() == http.StatusOK && !w.tooLong && !c.IsAborted() {
		a.kept.Put(key, gen, answercache.NewAnswer(http.StatusOK, w.handlerHeader(), w.body))
	}
}

// serveAnswer writes kept as the answer to a request with ifNoneMatch: a
// 304 when it names the kept answer's tag, else the kept 200.
func serveAnswer(c *gin.Context, ifNoneMatch engine.IfNoneMatch, kept *answercache.Answer) {
	status, body := kept.Status, kept.Body
	if ifNoneMatch.NotModified(kept.Header.Get("ETag")) {
		status, body = http.StatusNotModified, nil
	}
	h := c.Writer.Header()
	for k, v := range kept.Header {
		if status == http.StatusNotModified && (k == "Content-Type" || k == "Content-Length") {
			continue // what a 304 says of a body it does not carry, the engine leaves out too
		}
		h[k] = v
	}
	c.Writer.WriteHeader(status)
	if body != nil {
		_, _ = c.Writer.Write(body)
	}
}

// keepable tells whether r's answer may be kept, or served from a kept
// one: a read of records of a reference type without If-Match, by a caller,
// outside a transaction.
func (a *application) keepable(r *engine.Request) bool {
	return r.Principal != nil && r.Tx == nil && r.IfMatch == nil &&
		r.Route.ReadsRecords() && a.reference[r.Route.Resource().Type]
}

// answerKey is the key of r's answer: every input of the engine's answer
// to a read (engine.Request) but the context.
func (a *application) answerKey(c *gin.Context, r *engine.Request) string {
	var b strings.Builder
	p := r.Principal
	b.Grow(len(a.base) + len(r.Path) + len(c.Request.URL.RawQuery) + len(r.Origin) + 64)
	for _, s := range []string{a.base, r.Path, c.Request.URL.RawQuery, r.Origin, r.Lang, r.Currency, p.App} {
		b.WriteString(s)
		b.WriteByte(0)
	}
	b.WriteString(strconv.Itoa(int(r.Format)))
	if p.Guest() {
		b.WriteString("\x00guest")
	}
	for _, role := range p.Roles {
		b.WriteByte(0)
		b.WriteString(role)
	}
	b.WriteByte(1) // the roles end: an X-Include value is never read as one
	for _, x := range r.XInclude {
		b.WriteByte(0)
		b.WriteString(x)
	}
	return b.String()
}

// keepingWriter copies the answer it writes, to keep it: the body up to
// limit bytes (tooLong past it), and which headers the handler set.
type keepingWriter struct {
	gin.ResponseWriter
	limit   int64
	body    []byte
	tooLong bool
	before  map[string][]string // the headers before the handler ran
}

func newKeepingWriter(w gin.ResponseWriter, limit int64) *keepingWriter {
	h := w.Header()
	before := make(map[string][]string, len(h))
	for k, v := range h {
		before[k] = v
	}
	return &keepingWriter{ResponseWriter: w, limit: limit, before: before}
}

func (w *keepingWriter) Write(b []byte) (int, error) {
	w.copy(b)
	return w.ResponseWriter.Write(b)
}

func (w *keepingWriter) WriteString(s string) (int, error) {
	w.copy([]byte(s))
	return w.ResponseWriter.WriteString(s)
}

func (w *keepingWriter) copy(b []byte) {
	if w.tooLong {
		return
	}
	if int64(len(w.body)+len(b)) > w.limit {
		w.tooLong, w.body = true, nil
		return
	}
	w.body = append(w.body, b...)
}

// handlerHeader is the headers the handler set or changed: those the
// middlewares before it set are theirs to set for each request.
func (w *keepingWriter) handlerHeader() http.Header {
	out := http.Header{}
	for k, v := range w.Header() {
		if prev, ok := w.before[k]; ok && sameValues(prev, v) {
			continue
		}
		out[k] = v
	}
	return out
}

// sameValues tells whether a and b are the same header value: the same
// slice, as a header left alone is.
func sameValues(a, b []string) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}
