package chunk

import (
	"encoding/json"

	"github.com/entityapi/entityapi/server/batch/split"
	"github.com/entityapi/entityapi/server/jsonapi"
)

// decodeItem reads a staged batch item (JSON the splitter has checked) in
// one pass into both things the chunk run needs: the resource object the
// record builder reads, as json.Unmarshal into a jsonapi.Resource makes it
// (attribute and meta values are sub-slices of raw, the bytes as sent), and
// the value the schema check visits, as json.Unmarshal into map[string]any
// makes it, without its meta member (which the check ignores). Decoding the
// item three times was most of a chunk's work.
//
// ok is false for anything but the plain shape: a member other than the five
// of a resource object, a key written with escapes, a member named twice, or
// a member of another JSON type than the resource object's. encoding/json
// then decides (names matched case-insensitively, duplicates merged), so the
// caller decodes such an item the slow way, and finds its problems as before.
func decodeItem(raw []byte) (r *jsonapi.Resource, value map[string]any, ok bool) {
	r = &jsonapi.Resource{}
	value = make(map[string]any, 4)
	ok = true
	var seen uint8
	isObject := split.Members(raw, func(key, val []byte) {
		if !ok {
			return
		}
		var bit uint8
		switch string(key) {
		case `"type"`:
			bit = 1
			s, isString := jsonapi.PlainString(val)
			r.Type, value["type"], ok = s, s, isString
		case `"id"`:
			bit = 2
			if jsonapi.IsNull(val) {
				r.ID, value["id"] = nil, nil
				break
			}
			s, isString := jsonapi.PlainString(val)
			r.ID, value["id"], ok = &s, s, isString
		case `"attributes"`:
			bit = 4
			var attrs map[string]any
			r.Attributes, attrs, ok = plainMembers(val, true)
			if attrs == nil {
				value["attributes"] = nil
			} else {
				value["attributes"] = attrs
			}
		case `"meta"`:
			bit = 8
			r.Meta, _, ok = plainMembers(val, false)
		case `"relationships"`:
			bit = 16
			var v any
			ok = json.Unmarshal(val, &r.Relationships) == nil && json.Unmarshal(val, &v) == nil
			value["relationships"] = v
		default:
			ok = false
		}
		if seen&bit != 0 {
			ok = false
		}
		seen |= bit
	})
	return r, value, ok && isObject
}

// plainMembers reads the object val (nil maps for null) into its members'
// bytes and, with decode, their decoded values. ok is false for another JSON
// type, a key written with escapes, or a value encoding/json refuses.
func plainMembers(val []byte, decode bool) (raws map[string]json.RawMessage, values map[string]any, ok bool) {
	if jsonapi.IsNull(val) {
		return nil, nil, true
	}
	raws = map[string]json.RawMessage{}
	if decode {
		values = map[string]any{}
	}
	ok = true
	isObject := split.Members(val, func(key, v []byte) {
		if !ok {
			return
		}
		name, isPlain := jsonapi.PlainString(key)
		if !isPlain {
			ok = false
			return
		}
		raws[name] = v
		if decode {
			values[name], ok = plainValue(v)
		}
	})
	return raws, values, ok && isObject
}

// plainValue decodes one value as encoding/json decodes it into an any.
func plainValue(v []byte) (any, bool) {
	switch v[0] {
	case '"':
		if s, ok := jsonapi.PlainString(v); ok {
			return s, true
		}
	case 't':
		return true, true
	case 'f':
		return false, true
	case 'n':
		return nil, true
	}
	var out any
	if err := json.Unmarshal(v, &out); err != nil {
		return nil, false
	}
	return out, true
}
