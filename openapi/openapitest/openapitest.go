// Package openapitest holds the check every test that calls the API makes of
// an answer: that it is what the document says of its operation (a documented
// status, its headers and body schema), through kin-openapi, so that the server
// tests' contract check and the guide's test (scripts/addentity) judge answers
// alike.
package openapitest

import (
	"bytes"
	"context"
	"io"
	"net/http"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// CheckResponse validates the answer res, whose body was read into body, to
// req, whose body was reqBody, against route, the operation a router found for
// req with its path parameters. An undocumented status is an error, and every
// violation is reported, not only the first.
func CheckResponse(ctx context.Context, route *routers.Route, params map[string]string, req *http.Request, reqBody []byte, res *http.Response, body []byte) error {
	r := req.Clone(ctx)
	r.Body = io.NopCloser(bytes.NewReader(reqBody))
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: r, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}},
		Status: res.StatusCode, Header: res.Header,
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	in.SetBodyBytes(body)
	return openapi3filter.ValidateResponse(ctx, in)
}
