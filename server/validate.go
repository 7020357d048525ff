package server

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/gin-gonic/gin"

	"github.com/entityapi/entityapi/server/problem"
)

// queryKey keeps the parsed query string on the Gin context (queryOf).
const queryKey = "entityapi.query"

// validatorOptions: every problem is reported, not just the first; defaults are
// not written into the request (the engine applies its own), so the query
// values kin-openapi reads are left as they came and the engine may share them.
var validatorOptions = &openapi3filter.Options{
	MultiError:          true,
	SkipSettingDefaults: true,
	AuthenticationFunc:  openapi3filter.NoopAuthenticationFunc,
}

// validate checks a request against its operation in the public document before
// the generated handler sees it: the query string read whole, body size and
// encoding, type and id against the address (409, before the schema), then
// kin-openapi's parameter and body checks, and no NUL in a string of the body.
func (a *application) validate(c *gin.Context) {
	if p := readQuery(c.Request.URL.RawQuery); p != nil {
		a.abort(c, p) // before anything reads the query, a batch included
		return
	}
	rt := a.routes.lookup(c.Request.Method, c.FullPath())
	if rt == nil || rt.isBatch() {
		c.Next() // a batch streams: its handler checks the body as it reads it
		return
	}
	var body []byte
	if rt.kin.Operation.RequestBody != nil && c.Request.Body != nil {
		var err error
		if body, err = a.readBody(c); err != nil {
			a.abort(c, err)
			return
		}
		if p := checkAddress(rt, c.Param("id"), body, formatOf(c) == jsonapiFormat); p != nil {
			a.abort(c, p)
			return
		}
		c.Request.Body = io.NopCloser(bytes.NewReader(body))
	}
	query := c.Request.URL.Query()
	c.Set(queryKey, query) // the engine reads these values, not the raw query again
	params := make(map[string]string, len(c.Params))
	for _, p := range c.Params {
		params[p.Key] = p.Value
	}
	err := checkRequest(c.Request.Context(), rt, &openapi3filter.RequestValidationInput{
		Request: c.Request, PathParams: params, QueryParams: query, Route: rt.kin, Options: validatorOptions,
	})
	if err != nil {
		a.abort(c, translate(err, rt, formatOf(c)))
		return
	}
	if p := refuseNUL(body); p != nil {
		a.abort(c, p)
		return
	}
	if body != nil {
		c.Request.Body = io.NopCloser(bytes.NewReader(body))
	}
	c.Next()
}

// checkAddress answers 409 when a JSON:API body's type or id contradicts the
// address (oro-behaviour §15); it runs before schema validation, as Oro does.
func checkAddress(rt *route, id string, body []byte, isJSONAPI bool) *problem.Problem {
	if !isJSONAPI || (rt.kind != collectionRoute && rt.kind != itemRoute && rt.kind != operationRoute) {
		return nil
	}
	var doc struct {
		Data struct {
			Type *string `json:"type"`
			ID   *string `json:"id"`
		} `json:"data"`
	}
	if json.Unmarshal(body, &doc) != nil {
		return nil // the schema check reports it
	}
	if t := doc.Data.Type; t != nil && *t != rt.res.Type {
		return problem.Conflict("The 'type' property of the primary data object should match the requested resource.", "/data/type")
	}
	if rt.kind != collectionRoute && doc.Data.ID != nil && *doc.Data.ID != id {
		return problem.Conflict("The 'id' property of the primary data object should match 'id' parameter of the query string.", "/data/id")
	}
	return nil
}
