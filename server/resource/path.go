package resource

import (
	"fmt"
	"strings"
)

// MaxPathHops bounds a declared path: at most two relationships before the
// field (issue 32), so that a filter is at most two nested lookups.
const MaxPathHops = 2

// Path is a field of related records that a list may be filtered by
// (filter[owner.username]) and, when every relationship on the way is to-one
// and the field is sortable, sorted by (sort=owner.username): the
// resource's x-entityapi paths (docs/queries.md, "Related fields"). Only
// declared paths are served: each is backed by indexes and documented as a
// query parameter of the lists.
type Path struct {
	Name    string          // as the client writes it: owner.username
	Hops    []*Relationship // the relationships followed, in order
	Targets []*Resource     // the resource each hop reaches
	Field   *Attribute      // the attribute of the last resource
}

// ToOne tells whether every relationship of the path is to-one: one
// related value per record, so the path can be sorted by.
func (p *Path) ToOne() bool {
	for _, h := range p.Hops {
		if h.ToMany {
			return false
		}
	}
	return true
}

// Sortable tells whether sort may name the path.
func (p *Path) Sortable() bool { return p.ToOne() && p.Field.Sort }

// Path returns the declared path with the given name.
func (r *Resource) Path(name string) (*Path, bool) {
	for _, p := range r.Paths {
		if p.Name == name {
			return p, true
		}
	}
	return nil, false
}

// resolvePaths turns the names a resource declares into paths once every
// resource of the document is loaded: each step a relationship (not the
// organization, which is always the caller's), at most MaxPathHops of
// them, then a filterable attribute that is not write-only.
func (g *Registry) resolvePaths(r *Resource, names []string) error {
	for _, name := range names {
		parts := strings.Split(name, ".")
		if len(parts) < 2 || len(parts) > MaxPathHops+1 {
			return fmt.Errorf("path %q: one or %d relationships, then a field", name, MaxPathHops)
		}
		p := &Path{Name: name}
		cur := r
		for _, step := range parts[:len(parts)-1] {
			rel, ok := cur.Relationship(step)
			if !ok || rel.Organization {
				return fmt.Errorf("path %q: %q is not a relationship of %s a path may follow", name, step, cur.Type)
			}
			cur = g.byType[rel.Target]
			p.Hops, p.Targets = append(p.Hops, rel), append(p.Targets, cur)
		}
		field := parts[len(parts)-1]
		a, ok := cur.Attribute(field)
		if !ok || a.WriteOnly || len(a.Filter) == 0 {
			return fmt.Errorf("path %q: %q is not a filterable attribute of %s", name, field, cur.Type)
		}
		if _, dup := r.Path(name); dup {
			return fmt.Errorf("path %q is declared twice", name)
		}
		p.Field = a
		r.Paths = append(r.Paths, p)
	}
	return nil
}
