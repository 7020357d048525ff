package server

import (
	"bytes"
	"io"

	"github.com/gin-gonic/gin"

	"github.com/entityapi/entityapi/server/atomic"
	"github.com/entityapi/entityapi/server/check"
	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/server/jsonapi"
)

// validate checks a request against its operation in the public document before
// the generated handler sees it (check), in a span of its own when tracing is on.
func (a *application) validate(c *gin.Context) {
	if a.tracer == nil {
		if a.check(c) {
			c.Next()
		}
		return
	}
	_, span := a.tracer.Start(c.Request.Context(), "validate")
	ok := a.check(c)
	endChecked(span, ok, c.Writer.Status())
	if ok {
		c.Next()
	}
}

// check is validate's work: the query string read whole, its parameters
// known to the operation (check/query.go), body size and
// encoding, type and id against the address (409, before the schema), then
// kin-openapi's parameter and body checks, and no NUL in a string of the body.
// It answers a request that fails and returns false.
func (a *application) check(c *gin.Context) bool {
	if p := engine.ReadQuery(c.Request.URL.RawQuery); p != nil {
		a.abort(c, p) // before anything reads the query, a batch included
		return false
	}
	r := requestOf(c)
	if r == nil {
		return true
	}
	rt := r.Route
	query := c.Request.URL.Query()
	r.Query = query // the engine reads these values, not the raw query again
	if ps := rt.Checks().UnknownQuery(query); ps != nil {
		a.abort(c, ps) // a batch's too: it declares the parameters it takes
		return false
	}
	if rt.IsBatch() {
		return true // a batch streams: its handler checks the body as it reads it
	}
	var body []byte
	if rt.Operation().Operation.RequestBody != nil && c.Request.Body != nil {
		var err error
		if body, err = a.readBody(c); err != nil {
			a.abort(c, err)
			return false
		}
		if p := rt.CheckAddress(r.ID, body, r.Format == engine.JSONAPI); p != nil {
			a.abort(c, p)
			return false
		}
		if rt.IsAtomic() {
			if p := atomic.Count(body, a.cfg.MaxAtomicOperations); p != nil {
				a.abort(c, p) // before the schema reads every operation
				return false
			}
			// negotiateAtomic took the media type; the document's key is this spelling of it
			c.Request.Header.Set("Content-Type", jsonapi.AtomicMediaType)
		}
		c.Request.Body = io.NopCloser(bytes.NewReader(body))
	}
	params := make(map[string]string, len(c.Params))
	for _, p := range c.Params {
		params[p.Key] = p.Value
	}
	if err := rt.Checks().Check(c.Request.Context(), c.Request, params, query); err != nil {
		if p := check.FormatHint(body, r.Format == engine.JSONAPI); p != nil && body != nil {
			a.abort(c, p) // the body's format, not its fields, is what to fix
			return false
		}
		a.abort(c, check.Translate(err, rt.Checks(), r.Format == engine.JSONAPI))
		return false
	}
	if p := check.RefuseNUL(body); p != nil {
		a.abort(c, p)
		return false
	}
	if body != nil {
		c.Request.Body = io.NopCloser(bytes.NewReader(body))
	}
	return true
}
