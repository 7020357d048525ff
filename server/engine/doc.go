// Package engine is the one generic JSON:API engine: read, write, related
// records and relationships, include, filter, sort and page, upsert, the
// rules of each type, and the chunks of a batch, for every resource a
// document describes (server/resource). The generated handlers delegate to
// it with an engine.Request: the route the request matched and what the HTTP
// edge (package server) read, negotiated, authenticated and checked. It knows
// nothing of Gin or of the HTTP server; what it answers is a jsonapi.Reply or
// an error, which the edge maps to HTTP in one place.
package engine
