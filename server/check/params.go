package check

import (
	"context"
	"net/http"
	"net/url"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
)

// Operation is one documented operation compiled for checking the requests
// it is sent: kin-openapi's route, its parameters in the order kin-openapi
// visits them, and the requests that passed (memo.go). The route table
// builds one per route when the application starts, and the route keeps it.
type Operation struct {
	kin    *routers.Route
	params []param      // the operation's parameters, for checkRequest
	query  queryNames   // the query parameters it takes (query.go)
	intID  bool         // the path's id is an integer (Translate words its failure so)
	passed passedChecks // requests whose parameters passed (memo.go)
}

// NewOperation compiles the operation of kin. intID tells that the
// resource the path names has integer identifiers.
func NewOperation(kin *routers.Route, intID bool) *Operation {
	params := operationParams(kin.PathItem, kin.Operation)
	return &Operation{kin: kin, params: params, query: newQueryNames(params), intID: intID}
}

// kin-openapi's ValidateRequest decodes every parameter an operation
// declares, present or not, and allocates while doing so for each: a list
// operation declares a dozen filters, pages, sorts and headers, and a GET
// of ten regions spent a tenth of its allocations on parameters it was not
// sent. checkRequest runs the same checks, in the same order, through
// kin-openapi's own ValidateParameter and ValidateRequestBody, but passes
// over an optional parameter the request plainly does not carry (see
// param.absent). Such a parameter cannot fail: with
// SkipSettingDefaults, ValidateParameter returns nil for it. The security
// requirements are not checked here: validatorOptions' authentication
// function accepts every scheme, and authenticate did the real work.

// param is one parameter an operation takes, with how to tell that a
// request does not carry it.
type param struct {
	p *openapi3.Parameter
	// query or header is the name under which the parameter is looked up
	// when its absence can be told from the name alone ("" otherwise).
	query, header string
}

// absent reports whether the request certainly does not carry the optional
// parameter.
func (rp param) absent(query url.Values, header http.Header) bool {
	switch {
	case rp.p.Required:
		return false
	case rp.query != "":
		_, ok := query[rp.query]
		return !ok
	case rp.header != "":
		_, ok := header[rp.header]
		return !ok
	}
	return false
}

// operationParams lists the parameters of an operation as ValidateRequest
// visits them: the path item's (unless the operation overrides one), then
// the operation's.
func operationParams(item *openapi3.PathItem, op *openapi3.Operation) []param {
	var out []param
	for _, ref := range item.Parameters {
		if op.Parameters != nil && op.Parameters.GetByInAndName(ref.Value.In, ref.Value.Name) != nil {
			continue
		}
		out = append(out, newParam(ref.Value))
	}
	for _, ref := range op.Parameters {
		out = append(out, newParam(ref.Value))
	}
	return out
}

// newParam tells how a parameter's absence shows: a query parameter
// of the form style whose value is not an object is one key of that name
// (an object's properties would be keys of their own), a header one header.
func newParam(p *openapi3.Parameter) param {
	rp := param{p: p}
	primitive := p.Schema != nil && p.Schema.Value != nil && p.Content == nil && !p.Schema.Value.Type.Is(openapi3.TypeObject) &&
		p.Schema.Value.Type != nil && len(p.Schema.Value.AllOf)+len(p.Schema.Value.AnyOf)+len(p.Schema.Value.OneOf) == 0
	switch {
	case p.In == openapi3.ParameterInQuery && (p.Style == "" || p.Style == openapi3.SerializationForm) && primitive:
		rp.query = p.Name
	case p.In == openapi3.ParameterInHeader && primitive:
		rp.header = http.CanonicalHeaderKey(p.Name)
	}
	return rp
}

// validatorOptions: every problem is reported, not just the first; defaults are
// not written into the request (the engine applies its own), so the query
// values kin-openapi reads are left as they came and the engine may share them.
var validatorOptions = &openapi3filter.Options{
	MultiError:          true,
	SkipSettingDefaults: true,
	AuthenticationFunc:  openapi3filter.NoopAuthenticationFunc,
}

// Check validates a request against the operation as
// openapi3filter.ValidateRequest does with validatorOptions (see above),
// returning the same errors (Translate words them as problems). query is the
// request's query string (r.URL.RawQuery), parsed once. A request the
// operation has seen pass is passed again without checking (memo.go).
func (op *Operation) Check(ctx context.Context, r *http.Request, pathParams map[string]string, query url.Values) error {
	key, memo := op.checkKey(r, pathParams)
	if memo && op.passed.passed(key) {
		return nil
	}
	err := checkRequest(ctx, op, &openapi3filter.RequestValidationInput{
		Request: r, PathParams: pathParams, QueryParams: query, Route: op.kin, Options: validatorOptions,
	})
	if err == nil && memo {
		op.passed.remember(key)
	}
	return err
}

// checkRequest is Check on a prepared input.
func checkRequest(ctx context.Context, op *Operation, input *openapi3filter.RequestValidationInput) error {
	var me openapi3.MultiError
	for _, rp := range op.params {
		if rp.absent(input.QueryParams, input.Request.Header) {
			continue
		}
		if err := openapi3filter.ValidateParameter(ctx, input, rp.p); err != nil {
			me = append(me, err)
		}
	}
	if body := op.kin.Operation.RequestBody; body != nil {
		if err := openapi3filter.ValidateRequestBody(ctx, input, body.Value); err != nil {
			me = append(me, err)
		}
	}
	if len(me) > 0 {
		return me
	}
	return nil
}
