package resource

// Reference data (issue 34; docs/answers.md): the types whose answers are
// the same for every organization, so that one rendered answer serves every
// caller who sees the type alike. A type is reference data when its records
// belong to no organization (scope: global) and every relationship it has
// leads to reference data too, so that no linkage, include or path of one
// of its answers reaches an organization's records.

// Reference is the set of the registry's reference types, computed as the
// largest set closed under relationships: a global type is dropped when one
// of its relationships leads outside the set, until nothing changes.
func (g *Registry) Reference() map[string]bool {
	set := map[string]bool{}
	for t, r := range g.byType {
		if !r.Scoped && !r.Self && r.Table != "" && !r.Log {
			set[t] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for t := range set {
			r := g.byType[t]
			for _, rel := range r.Relationships {
				if !set[rel.Target] || rel.Organization {
					delete(set, t)
					changed = true
					break
				}
			}
		}
	}
	return set
}

// ReferenceTables are the tables whose rows the answers of the reference
// types read: each type's table and the join tables of its relationships.
// A change to any of them changes some reference answer (storage's
// reference generations follow these tables).
func (g *Registry) ReferenceTables() []string {
	seen := map[string]bool{}
	var out []string
	add := func(table string) {
		if table != "" && !seen[table] {
			seen[table] = true
			out = append(out, table)
		}
	}
	for t := range g.Reference() {
		r := g.byType[t]
		add(r.Table)
		for _, rel := range r.Relationships {
			if rel.Through != nil {
				add(rel.Through.Table)
			}
		}
	}
	return out
}
