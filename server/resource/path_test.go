package resource

import (
	"strings"
	"testing"
)

// TestPathDeclarations: a wrong x-entityapi paths entry fails when the
// document is read, naming what is wrong, rather than on a request.
func TestPathDeclarations(t *testing.T) {
	users := &Resource{Type: "users", attrs: map[string]*Attribute{
		"username": {Name: "username", Filter: stringOps, Sort: true},
		"nickname": {Name: "nickname"},
		"email":    {Name: "email", Filter: stringOps},
		"password": {Name: "password", WriteOnly: true, Filter: stringOps},
	}, rels: map[string]*Relationship{}}
	accounts := &Resource{Type: "accounts", attrs: map[string]*Attribute{
		"name": {Name: "name", Filter: stringOps, Sort: true},
	}, rels: map[string]*Relationship{
		"owner":        {Name: "owner", Target: "users", Column: "owner_id"},
		"referredBy":   {Name: "referredBy", Target: "accounts", Column: "referred_by_id"},
		"organization": {Name: "organization", Target: "organizations", Organization: true},
		"members":      {Name: "members", Target: "users", ToMany: true, Through: &Through{Table: "account_users", Column: "account_id", Target: "user_id"}},
	}}
	for _, tc := range []struct {
		name     string
		paths    []string
		err      string // "" when sound
		sortable []bool
	}{
		{name: "to-one", paths: []string{"owner.username"}, sortable: []bool{true}},
		{name: "two deep", paths: []string{"referredBy.owner.username"}, sortable: []bool{true}},
		{name: "to-many is not sortable", paths: []string{"members.username"}, sortable: []bool{false}},
		{name: "a field that does not sort", paths: []string{"owner.email", "referredBy.name"}, sortable: []bool{false, true}},
		{name: "three deep", paths: []string{"referredBy.referredBy.owner.username"}, err: "one or 2 relationships"},
		{name: "no relationship", paths: []string{"name"}, err: "one or 2 relationships"},
		{name: "an unknown relationship", paths: []string{"boss.username"}, err: `"boss" is not a relationship`},
		{name: "the organization", paths: []string{"organization.name"}, err: `"organization" is not a relationship`},
		{name: "an unknown field", paths: []string{"owner.shoeSize"}, err: `"shoeSize" is not a filterable attribute`},
		{name: "a field without a filter", paths: []string{"owner.nickname"}, err: `"nickname" is not a filterable attribute`},
		{name: "a write-only field", paths: []string{"owner.password"}, err: `"password" is not a filterable attribute`},
		{name: "twice", paths: []string{"owner.username", "owner.username"}, err: "declared twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := *accounts
			r.Paths = nil
			g := &Registry{byType: map[string]*Resource{"users": users, "accounts": &r}}
			err := g.resolvePaths(&r, tc.paths)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for i, name := range tc.paths {
				p, ok := r.Path(name)
				if !ok || p.Name != name || len(p.Hops) != len(p.Targets) || len(p.Hops) != strings.Count(name, ".") {
					t.Fatalf("path %q: %+v", name, p)
				}
				if p.Sortable() != tc.sortable[i] {
					t.Errorf("path %q sortable %v, want %v", name, p.Sortable(), tc.sortable[i])
				}
			}
		})
	}
}
