package server_test

import (
	"context"
	"sync"
	"testing"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/authstore"
	"github.com/entityapi/entityapi/storage/secret"
)

// testPrincipal is a user and the back-office client acting as it, or (no
// role) a storefront client of the organization. The client's secret is its
// id followed by "-secret".
type testPrincipal struct {
	name, client, role, org string
}

// testPrincipals are created in every test database: one per role in Main, and
// an administrator of a second organization for isolation tests.
var testPrincipals = []testPrincipal{
	{"admin", "test-admin", "ROLE_ADMINISTRATOR", "Main"},
	{"manager", "test-manager", "ROLE_MANAGER", "Main"},
	{"viewer", "test-viewer", "ROLE_USER", "Main"},
	{"integration", "test-integration", "ROLE_INTEGRATION", "Main"},
	{"auditor", "test-auditor", "ROLE_AUDITOR", "Main"},
	{"elsewhere-admin", "test-elsewhere", "ROLE_ADMINISTRATOR", "Elsewhere"},
	{"storefront", "test-storefront", "", "Main"},
}

// storefront tells whether the principal is a storefront client.
func (p testPrincipal) storefront() bool { return p.role == "" }

func principalNamed(t testing.TB, name string) testPrincipal {
	for _, p := range testPrincipals {
		if p.name == name {
			return p
		}
	}
	t.Fatalf("no test principal %q", name)
	return testPrincipal{}
}

// secretHashes hashes each client secret once per test binary: bcrypt is slow
// on purpose.
var secretHashes = sync.OnceValue(func() map[string]string {
	out := map[string]string{}
	for _, p := range testPrincipals {
		h, err := secret.Hash(p.client + "-secret")
		if err != nil {
			panic(err)
		}
		out[p.client] = h
	}
	return out
})

// createPrincipals adds the test principals to a store.
func createPrincipals(t testing.TB, s *storage.Store) {
	t.Helper()
	ctx := context.Background()
	orgs := map[string]int64{"Main": 1}
	other, err := authstore.New(s).CreateOrganization(ctx, "Elsewhere")
	if err != nil {
		t.Fatalf("organization: %v", err)
	}
	orgs["Elsewhere"] = other.ID
	for _, p := range testPrincipals {
		if p.storefront() {
			c := &authstore.Client{ID: p.client, OrganizationID: orgs[p.org], SecretHash: secretHashes()[p.client],
				App: authstore.AppStorefront, Name: p.client, Enabled: true}
			if err := authstore.New(s).CreateClient(ctx, c); err != nil {
				t.Fatalf("client %s: %v", p.client, err)
			}
			continue
		}
		u := &storage.User{OrganizationID: orgs[p.org], Username: p.name, Email: p.name + "@test.example",
			FirstName: "Test", LastName: p.name, Enabled: true}
		if err := authstore.New(s).CreateUser(ctx, u, []string{p.role}); err != nil {
			t.Fatalf("user %s: %v", p.name, err)
		}
		id := u.ID
		c := &authstore.Client{ID: p.client, OrganizationID: orgs[p.org], SecretHash: secretHashes()[p.client],
			App: "backoffice", Name: p.client, UserID: &id, Enabled: true}
		if err := authstore.New(s).CreateClient(ctx, c); err != nil {
			t.Fatalf("client %s: %v", p.client, err)
		}
	}
}
