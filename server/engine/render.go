package engine

import (
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage"
)

// dateLayout is the wire format of a date (docs/decisions.md §3); a date-time's is
// jsonapi.DateTimeLayout.
const dateLayout = "2006-01-02"

// linkage holds to-many relationship identifiers loaded for a set of records:
// relationship name -> owner key -> related keys.
type linkage map[string]map[string][]any

// keyString is a storage key as a JSON:API identifier.
func keyString(v any) string {
	switch k := v.(type) {
	case int64:
		return strconv.FormatInt(k, 10)
	case string:
		return k
	case nil:
		return ""
	}
	return ""
}

// wireValue converts a storage value of an attribute to its JSON value. A
// date-time stays the time.Time it was read as: the encoder writes it in
// jsonapi.DateTimeLayout, with no string made for it first.
func wireValue(t resource.FieldType, v any) any {
	if x, ok := v.(time.Time); ok && t == resource.Date {
		return x.UTC().Format(dateLayout)
	}
	return v
}

// wanted tells whether a field is in the sparse fieldset (nil: every field).
func wanted(fields map[string]bool, name string) bool {
	return fields == nil || fields[name]
}

// resourceObject renders one record as a JSON:API resource object (see
// resourceObjects).
func (e *Engine) resourceObject(cl *call, res *resource.Resource, row storage.Row, fields map[string]bool, links linkage) *jsonapi.ResourceObject {
	obj := new(jsonapi.ResourceObject)
	res = cl.view(res)
	slab := newObjectSlab(res, 1, links, nil)
	e.fillObject(cl, obj, &slab, res, row, fields, links)
	return obj
}

// resourceObjects renders records of one resource type. The objects, their
// members, relationships and identifiers are cut from a few arrays sized for
// all of them (objectSlab) rather than allocated per object; and their
// relationships carry the resource's address for their links instead of two
// strings each: a page of fifty contacts with their accounts and owners
// renders a hundred objects and several hundred relationships.
func (e *Engine) resourceObjects(cl *call, res *resource.Resource, rows []storage.Row, fields map[string]bool, links linkage) []*jsonapi.ResourceObject {
	objs, out := cl.arena.objects(len(rows))
	res = cl.view(res)
	slab := newObjectSlab(res, len(rows), links, cl.arena)
	for i, row := range rows {
		e.fillObject(cl, &objs[i], &slab, res, row, fields, links)
		out[i] = &objs[i]
	}
	return out
}

// fillObject renders one record into obj, taking its slices from slab; res
// is the caller's view (call.view).
func (e *Engine) fillObject(cl *call, obj *jsonapi.ResourceObject, slab *objectSlab, res *resource.Resource, row storage.Row, fields map[string]bool, links linkage) {
	id := keyString(row[res.IDColumn])
	obj.Type, obj.ID = res.Type, id
	if cl.hateoas {
		if slab.collection == "" {
			slab.collection = cl.link(res.Type, "")
		}
		obj.Collection = slab.collection
	}
	if cl.title {
		obj.Meta = []jsonapi.Member{{Name: "title", Value: title(res, row, cl.lang)}}
	}
	obj.Attributes = slab.members(len(res.Attributes))
	for _, a := range res.Attributes {
		if wanted(fields, a.Name) {
			obj.Attributes = append(obj.Attributes, jsonapi.Member{Name: a.Name, Value: e.attributeValue(cl, a, row)})
		}
	}
	if len(res.Relationships) == 0 {
		return
	}
	obj.Relationships = slab.relationships(len(res.Relationships))
	for _, rel := range res.Relationships {
		if !wanted(fields, rel.Name) {
			continue
		}
		ro := jsonapi.RelationshipObject{Name: rel.Name, ToMany: rel.ToMany}
		if rel.ToMany {
			keys := links[rel.Name][id]
			ro.Data = slab.identifiers(len(keys))
			for _, k := range keys {
				ro.Data = append(ro.Data, jsonapi.Identifier{Type: rel.Target, ID: keyString(k)})
			}
		} else if v := toOneKey(cl, rel, row); v != nil {
			ro.Data = append(slab.identifiers(1), jsonapi.Identifier{Type: rel.Target, ID: keyString(v)})
		}
		if cl.hateoas {
			e := cl.routes.links[res.Type][rel.Name]
			ro.HasSelf, ro.HasRelated = e[0], e[1] // from the object's address
		}
		obj.Relationships = append(obj.Relationships, ro)
	}
}

