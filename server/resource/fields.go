package resource

import (
	"fmt"
	"slices"
	"sync"
)

// Field-level permissions (docs/fields.md): an attribute's x-readers names
// the only roles that may read it, its x-writers the only roles that may
// write it (none listed: whoever may read the records, or write them). A
// caller reads a resource as For(roles) describes it: the attributes it may
// not read are not there at all, so that every read path (documents,
// included, sparse fieldsets, the plain format, filters, sorts, paths,
// aggregations, searches, titles) knows them no more than a field that does
// not exist, and answers the same (GHSA-2mxr-89gf-rc4v: a filter on a hidden
// field must not tell its value).

// maxRestricted bounds the attributes of one resource that name their
// readers: a caller's view is keyed by a bit per such attribute.
const maxRestricted = 64

// ReadableBy tells whether a caller with roles may read the attribute.
func (a *Attribute) ReadableBy(roles []string) bool {
	return len(a.Readers) == 0 || anyOf(roles, a.Readers)
}

// WritableBy tells whether a caller with roles may write the attribute (the
// resource's own write rights aside): it may read it, and x-writers, when
// declared, names one of its roles.
func (a *Attribute) WritableBy(roles []string) bool {
	return a.ReadableBy(roles) && (len(a.Writers) == 0 || anyOf(roles, a.Writers))
}

func anyOf(roles, allowed []string) bool {
	return slices.ContainsFunc(roles, func(r string) bool { return slices.Contains(allowed, r) })
}

// For is the resource as a caller with roles sees it: without the attributes
// it may not read (from its Attributes, Attribute, Search, Title and Upsert).
// It is r itself when the caller may read every attribute; otherwise one
// shared, read-only copy per set of hidden attributes, made once.
func (r *Resource) For(roles []string) *Resource {
	if len(r.restricted) == 0 {
		return r
	}
	var hidden uint64
	for i, a := range r.restricted {
		if !a.ReadableBy(roles) {
			hidden |= 1 << i
		}
	}
	if hidden == 0 {
		return r
	}
	if v, ok := r.views.Load(hidden); ok {
		return v.(*Resource)
	}
	v, _ := r.views.LoadOrStore(hidden, r.without(hidden))
	return v.(*Resource)
}

// Full is the resource with every attribute, whichever view v is.
func (r *Resource) Full() *Resource {
	if r.full != nil {
		return r.full
	}
	return r
}

// Hides tells whether the view r lacks attributes of the resource.
func (r *Resource) Hides() bool { return r.full != nil }

// ViewKey names the view among the resource's views: 0 for the whole
// resource, a bit per hidden attribute otherwise (a representation's ETag
// carries it: two views of one record are two representations).
func (r *Resource) ViewKey() uint64 { return r.hidden }

// without is a copy of r lacking the restricted attributes whose bits hidden
// sets.
func (r *Resource) without(hidden uint64) *Resource {
	gone := map[*Attribute]bool{}
	for i, a := range r.restricted {
		if hidden&(1<<i) != 0 {
			gone[a] = true
		}
	}
	v := &Resource{}
	*v = *r
	v.views = nil
	v.full, v.hidden, v.restricted = r, hidden, nil
	v.Attributes = slices.DeleteFunc(slices.Clone(r.Attributes), func(a *Attribute) bool { return gone[a] })
	v.Search = slices.DeleteFunc(slices.Clone(r.Search), func(a *Attribute) bool { return gone[a] })
	v.SearchOpen = len(v.Search) < len(r.Search)
	v.attrs = make(map[string]*Attribute, len(r.attrs))
	for name, a := range r.attrs {
		if !gone[a] {
			v.attrs[name] = a
		}
	}
	v.Title = slices.DeleteFunc(slices.Clone(r.Title), func(name string) bool { _, ok := v.attrs[name]; return !ok && name != "id" })
	v.Upsert = slices.DeleteFunc(slices.Clone(r.Upsert), func(criteria []string) bool {
		return slices.ContainsFunc(criteria, func(name string) bool { _, ok := v.attrs[name]; return !ok && name != "id" })
	})
	return v
}

// resolveRestricted collects the attributes that name their readers, and
// checks what they declare: roles the application knows (known), and
// writers only on attributes clients write. (A searched one needs its
// table's open index: the engine checks that, which knows the tables.)
func (r *Resource) resolveRestricted(known func(string) bool) error {
	for _, a := range r.Attributes {
		for _, role := range append(slices.Clone(a.Readers), a.Writers...) {
			if !known(role) {
				return fmt.Errorf("attribute %s: x-readers or x-writers names the unknown role %q", a.Name, role)
			}
		}
		if len(a.Writers) > 0 && a.ReadOnly {
			return fmt.Errorf("attribute %s: x-writers on a read-only attribute", a.Name)
		}
		if len(a.Readers) > 0 {
			r.restricted = append(r.restricted, a)
		}
	}
	if len(r.restricted) > 0 {
		r.views = new(sync.Map)
	}
	if len(r.restricted) > maxRestricted {
		return fmt.Errorf("%d attributes name their readers; at most %d may", len(r.restricted), maxRestricted)
	}
	return nil
}
