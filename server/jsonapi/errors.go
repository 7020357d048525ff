package jsonapi

// Error is one problem in a JSON:API error document.
type Error struct {
	Status string       `json:"status,omitempty"`
	Code   string       `json:"code,omitempty"`
	Title  string       `json:"title"`
	Detail string       `json:"detail,omitempty"`
	Source *ErrorSource `json:"source,omitempty"`
	Links  *ErrorLinks  `json:"links,omitempty"`
	Meta   any          `json:"meta,omitempty"`
}

// ErrorLinks are an error's links for a problem a published profile
// defines: about, its definition, and type, its type URI (JSON:API 1.1;
// the cursor-pagination profile requires it).
type ErrorLinks struct {
	About string `json:"about"`
	Type  string `json:"type,omitempty"`
}

// ErrorSource tells where in the request a problem is; at most one member is set.
type ErrorSource struct {
	Pointer   string `json:"pointer,omitempty"`
	Parameter string `json:"parameter,omitempty"`
	Header    string `json:"header,omitempty"`
}

// ErrorDocument is the JSON:API error body.
type ErrorDocument struct {
	Errors []Error     `json:"errors"`
	Meta   *ErrorsMeta `json:"meta,omitempty"`
}

// ErrorsMeta carries the request id so a client can quote it to support.
type ErrorsMeta struct {
	RequestID string `json:"requestId"`
}

// PlainError is one problem in the plain format, where source is a bare string.
type PlainError struct {
	Code   string `json:"code,omitempty"`
	Title  string `json:"title"`
	Detail string `json:"detail,omitempty"`
	Source string `json:"source,omitempty"`
}
