package split

import (
	"bytes"
	"encoding/json"
	"unicode/utf8"

	"github.com/entityapi/entityapi/server/jsonapi"
)

// The functions below walk JSON that the decoder has already checked, to find
// the few members an item is split by without decoding the item through
// reflection. They never fail on valid JSON; on anything else they stop early
// rather than panic. Keys match exactly (not case-insensitively), and when a
// key occurs twice the last one wins, as encoding/json decodes it into a map.

// isObject tells whether b holds a JSON object.
func isObject(b []byte) bool {
	i := jsonapi.SkipSpace(b, 0)
	return i < len(b) && b[i] == '{'
}

// members calls fn with every member of the object b: the key as written
// (quoted) and the value's bytes.
func members(b []byte, fn func(key, val []byte)) {
	i := enter(b, '{')
	if i < 0 {
		return
	}
	for {
		i = nextEntry(b, i)
		if i >= len(b) || b[i] != '"' {
			return
		}
		ks := i
		i = jsonapi.SkipString(b, i)
		key := b[ks:i]
		i = jsonapi.SkipSpace(b, i)
		if i >= len(b) || b[i] != ':' {
			return
		}
		var val []byte
		if val, i = valueAt(b, jsonapi.SkipSpace(b, i+1)); val == nil {
			return
		}
		fn(key, val)
	}
}

// elements calls fn with every element of the array b.
func elements(b []byte, fn func(val []byte)) {
	i := enter(b, '[')
	if i < 0 {
		return
	}
	for {
		i = nextEntry(b, i)
		if i >= len(b) || b[i] == ']' {
			return
		}
		var val []byte
		if val, i = valueAt(b, i); val == nil {
			return
		}
		fn(val)
	}
}

// enter returns the offset just past the open byte ('{' or '[') that b
// starts with after space, or -1 when b does not start with it: members and
// elements walk only the container they were asked for.
func enter(b []byte, open byte) int {
	i := jsonapi.SkipSpace(b, 0)
	if i >= len(b) || b[i] != open {
		return -1
	}
	return i + 1
}

// nextEntry skips the space and the comma, if any, before the next member or
// element from offset i.
func nextEntry(b []byte, i int) int {
	i = jsonapi.SkipSpace(b, i)
	if i < len(b) && b[i] == ',' {
		i = jsonapi.SkipSpace(b, i+1)
	}
	return i
}

// valueAt returns the value starting at offset i and the offset after it;
// val is nil when no value starts there (the walk then stops).
func valueAt(b []byte, i int) (val []byte, end int) {
	end = jsonapi.SkipValue(b, i)
	if end <= i {
		return nil, i
	}
	return b[i:end], end
}

// unquote decodes a JSON string exactly as encoding/json does (escapes, and
// invalid UTF-8 replaced); ok is false for anything but a string.
func unquote(b []byte) (string, bool) {
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", false
	}
	inner := b[1 : len(b)-1]
	if bytes.IndexByte(inner, '\\') < 0 && utf8.Valid(inner) {
		return string(inner), true
	}
	var s string
	if json.Unmarshal(b, &s) != nil {
		return "", false
	}
	return s, true
}

// keyIs tells whether the quoted key names name.
func keyIs(key []byte, name string) bool {
	if len(key) == len(name)+2 && string(key[1:len(key)-1]) == name {
		return true
	}
	if bytes.IndexByte(key, '\\') < 0 {
		return false
	}
	s, ok := unquote(key)
	return ok && s == name
}

// itemFields are the members of an item the splitter reads.
type itemFields struct {
	typ, id, relationships []byte // nil when absent
}

func readItem(b []byte) itemFields {
	var f itemFields
	members(b, func(key, val []byte) {
		switch {
		case keyIs(key, "type"):
			f.typ = val
		case keyIs(key, "id"):
			f.id = val
		case keyIs(key, "relationships"):
			f.relationships = val
		}
	})
	return f
}

// str reads a member that should be a string: present is false for an absent
// or null member, isString false for any other JSON type.
func str(raw []byte) (v string, present, isString bool) {
	if jsonapi.IsNull(raw) {
		return "", false, false
	}
	v, ok := unquote(raw)
	return v, true, ok
}

// refs lists the keys (type+id) an item's relationships name, each once.
// Malformed relationships name nothing: they are the item validator's
// business.
func refs(relationships []byte) []string {
	if !isObject(relationships) {
		return nil
	}
	// Last wins for a relationship named twice.
	type rel struct {
		name string
		data []byte
	}
	var rels []rel
	members(relationships, func(key, val []byte) {
		name, _ := unquote(key)
		var data []byte
		members(val, func(k, v []byte) {
			if keyIs(k, "data") {
				data = v
			}
		})
		for i := range rels {
			if rels[i].name == name {
				rels[i].data = data
				return
			}
		}
		rels = append(rels, rel{name, data})
	})
	var out []string
	addID := func(b []byte) {
		var t, id []byte
		members(b, func(k, v []byte) {
			switch {
			case keyIs(k, "type"):
				t = v
			case keyIs(k, "id"):
				id = v
			}
		})
		ts, okT := unquote(t)
		is, okI := unquote(id)
		if !okT || !okI || ts == "" || is == "" {
			return
		}
		k := key(ts, is)
		for _, o := range out {
			if o == k {
				return
			}
		}
		out = append(out, k)
	}
	for _, r := range rels {
		if len(r.data) == 0 {
			continue
		}
		switch r.data[0] {
		case '{':
			addID(r.data)
		case '[':
			elements(r.data, addID)
		}
	}
	return out
}

// Members calls fn with every member of the object b, in order: the key as
// written (quoted) and the value's bytes. b must be JSON a decoder has
// already checked (a staged item); Members tells whether it is an object.
// It lets the chunk run read staged items without decoding them through
// reflection.
func Members(b []byte, fn func(key, val []byte)) bool {
	if !isObject(b) {
		return false
	}
	members(b, fn)
	return true
}

// Elements calls fn with every element of the array b, checked JSON as for
// Members; it tells whether b is an array.
func Elements(b []byte, fn func(val []byte)) bool {
	i := jsonapi.SkipSpace(b, 0)
	if i >= len(b) || b[i] != '[' {
		return false
	}
	elements(b, fn)
	return true
}
