package jsonapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"unicode/utf8"
)

// Document is a JSON:API top-level document as a client sends it. Members stay raw
// until the engine knows which resource they describe: the request validator has
// already checked them against that resource's schema.
type Document struct {
	Data        json.RawMessage `json:"data"`
	Included    json.RawMessage `json:"included,omitempty"`
	Meta        json.RawMessage `json:"meta,omitempty"`
	JSONAPI     json.RawMessage `json:"jsonapi,omitempty"`
	Links       json.RawMessage `json:"links,omitempty"`
	AccessToken *string         `json:"access_token,omitempty"`
}

// Object is a request body in the plain format: a flat object of fields, with
// related identifiers inline.
type Object map[string]json.RawMessage

// Resource is one resource object of a request document.
type Resource struct {
	Type          string                     `json:"type"`
	ID            *string                    `json:"id,omitempty"`
	Attributes    map[string]json.RawMessage `json:"attributes,omitempty"`
	Relationships map[string]Relationship    `json:"relationships,omitempty"`
	Meta          map[string]json.RawMessage `json:"meta,omitempty"`
}

// Relationship is one member of a request resource's relationships.
type Relationship struct {
	Data json.RawMessage `json:"data"`
}

// Identifier names one resource.
type Identifier struct {
	Type string `json:"type"`
	ID   string `json:"id"`
}

// ErrNotObject reports primary data that is not a single resource object.
var ErrNotObject = errors.New("the primary data object should be an object")

// IsNull tells whether a raw member is absent or JSON null.
func IsNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

// PlainString is the string a JSON string value holds when it is written
// without escapes (then its bytes are the string, as encoding/json decodes
// it); false for anything else, which encoding/json must then read. The
// engine and the batch read the plain strings of request bodies with it,
// without encoding/json's scans.
func PlainString(val []byte) (string, bool) {
	if len(val) < 2 || val[0] != '"' || val[len(val)-1] != '"' {
		return "", false
	}
	inner := val[1 : len(val)-1]
	if bytes.IndexByte(inner, '\\') >= 0 || !utf8.Valid(inner) {
		return "", false
	}
	return string(inner), true
}

// Primary decodes the primary data as one resource object.
func (d *Document) Primary() (*Resource, error) {
	t := bytes.TrimSpace(d.Data)
	if len(t) == 0 || t[0] != '{' {
		return nil, ErrNotObject
	}
	var r Resource
	if err := json.Unmarshal(t, &r); err != nil {
		return nil, err
	}
	return &r, nil
}

// Linkage decodes a relationship's data: nil with toMany false means null; a
// to-many relationship gives every identifier in order.
func (r Relationship) Linkage() (ids []Identifier, toMany bool, err error) {
	t := bytes.TrimSpace(r.Data)
	switch {
	case IsNull(t):
		return nil, false, nil
	case t[0] == '[':
		err = json.Unmarshal(t, &ids)
		return ids, true, err
	default:
		var one Identifier
		err = json.Unmarshal(t, &one)
		return []Identifier{one}, false, err
	}
}
