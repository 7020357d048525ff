package server

import (
	"context"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/entityapi/entityapi/server/engine"
)

// requestKey keeps the engine's view of a request (engine.Request) on the
// Gin context; gin.Context answers Value for a string key from its keys, so
// the generated handlers' ctx carries it to the engine (requestOf).
const requestKey = "entityapi.request"

// begin is an application's first middleware. It finds the documented route
// the router matched, once for the whole request, and starts the engine's
// view of the request, which the middlewares after it complete: negotiate
// its format, authenticate its caller, localeHeaders its language, validate
// its query. A request the document has no route for goes on without one
// (the unmatched handler answers it).
//
// It also gives the request its deadline (--request-timeout), so that every
// query the request sends is cancelled when the time is up: modernc's
// SQLite interrupts the running statement, pgx cancels it on the server;
// writeError answers the failure 503 (problem.TimedOut). Without it the HTTP
// server's write timeout only dropped the answer while the queries ran on
// for minutes (issue 15). Batch uploads have their own, longer deadlines
// (batchRequest) and are left alone.
func (a *application) begin(c *gin.Context) {
	rt := a.routes.Lookup(c.Request.Method, c.FullPath())
	if rt == nil {
		c.Next()
		return
	}
	if a.cfg.RequestTimeout > 0 && !rt.IsBatch() {
		ctx, cancel := context.WithTimeout(c.Request.Context(), a.cfg.RequestTimeout)
		defer cancel()
		c.Request = c.Request.WithContext(ctx)
	}
	c.Set(requestKey, &engine.Request{Ctx: c.Request.Context(), Route: rt, ID: c.Param("id"), Path: c.Request.URL.Path,
		Origin: a.publicBase(c.Request), XInclude: c.Request.Header.Values("X-Include"),
		IfMatch: headerValues(c.Request.Header, "If-Match"), IfNoneMatch: headerValues(c.Request.Header, "If-None-Match")})
	c.Next()
}

// headerValues is the values of a list header, nil when the request has
// none (an empty If-Match is there, and malformed, not absent). Several
// lines of it are one list (RFC 9110 §5.3): they are joined into one line
// on the request too, as the generated binding takes one value only.
func headerValues(h http.Header, name string) []string {
	key := http.CanonicalHeaderKey(name)
	v, ok := h[key]
	if !ok {
		return nil
	}
	if len(v) > 1 {
		v = []string{strings.Join(v, ", ")}
		h[key] = v
	}
	if v == nil {
		return []string{}
	}
	return v
}

// requestOf is the engine's view of a request begin started, or nil outside
// the documented routes.
func requestOf(ctx context.Context) *engine.Request {
	r, _ := ctx.Value(requestKey).(*engine.Request)
	return r
}

// publicBase is --public-url, or the scheme and host the request came to.
func (a *application) publicBase(r *http.Request) string {
	if a.cfg.PublicURL != "" {
		return strings.TrimSuffix(a.cfg.PublicURL, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// batchRequest hands a batch request, PATCH /api/{type}, to the
// application's batch pipeline (server/batch), which streams its body, and
// answers the error it returns when it has answered nothing itself. A
// keyed upload (idempotent) answers through its keyedWrite: the pipeline
// records its answer and keeps it in the transaction that publishes the
// upload.
func (a *application) batchRequest(c *gin.Context) {
	w, _ := c.Value(keyedUploadKey).(*keyedWrite)
	if w == nil {
		if err := a.batches.Serve(c.Writer, c.Request, requestOf(c), nil); err != nil {
			a.writeError(c, err)
		}
		return
	}
	// A refused upload keeps nothing (finish without keepRefusals): it
	// wrote nothing, and a retry is checked again as it streams.
	w.finish(c, a.batches.Serve(w.rec, c.Request, requestOf(c), w), false)
}
