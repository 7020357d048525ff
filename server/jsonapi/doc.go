// Package jsonapi holds the wire shapes of entityapi: JSON:API request documents as
// clients send them (and without the @-members the specification says to
// ignore, atmembers.go), response documents as the engine writes them, both
// error formats, and the Reply every handler returns.
//
// It is the one package the generated code under gen/ may import (the OpenAPI
// documents name Document and Object in x-go-type hints), so it depends on the
// standard library only and knows nothing about resources, storage or HTTP routing.
package jsonapi

// MediaType is the JSON:API media type; PlainMediaType is the plain format's.
const (
	MediaType      = "application/vnd.api+json"
	PlainMediaType = "application/json"
	// AtomicExtension is the URI of JSON:API's Atomic Operations extension, and
	// AtomicMediaType the media type of its requests and answers, the one
	// JSON:API media type with a parameter that the API speaks (docs/decisions.md §0).
	AtomicExtension = "https://jsonapi.org/ext/atomic"
	AtomicMediaType = MediaType + `; ext="` + AtomicExtension + `"`
	// CursorProfile is the URI of the cursor-pagination profile, and
	// CursorMediaType the media type of a page read by cursor: JSON:API 1.1
	// says a server that applies a profile names it in Content-Type
	// (docs/queries.md, Cursor paging). Clients may ignore the parameter.
	CursorProfile   = "https://jsonapi.org/profiles/ethanresnick/cursor-pagination/"
	CursorMediaType = MediaType + `; profile="` + CursorProfile + `"`
)
