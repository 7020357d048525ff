package engine

// Format is the representation a request is answered in (docs/decisions.md §3): the
// edge negotiates it from Accept and Content-Type.
type Format int

const (
	// Plain is the plain JSON format, for requests that do not name JSON:API.
	Plain Format = iota
	// JSONAPI is application/vnd.api+json.
	JSONAPI
)
