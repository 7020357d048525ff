package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/server/resource"
	"github.com/entityapi/entityapi/storage"
)

// input is a request body in either format, reduced to what the engine writes.
type input struct {
	id    *string
	attrs map[string]json.RawMessage
	rels  map[string]jsonapi.Relationship
	plain bool
}

// Members of a resource object a pointer can lead to.
const (
	idMember           = "id"
	attributesMember   = "attributes"
	relationshipMember = "relationships"
)

// pointer says where a field is in the body: /data/attributes/name in a JSON:API
// document, /name in a plain one; an empty name points at the member itself.
func (in *input) pointer(member, name string) string {
	if in.plain {
		if name == "" {
			return ""
		}
		return "/" + escapePointer(name)
	}
	switch {
	case member == idMember:
		return "/data/id"
	case name == "":
		return "/data/" + member
	case member == relationshipMember:
		return "/data/relationships/" + escapePointer(name) + "/data"
	}
	return "/data/" + member + "/" + escapePointer(name)
}

func readInput(res *resource.Resource, doc *jsonapi.Document, plain jsonapi.Object) (*input, error) {
	if doc != nil {
		r, err := doc.Primary()
		if err != nil {
			return nil, problem.RequestData("The primary data object should exist.", "/data")
		}
		return &input{id: r.ID, attrs: r.Attributes, rels: r.Relationships}, nil
	}
	in := &input{attrs: map[string]json.RawMessage{}, rels: map[string]jsonapi.Relationship{}, plain: true}
	for name, raw := range plain {
		switch _, isRel := res.Relationship(name); {
		case name == "id":
			var s string
			if json.Unmarshal(raw, &s) != nil {
				s = string(bytes.TrimSpace(raw))
			}
			in.id = &s
		case isRel:
			in.rels[name] = plainLinkage(res, name, raw)
		default:
			in.attrs[name] = raw
		}
	}
	return in, nil
}

// plainLinkage turns an inline related identifier into a relationship.
func plainLinkage(res *resource.Resource, name string, raw json.RawMessage) jsonapi.Relationship {
	rel, _ := res.Relationship(name)
	if jsonapi.IsNull(raw) {
		return jsonapi.Relationship{Data: json.RawMessage("null")}
	}
	id := string(bytes.Trim(bytes.TrimSpace(raw), `"`))
	b, _ := json.Marshal(jsonapi.Identifier{Type: rel.Target, ID: id})
	return jsonapi.Relationship{Data: b}
}

// values converts the body's fields into column values and checks that every
// related record exists in the caller's organization.
func (e *engine) values(ctx context.Context, cl *call, res *resource.Resource, in *input) (storage.Row, error) {
	row := storage.Row{}
	var errs problem.List
	for name, raw := range in.attrs {
		a, ok := res.Attribute(name)
		if !ok || a.ReadOnly {
			errs = append(errs, problem.ExtraFields(in.pointer(attributesMember, ""), name))
			continue
		}
		v, err := storageValue(a.Type, raw)
		if err != nil {
			errs = append(errs, problem.Constraint("type constraint", "This value is not valid.", in.pointer(attributesMember, name)))
			continue
		}
		row[a.Column] = v
	}
	for name, r := range in.rels {
		rel, ok := res.Relationship(name)
		if !ok || rel.ToMany {
			errs = append(errs, problem.ExtraFields(in.pointer(relationshipMember, ""), name))
			continue
		}
		ids, _, err := r.Linkage()
		if err != nil {
			errs = append(errs, problem.RequestData("The relationship data is not valid.", in.pointer(relationshipMember, name)))
			continue
		}
		if len(ids) == 0 {
			row[rel.Column] = nil
			continue
		}
		target, _ := e.reg.Get(rel.Target)
		k, err := key(target, ids[0].ID)
		if err == nil {
			_, err = e.store.Get(ctx, e.table(target), cl.org, k)
		}
		if err != nil {
			if _, isProblem := problem.From(err); isProblem || errors.Is(err, storage.ErrNotFound) {
				errs = append(errs, problem.MissingRelated(in.pointer(relationshipMember, name)))
				continue
			}
			return nil, err
		}
		row[rel.Column] = k
	}
	if rule := rules[res.Type]; rule != nil && len(errs) == 0 {
		errs = append(errs, rule(row, in)...)
	}
	if len(errs) > 0 {
		return nil, errs
	}
	return row, nil
}

// storageValue decodes one attribute value for storage.
func storageValue(t resource.FieldType, raw json.RawMessage) (any, error) {
	if jsonapi.IsNull(raw) {
		return nil, nil
	}
	switch t {
	case resource.String:
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	case resource.Integer:
		var n int64
		err := json.Unmarshal(raw, &n)
		return n, err
	case resource.Number:
		var f float64
		err := json.Unmarshal(raw, &f)
		return f, err
	case resource.Boolean:
		var b bool
		err := json.Unmarshal(raw, &b)
		return b, err
	case resource.DateTime, resource.Date:
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		layout := time.RFC3339
		if t == resource.Date {
			layout = dateLayout
		}
		tm, err := time.Parse(layout, s)
		return tm.UTC().Truncate(time.Second), err
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, err
	}
	return json.RawMessage(buf.Bytes()), nil
}
