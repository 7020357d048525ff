package resource

import (
	"slices"
	"strings"
	"testing"
)

// restrictedThings is a resource whose secret attribute only administrators
// and managers read, whose code only administrators write, and whose
// title and search use both.
func restrictedThings(t *testing.T) *Resource {
	t.Helper()
	name := &Attribute{Name: "name", Column: "name", Type: String}
	secret := &Attribute{Name: "secret", Column: "secret", Type: String, Readers: []string{"ROLE_ADMINISTRATOR", "ROLE_MANAGER"}}
	code := &Attribute{Name: "code", Column: "code", Type: String, Writers: []string{"ROLE_ADMINISTRATOR"}}
	r := &Resource{Type: "things", IDColumn: "id", Attributes: []*Attribute{code, name, secret},
		Title: []string{"name", "secret"}, Upsert: [][]string{{"secret"}, {"name"}},
		attrs: map[string]*Attribute{"name": name, "secret": secret, "code": code}}
	r.Search = []*Attribute{name, secret}
	if err := r.resolveRestricted(func(role string) bool { return strings.HasPrefix(role, "ROLE_") }); err != nil {
		t.Fatal(err)
	}
	return r
}

// TestViewsOfAResource: a caller who may read every attribute gets the
// resource itself; one who may not gets one shared copy without them, in
// every list the engine reads (attributes, look-up, search, title, upsert).
func TestViewsOfAResource(t *testing.T) {
	r := restrictedThings(t)
	if r.For([]string{"ROLE_MANAGER"}) != r || r.For([]string{"ROLE_USER", "ROLE_ADMINISTRATOR"}) != r {
		t.Fatal("a caller who reads every attribute does not get the resource itself")
	}
	v := r.For([]string{"ROLE_USER"})
	if v == r || r.For([]string{"ROLE_INTEGRATION"}) != v || r.For(nil) != v {
		t.Fatal("callers who may not read the same attributes do not share one view")
	}
	if _, ok := v.Attribute("secret"); ok || len(v.Attributes) != 2 {
		t.Errorf("the view holds the hidden attribute: %v", v.Attributes)
	}
	if _, ok := r.Attribute("secret"); !ok || len(r.Attributes) != 3 {
		t.Error("making the view changed the resource")
	}
	if len(v.Search) != 1 || !v.SearchOpen || r.SearchOpen {
		t.Errorf("the view searches %v (open %v)", v.Search, v.SearchOpen)
	}
	if !slices.Equal(v.Title, []string{"name"}) || len(v.Upsert) != 1 || v.Upsert[0][0] != "name" {
		t.Errorf("the view's title %v and upsert %v name the hidden attribute", v.Title, v.Upsert)
	}
	if !v.Hides() || r.Hides() || v.Full() != r || r.Full() != r || v.ViewKey() == 0 || r.ViewKey() != 0 {
		t.Error("the view does not know the resource it hides attributes of")
	}
	code, _ := r.Attribute("code")
	secret, _ := r.Attribute("secret")
	for _, c := range []struct {
		a     *Attribute
		roles []string
		read  bool
		write bool
	}{
		{code, []string{"ROLE_MANAGER"}, true, false},
		{code, []string{"ROLE_ADMINISTRATOR"}, true, true},
		{secret, []string{"ROLE_MANAGER"}, true, true},
		{secret, []string{"ROLE_USER"}, false, false},
	} {
		if c.a.ReadableBy(c.roles) != c.read || c.a.WritableBy(c.roles) != c.write {
			t.Errorf("%s by %v: read %v write %v, want %v %v", c.a.Name, c.roles, c.a.ReadableBy(c.roles), c.a.WritableBy(c.roles), c.read, c.write)
		}
	}
}

// TestRestrictedDeclarations: a role nobody has, or writers of a field
// nobody writes, fail when the document is read.
func TestRestrictedDeclarations(t *testing.T) {
	known := func(role string) bool { return role == "ROLE_ADMINISTRATOR" }
	for _, c := range []struct {
		name string
		a    *Attribute
		err  string
	}{
		{"an unknown reader", &Attribute{Name: "x", Readers: []string{"ROLE_ADMIN"}}, `unknown role "ROLE_ADMIN"`},
		{"an unknown writer", &Attribute{Name: "x", Writers: []string{"ROLE_WRITER"}}, `unknown role "ROLE_WRITER"`},
		{"writers of a read-only field", &Attribute{Name: "x", ReadOnly: true, Writers: []string{"ROLE_ADMINISTRATOR"}}, "read-only"},
	} {
		r := &Resource{Type: "things", Attributes: []*Attribute{c.a}}
		if err := r.resolveRestricted(known); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: %v, want an error saying %q", c.name, err, c.err)
		}
	}
}
