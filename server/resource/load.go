package resource

import (
	"fmt"
	"slices"
	"sort"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/entityapi/entityapi/server/identity"
)

// Registry holds every resource of one application document.
type Registry struct {
	byType map[string]*Resource
}

// Get returns the resource of the given type.
func (g *Registry) Get(typ string) (*Resource, bool) {
	r, ok := g.byType[typ]
	return r, ok
}

// Types lists the resource types, sorted.
func (g *Registry) Types() []string {
	out := make([]string, 0, len(g.byType))
	for t := range g.byType {
		out = append(out, t)
	}
	sort.Strings(out)
	return out
}

// meta is the x-entityapi extension of a resource object schema.
type meta struct {
	Table string `json:"table"`
	ID    struct {
		Column string   `json:"column"`
		Kind   string   `json:"kind"`
		Filter []string `json:"filter"`
	} `json:"id"`
	Scope  string     `json:"scope"`
	Title  []string   `json:"title"`
	Upsert [][]string `json:"upsert"`
	Batch  bool       `json:"batch"`
	// Managed: managers create and edit these records too (docs/decisions.md §8).
	Managed bool `json:"managed"`
	Chunk   struct {
		Size     int `json:"size"`
		Included int `json:"included"`
	} `json:"chunk"` // batch chunk sizes, when not the defaults (100 / 50)
	WriteOnly map[string]string `json:"writeOnly"` // attribute -> column
	// Readers: the roles that may read the records (none listed: every role).
	Readers []string `json:"readers"`
	// Feed: the records are a feed consumers follow (the change events).
	Feed bool `json:"feed"`
	// Log: the records are a log the store writes itself (the change
	// events, the audit history): never audited themselves.
	Log bool `json:"log"`
	// Paths: fields of related records the lists may be filtered and
	// sorted by (path.go).
	Paths []string `json:"paths"`
	// Search: the attributes filter[searchText] finds words in (search.go).
	Search []string `json:"search"`
}

// Load reads every component schema carrying x-entityapi.
func Load(doc *openapi3.T) (*Registry, error) {
	g := &Registry{byType: map[string]*Resource{}}
	paths := map[*Resource][]string{}
	for name, ref := range doc.Components.Schemas {
		s := ref.Value
		if _, ok := s.Extensions["x-entityapi"]; !ok {
			continue
		}
		r, declared, err := load(s)
		if err != nil {
			return nil, fmt.Errorf("resource schema %s: %w", name, err)
		}
		paths[r] = declared
		if _, dup := g.byType[r.Type]; dup {
			return nil, fmt.Errorf("resource type %q is described twice", r.Type)
		}
		g.byType[r.Type] = r
	}
	for _, r := range g.byType {
		for _, rel := range r.Relationships {
			target, ok := g.byType[rel.Target]
			if !ok {
				return nil, fmt.Errorf("%s.%s: unknown target type %q", r.Type, rel.Name, rel.Target)
			}
			if rel.ToMany && rel.Through == nil {
				back, ok := target.rels[rel.Inverse]
				if !ok || back.ToMany {
					return nil, fmt.Errorf("%s.%s: x-inverse %q is not a to-one relationship of %s", r.Type, rel.Name, rel.Inverse, rel.Target)
				}
			}
		}
	}
	for r, declared := range paths {
		if err := g.resolvePaths(r, declared); err != nil {
			return nil, fmt.Errorf("%s: x-entityapi: %w", r.Type, err)
		}
	}
	return g, nil
}

// load reads one resource and the names of the paths it declares, which
// resolvePaths turns into paths once every resource is loaded.
func load(s *openapi3.Schema) (*Resource, []string, error) {
	var m meta
	if err := decodeExt(s.Extensions["x-entityapi"], &m); err != nil {
		return nil, nil, fmt.Errorf("x-entityapi: %w", err)
	}
	typ, err := typeName(s)
	if err != nil {
		return nil, nil, err
	}
	r := &Resource{
		Type: typ, Table: m.Table, Scoped: m.Scope == "organization", Self: m.Scope == "self",
		IDColumn: m.ID.Column, IntID: m.ID.Kind == "integer", IDOps: m.ID.Filter,
		Title: m.Title, Upsert: m.Upsert, Batch: m.Batch, Managed: m.Managed, Readers: m.Readers, Feed: m.Feed, Log: m.Log,
		ChunkSize: m.Chunk.Size, IncludedChunkSize: m.Chunk.Included,
		attrs: map[string]*Attribute{}, rels: map[string]*Relationship{},
	}
	if r.Table == "" || r.IDColumn == "" {
		return nil, nil, fmt.Errorf("x-entityapi needs table and id.column")
	}
	if len(r.IDOps) == 0 {
		if r.IntID {
			r.IDOps = []string{"eq", "neq", "lt", "lte", "gt", "gte"}
		} else {
			r.IDOps = []string{"eq", "neq"}
		}
	}
	if attrs := prop(s, "attributes"); attrs != nil {
		for name, p := range attrs.Properties {
			a, err := attribute(name, p.Value)
			if err != nil {
				return nil, nil, fmt.Errorf("attribute %s: %w", name, err)
			}
			r.Attributes = append(r.Attributes, a)
			r.attrs[name] = a
		}
	}
	for _, a := range r.Attributes {
		if a.fieldsOf == "" {
			continue
		}
		if a.FieldsOf = r.attrs[a.fieldsOf]; a.FieldsOf == nil || a.FieldsOf.Type != String || a.Type != JSON {
			return nil, nil, fmt.Errorf("attribute %s: x-fields-of needs a list and the name of a text attribute, not %q", a.Name, a.fieldsOf)
		}
	}
	for name, column := range m.WriteOnly {
		a := &Attribute{Name: name, Column: column, Type: String, WriteOnly: true}
		r.WriteOnly = append(r.WriteOnly, a)
		r.attrs[name] = a
	}
	sort.Slice(r.Attributes, func(i, j int) bool { return attributeBefore(r.Attributes[i].Name, r.Attributes[j].Name) })
	if rels := prop(s, "relationships"); rels != nil {
		for name, p := range rels.Properties {
			rel, err := relationship(name, p.Value)
			if err != nil {
				return nil, nil, fmt.Errorf("relationship %s: %w", name, err)
			}
			r.Relationships = append(r.Relationships, rel)
			r.rels[name] = rel
		}
	}
	sort.Slice(r.Relationships, func(i, j int) bool { return r.Relationships[i].Name < r.Relationships[j].Name })
	if err := r.resolveSearch(m.Search); err != nil {
		return nil, nil, err
	}
	known := func(role string) bool { return slices.Contains(identity.Roles, role) }
	for _, role := range r.Readers {
		if !known(role) {
			return nil, nil, fmt.Errorf("x-entityapi readers names the unknown role %q", role)
		}
	}
	if err := r.resolveRestricted(known); err != nil {
		return nil, nil, err
	}
	return r, m.Paths, nil
}

// attributeBefore orders attributes by name, with the timestamps every writable
// resource has last, so each record reads its own fields first.
func attributeBefore(a, b string) bool {
	stamp := func(n string) bool { return n == "createdAt" || n == "updatedAt" }
	if stamp(a) != stamp(b) {
		return stamp(b)
	}
	return a < b
}
