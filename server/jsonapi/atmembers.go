package jsonapi

import (
	"bytes"
	"encoding/json"
)

// JSON:API 1.1 (Document Structure, "@-Members") lets a member name begin
// with "@" (JSON-LD's "@context", for one) anywhere in a document, and says
// that an implementation MUST ignore such members when it interprets the
// specification: an @-member in attributes is no attribute, one at the top
// level or in a resource object is no unknown member. The service reads a
// JSON:API request body through its OpenAPI documents, whose objects admit no
// member they do not declare (additionalProperties: false), then through
// encoding/json; rather than teach every reader the rule, the @-members are
// taken out of a body once, as it is read (the edge's readBody, the batch
// splitter's items), and everything after sees the body as if they had never
// been sent. The plain format is not JSON:API: an "@x" there is an unknown
// field like any other, and nothing here is asked about it.
//
// Only the objects the specification defines lose their @-members: the
// top level, resource objects and identifiers (in data, included and an
// atomic operation's data), attributes, relationships, relationship objects,
// meta, the jsonapi object, atomic operations and their ref. What a member
// of attributes or meta holds is the application's value, kept as sent.

// shape is an object the specification defines, with the members whose
// values are such objects too.
type shape struct {
	members map[string]*shape // members whose values are objects of the specification
	every   *shape            // the shape of every member's value (a relationships object's)
	list    bool              // the value may be an array of such objects as well
}

// The shapes of a request document (JSON:API 1.1 and its Atomic Operations
// extension). A relationship's data is an identifier (with meta); primary
// data, included and an operation's data are resource objects, of which an
// identifier is a part.
var (
	flatShape         = &shape{} // attributes, meta, ref: its own @-members go, its values stay
	identifierShape   = &shape{list: true, members: map[string]*shape{"meta": flatShape}}
	relationshipShape = &shape{members: map[string]*shape{"data": identifierShape, "meta": flatShape}}
	resourceShape     = &shape{list: true, members: map[string]*shape{
		"attributes": flatShape, "relationships": {every: relationshipShape}, "meta": flatShape}}
	operationShape = &shape{list: true, members: map[string]*shape{"ref": flatShape, "data": resourceShape, "meta": flatShape}}
	documentShape  = &shape{members: map[string]*shape{"data": resourceShape, "included": resourceShape,
		"meta": flatShape, "jsonapi": {members: map[string]*shape{"meta": flatShape}}, "atomic:operations": operationShape}}
)

// WithoutAtMembers returns the JSON:API request document body without its
// @-members (see above). A body without any is returned itself, and costs
// two scans for the only two ways a member name can begin with "@" ("@ and
// "\u0040); one with some is checked to be JSON and copied once, in time
// proportional to its length (the objects of the specification without
// their white space). What is not JSON is returned unchanged, for the
// checks after to refuse.
func WithoutAtMembers(body []byte) []byte { return withoutAt(body, documentShape) }

// ResourceWithoutAtMembers is WithoutAtMembers for one resource object of a
// document, a batch item, which the batch splitter reads on its own.
func ResourceWithoutAtMembers(item []byte) []byte { return withoutAt(item, resourceShape) }

var (
	atKey        = []byte(`"@`)
	escapedAtKey = []byte(`"\u0040`)
)

func withoutAt(b []byte, s *shape) []byte {
	if !bytes.Contains(b, atKey) && !bytes.Contains(b, escapedAtKey) || !json.Valid(b) {
		return b
	}
	w := atWriter{in: b, out: make([]byte, 0, len(b))}
	if w.value(SkipSpace(b, 0), s); w.bad {
		return b
	}
	return w.out
}

// atWriter copies a document, valid JSON, without its @-members. bad
// records that a value was not where one must be (it stops the copy, which
// a body that is JSON never needs).
type atWriter struct {
	in, out []byte
	bad     bool
}

// value copies the value at in[i], of shape s (nil: the application's
// value, copied as it is), and returns the offset after it.
func (w *atWriter) value(i int, s *shape) int {
	if i >= len(w.in) {
		w.bad = true
		return i
	}
	switch {
	case s != nil && w.in[i] == '{':
		return w.object(i, s)
	case s != nil && s.list && w.in[i] == '[':
		return w.array(i, s)
	}
	end := w.skip(i)
	w.out = append(w.out, w.in[i:end]...)
	return end
}

// skip returns the offset after the value at in[i], which must be there.
func (w *atWriter) skip(i int) int {
	end := SkipValue(w.in, i)
	if end <= i {
		w.bad = true // no value starts there
		return i
	}
	return end
}

// object copies the object at in[i] of shape s without its @-members.
func (w *atWriter) object(i int, s *shape) int {
	w.out = append(w.out, '{')
	first := true
	for i = SkipSpace(w.in, i+1); !w.bad; i = SkipSpace(w.in, i) {
		switch {
		case i >= len(w.in):
			w.bad = true
			return i
		case w.in[i] == '}':
			w.out = append(w.out, '}')
			return i + 1
		case w.in[i] == ',':
			i = SkipSpace(w.in, i+1)
		}
		if i >= len(w.in) || w.in[i] != '"' {
			w.bad = true
			return i
		}
		keyEnd := SkipString(w.in, i)
		key := w.in[i:keyEnd]
		i = SkipSpace(w.in, keyEnd)
		if i >= len(w.in) || w.in[i] != ':' {
			w.bad = true
			return i
		}
		i = SkipSpace(w.in, i+1)
		if bytes.HasPrefix(key, atKey) || bytes.HasPrefix(key, escapedAtKey) {
			i = w.skip(i)
			continue
		}
		if !first {
			w.out = append(w.out, ',')
		}
		first = false
		w.out = append(append(w.out, key...), ':')
		i = w.value(i, s.member(key))
	}
	return i
}

// array copies the array at in[i], whose objects are of shape s.
func (w *atWriter) array(i int, s *shape) int {
	w.out = append(w.out, '[')
	first := true
	for i = SkipSpace(w.in, i+1); !w.bad; i = SkipSpace(w.in, i) {
		switch {
		case i >= len(w.in):
			w.bad = true
			return i
		case w.in[i] == ']':
			w.out = append(w.out, ']')
			return i + 1
		case w.in[i] == ',':
			i = SkipSpace(w.in, i+1)
		}
		if !first {
			w.out = append(w.out, ',')
		}
		first = false
		elem := s
		if i < len(w.in) && w.in[i] == '[' {
			elem = nil // an array in the array holds no object of the specification
		}
		i = w.value(i, elem)
	}
	return i
}

// member is the shape of the value of the member named by the quoted key,
// nil for the application's values. A key written with escapes is read as
// encoding/json reads it.
func (s *shape) member(key []byte) *shape {
	if s.every != nil {
		return s.every
	}
	if s.members == nil {
		return nil
	}
	if bytes.IndexByte(key, '\\') < 0 {
		return s.members[string(key[1:len(key)-1])]
	}
	var name string
	if json.Unmarshal(key, &name) != nil {
		return nil
	}
	return s.members[name]
}
