package server

import (
	"bytes"
	"io"

	"github.com/gin-gonic/gin"

	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/server/jsonapi"
)

// validate checks a request against its operation in the public document before
// the generated handler sees it: the query string read whole, body size and
// encoding, type and id against the address (409, before the schema), then
// kin-openapi's parameter and body checks, and no NUL in a string of the body.
func (a *application) validate(c *gin.Context) {
	if p := engine.ReadQuery(c.Request.URL.RawQuery); p != nil {
		a.abort(c, p) // before anything reads the query, a batch included
		return
	}
	r := requestOf(c)
	if r == nil {
		c.Next()
		return
	}
	rt := r.Route
	query := c.Request.URL.Query()
	r.Query = query // the engine reads these values, not the raw query again
	if rt.IsBatch() {
		c.Next() // a batch streams: its handler checks the body as it reads it
		return
	}
	var body []byte
	if rt.Operation().Operation.RequestBody != nil && c.Request.Body != nil {
		var err error
		if body, err = a.readBody(c); err != nil {
			a.abort(c, err)
			return
		}
		if p := rt.CheckAddress(r.ID, body, r.Format == engine.JSONAPI); p != nil {
			a.abort(c, p)
			return
		}
		if rt.IsAtomic() {
			if p := engine.CountAtomic(body, a.cfg.MaxAtomicOperations); p != nil {
				a.abort(c, p) // before the schema reads every operation
				return
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
	if err := rt.Check(c.Request.Context(), c.Request, params, query); err != nil {
		a.abort(c, engine.Translate(err, rt, r.Format))
		return
	}
	if p := engine.RefuseNUL(body); p != nil {
		a.abort(c, p)
		return
	}
	if body != nil {
		c.Request.Body = io.NopCloser(bytes.NewReader(body))
	}
	c.Next()
}
