package resource

import (
	"encoding/json"
	"fmt"

	"github.com/getkin/kin-openapi/openapi3"
)

// attribute reads one attribute property and its x-column, x-filter, x-list and x-sort.
func attribute(name string, s *openapi3.Schema) (*Attribute, error) {
	s = flatten(s)
	a := &Attribute{Name: name, Column: snake(name), Nullable: s.Nullable, ReadOnly: s.ReadOnly}
	switch {
	case s.Type.Is("integer"):
		a.Type = Integer
	case s.Type.Is("number"):
		a.Type = Number
	case s.Type.Is("boolean"):
		a.Type = Boolean
	case s.Type.Is("string") && s.Format == "date-time":
		a.Type = DateTime
	case s.Type.Is("string") && s.Format == "date":
		a.Type = Date
	case s.Type.Is("string"):
		a.Type = String
	case s.Type.Is("object"), s.Type.Is("array"):
		a.Type = JSON
	default:
		return nil, fmt.Errorf("unsupported schema type %v", s.Type)
	}
	if err := decodeExt(s.Extensions["x-column"], &a.Column); err != nil {
		return nil, err
	}
	ops, err := filterOps(s.Extensions["x-filter"], a.Type)
	if err != nil {
		return nil, err
	}
	a.Filter = ops
	if name == "createdAt" || name == "updatedAt" {
		a.Filter, a.Sort = DefaultOps(DateTime), true
	}
	if err := decodeExt(s.Extensions["x-localized"], &a.Localized); err != nil {
		return nil, err
	}
	if err := decodeExt(s.Extensions["x-list"], &a.List); err != nil {
		return nil, err
	}
	if err := decodeExt(s.Extensions["x-aggregate"], &a.Aggregate); err != nil {
		return nil, err
	}
	if err := checkAggregate(a); err != nil {
		return nil, err
	}
	if err := decodeExt(s.Extensions["x-readers"], &a.Readers); err != nil {
		return nil, err
	}
	if err := decodeExt(s.Extensions["x-writers"], &a.Writers); err != nil {
		return nil, err
	}
	if err := decodeExt(s.Extensions["x-fields-of"], &a.fieldsOf); err != nil {
		return nil, err
	}
	if v, ok := s.Extensions["x-sort"]; ok {
		if err := decodeExt(v, &a.Sort); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// relationship reads one relationship property; its target type is the enum of
// the identifiers' type member.
func relationship(name string, s *openapi3.Schema) (*Relationship, error) {
	rel := &Relationship{Name: name}
	for _, src := range []map[string]any{s.Extensions, flatten(s).Extensions} {
		if err := decodeExt(src["x-column"], &rel.Column); err != nil {
			return nil, err
		}
		if err := decodeExt(src["x-inverse"], &rel.Inverse); err != nil {
			return nil, err
		}
		if err := decodeExt(src["x-organization"], &rel.Organization); err != nil {
			return nil, err
		}
		if t, ok := src["x-through"]; ok {
			rel.Through = &Through{}
			if err := decodeExt(t, rel.Through); err != nil {
				return nil, err
			}
		}
	}
	data := prop(flatten(s), "data")
	if data == nil {
		return nil, fmt.Errorf("no data member")
	}
	if data.Type.Is("array") && data.Items != nil {
		rel.ToMany = true
		data = flatten(data.Items.Value)
	}
	typ, err := typeName(data)
	if err != nil {
		return nil, err
	}
	rel.Target = typ
	if rel.ToMany {
		if (rel.Inverse == "") == (rel.Through == nil) {
			return nil, fmt.Errorf("a to-many relationship needs x-inverse or x-through")
		}
		rel.Filter = toManyOps
		return rel, nil
	}
	if rel.Organization {
		rel.Column = "organization_id"
		rel.Filter = []string{"eq", "neq"}
		return rel, nil
	}
	if rel.Column == "" {
		rel.Column = snake(name) + "_id"
	}
	rel.Filter, rel.Sort = equalOps, true
	return rel, nil
}

// typeName is the single enum value of a schema's type member.
func typeName(s *openapi3.Schema) (string, error) {
	t := prop(s, "type")
	if t == nil || len(t.Enum) != 1 {
		return "", fmt.Errorf("the type member needs a one-value enum")
	}
	name, ok := t.Enum[0].(string)
	if !ok {
		return "", fmt.Errorf("the type enum is not a string")
	}
	return name, nil
}

func filterOps(ext any, t FieldType) ([]string, error) {
	if ext == nil {
		return nil, nil
	}
	var on bool
	if err := decodeExt(ext, &on); err == nil {
		if on {
			return DefaultOps(t), nil
		}
		return nil, nil
	}
	var ops []string
	err := decodeExt(ext, &ops)
	return ops, err
}

// prop returns a member schema, looking through allOf wrappers.
func prop(s *openapi3.Schema, name string) *openapi3.Schema {
	s = flatten(s)
	if p, ok := s.Properties[name]; ok && p.Value != nil {
		return flatten(p.Value)
	}
	return nil
}

// flatten looks through a schema that only wraps another one: in allOf (the way a
// $ref carries siblings such as x- extensions in OpenAPI 3.0), or in anyOf next to
// JSON null (`anyOf: [$ref, JsonNull]`, the OpenAPI 3.0.3 form of "this or null" that
// an empty to-one relationship's data takes).
func flatten(s *openapi3.Schema) *openapi3.Schema {
	for s != nil && len(s.Properties) == 0 {
		switch {
		case len(s.AllOf) >= 1 && s.AllOf[0].Value != nil:
			s = s.AllOf[0].Value
		case len(s.AnyOf) == 2 && s.AnyOf[0].Value != nil && onlyNull(s.AnyOf[1].Value):
			s = s.AnyOf[0].Value
		default:
			return s
		}
	}
	return s
}

// onlyNull tells whether a schema admits JSON null and nothing else.
func onlyNull(s *openapi3.Schema) bool {
	return s != nil && s.Nullable && len(s.Enum) == 1 && s.Enum[0] == nil
}

// decodeExt converts an extension value (already decoded from YAML) into v; a
// missing extension leaves v alone.
func decodeExt(ext any, v any) error {
	if ext == nil {
		return nil
	}
	raw, err := json.Marshal(ext)
	if err != nil {
		return err
	}
	return json.Unmarshal(raw, v)
}
