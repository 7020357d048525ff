package engine

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/entityapi/entityapi/server/resource"
)

// Field-level permissions (docs/fields.md; resource/fields.go). Reads see a
// resource as the caller's roles do (call.view): the renderers and the
// parsers of a list's parameters take the view themselves, so that no read
// path can show, filter, sort, aggregate or search a field the caller may
// not read, and each answers about it as about a field that does not
// exist. Writes work on the whole resource (a hidden field keeps its value)
// and refuse, with a 403 that points at it, a field the caller may not
// write (Engine.values).

// view is res as the caller of cl sees it.
func (cl *call) view(res *resource.Resource) *resource.Resource { return res.For(cl.roles) }

// visibleFieldList is a log's list of a record's fields (an event's
// changedAttributes, an audit's fields: x-fields-of) without those the
// caller may not read in the record's type, typ: each element a name or an
// object whose field member names it ("name.de" names name in German). The
// value is returned as it is when the caller sees every field of typ;
// what cannot be read as such a list is answered as an empty one. A type
// no document describes as an entity (the webhooks, served by hand and
// audited: storage/audit.go) is the administrators', who alone manage it:
// its fields are theirs to read.
func visibleFieldList(reg *resource.Registry, roles []string, typ string, value any) any {
	res, ok := reg.Get(typ)
	if !ok {
		if slices.Contains(roles, roleAdministrator) {
			return value
		}
		return json.RawMessage("[]")
	}
	view := res.For(roles)
	if !view.Hides() {
		return value
	}
	var raw []byte
	switch v := value.(type) {
	case json.RawMessage:
		raw = v
	case []byte:
		raw = v
	case string:
		raw = []byte(v)
	default:
		return value
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return json.RawMessage("[]") // not a list: nothing of it is known to be readable
	}
	kept := list[:0]
	for _, el := range list {
		var name string
		if json.Unmarshal(el, &name) != nil {
			var obj struct {
				Field string `json:"field"`
			}
			if json.Unmarshal(el, &obj) != nil {
				continue
			}
			name = obj.Field
		}
		base, _, _ := strings.Cut(name, ".")
		if _, visible := view.Attribute(base); visible {
			kept = append(kept, el)
			continue
		}
		if _, rel := view.Relationship(base); rel {
			kept = append(kept, el)
		}
	}
	out, err := json.Marshal(kept)
	if err != nil {
		return value
	}
	return json.RawMessage(out)
}

// VisibleFieldList is visibleFieldList for what serves the records of the
// logs outside the engine (a webhook's messages, which show what
// administrators may read).
func (e *Engine) VisibleFieldList(roles []string, typ string, raw json.RawMessage) json.RawMessage {
	if v, ok := visibleFieldList(e.reg, roles, typ, raw).(json.RawMessage); ok {
		return v
	}
	return raw
}