// plainObject renders one record in the plain format: native identifiers,
// relationships inline.
func (e *Engine) plainObject(cl *call, res *resource.Resource, row storage.Row, links linkage) []jsonapi.Member {
	res = cl.view(res)
	out := make([]jsonapi.Member, 0, 1+len(res.Attributes)+len(res.Relationships))
	out = append(out, jsonapi.Member{Name: "id", Value: row[res.IDColumn]})
	for _, a := range res.Attributes {
		out = append(out, jsonapi.Member{Name: a.Name, Value: e.attributeValue(cl, a, row)})
	}
	id := keyString(row[res.IDColumn])
	for _, rel := range res.Relationships {
		if rel.ToMany {
			keys := links[rel.Name][id]
			list := make([]any, len(keys))
			copy(list, keys)
			out = append(out, jsonapi.Member{Name: rel.Name, Value: list})
			continue
		}
		out = append(out, jsonapi.Member{Name: rel.Name, Value: toOneKey(cl, rel, row)})
	}
	return out
}

// attributeValue is the wire value of an attribute of row in the caller's
// language; a log's list of a record's fields (x-fields-of) without those
// the caller may not read.
func (e *Engine) attributeValue(cl *call, a *resource.Attribute, row storage.Row) any {
	v := wireValue(a.Type, row[a.ColumnIn(cl.lang)])
	if a.FieldsOf != nil {
		typ, _ := row[a.FieldsOf.Column].(string)
		v = visibleFieldList(e.reg, cl.roles, typ, v)
	}
	return v
}

// link is the absolute address of a resource, or of a collection when id is "".
func (cl *call) link(typ, id string) string {
	if id == "" {
		return cl.base + "/api/" + typ
	}
	return cl.base + "/api/" + typ + "/" + url.PathEscape(id)
}

// relationshipLinks gives the relationship and subresource addresses of a
// relationship, each only when that endpoint exists.
func (cl *call) relationshipLinks(typ, id, rel string) (self, related string) {
	e := cl.routes.links[typ][rel]
	if !e[0] && !e[1] {
		return "", ""
	}
	base := cl.link(typ, id)
	if e[0] {
		self = base + "/relationships/" + rel
	}
	if e[1] {
		related = base + "/" + rel
	}
	return self, related
}

// pageLinks builds self, first, prev, next and (when the total is known) last for
// a list (oro-behaviour §13): query parameters sorted and encoded, page[number]
// left out for page 1.
func (cl *call) pageLinks(self string, p *listParams, hasMore bool, total int) *jsonapi.Links {
	l := &jsonapi.Links{Self: self}
	if p.size < 0 {
		return l
	}
	at := func(n int) string {
		number := ""
		if n > 1 {
			number = strconv.Itoa(n)
		}
		return pageLink(self, cl.query, number)
	}
	if p.number > 1 {
		l.First = at(1)
		l.Prev = at(p.number - 1)
	}
	if hasMore {
		l.Next = at(p.number + 1)
	}
	if total >= 0 {
		last := (total + p.size - 1) / p.size
		if last < 1 {
			last = 1
		}
		l.Last = at(last)
	}
	return l
}

// title is a record's text rendering (docs/decisions.md §4): the values of its title
// fields joined by spaces.
func title(res *resource.Resource, row storage.Row, lang string) string {
	var parts []string
	for _, name := range res.Title {
		col := res.IDColumn
		if a, ok := res.Attribute(name); ok {
			col = a.ColumnIn(lang)
		}
		if v := keyString(row[col]); v != "" {
			parts = append(parts, v)
		}
	}
	return strings.Join(parts, " ")
}
