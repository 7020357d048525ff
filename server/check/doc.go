// Package check holds a request to the OpenAPI document before the engine
// serves it: kin-openapi's checks of an operation's parameters and body
// (params.go), the bounded memo of the requests that passed them (memo.go),
// the wording of what fails as Oro words it (translate.go), the
// check of one resource object sent inside another request (item.go), and
// the refusal of a NUL character in a body (nul.go).
//
// It is its own package so that these checks, which run on every request,
// can be read, tested and measured without the engine: the edge, the engine
// and the batch code use it, and it knows nothing of them, of storage or of
// HTTP servers. The route table compiles an Operation per documented route
// when the application starts.
package check
