package resource

import "fmt"

// resolveSearch reads the attributes a resource's x-entityapi search
// declares: text attributes the full-text index of its table holds
// (docs/queries.md, "Search"), each once, none write-only.
func (r *Resource) resolveSearch(names []string) error {
	for _, name := range names {
		a, ok := r.Attribute(name)
		switch {
		case !ok:
			return fmt.Errorf("x-entityapi search: no attribute %q", name)
		case a.WriteOnly || a.Type != String:
			return fmt.Errorf("x-entityapi search: %q is not a text attribute clients read", name)
		}
		for _, b := range r.Search {
			if b == a {
				return fmt.Errorf("x-entityapi search: %q is named twice", name)
			}
		}
		r.Search = append(r.Search, a)
	}
	return nil
}
