package authstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/uptrace/bun"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/secret"
)

// LoadDemo adds the demo organization, users and clients of issue 4 that
// are missing (`entityapi serve --demo`, with storage's LoadDemoRecords), all
// marked demo so that a server without --demo refuses them. Only what is
// missing is added, so restarting with --demo changes nothing.
func (a *Store) LoadDemo(ctx context.Context) error {
	err := a.tx(ctx, func(a *Store) error { return a.loadDemoPrincipals(ctx) })
	var ue *storage.UniqueError
	if errors.As(err, &ue) {
		// Another process loading the demo at the same time got there
		// first; what is left to add is now nothing or less.
		err = a.tx(ctx, func(a *Store) error { return a.loadDemoPrincipals(ctx) })
	}
	return err
}

// demoUser is a user LoadDemo makes, with the password `make run` prints.
type demoUser struct {
	org, username, email, first, last, role, password string
}

// demoClient is a client LoadDemo makes: a back-office one acts as user, a
// storefront one belongs to org.
type demoClient struct {
	id, secret, app, name, user, org string
}

// The demo principals (issue 4; manager is for the role tests, integration
// for a system that follows the change events, issue 19).
var (
	demoOrganizations = []string{"Main", "Other"}
	demoUsers         = []demoUser{
		{"Main", "admin", "admin@example.com", "Ada", "Admin", "ROLE_ADMINISTRATOR", "demo-admin-password"},
		{"Main", "viewer", "viewer@example.com", "Vera", "Viewer", "ROLE_USER", "demo-viewer-password"},
		{"Main", "manager", "manager@example.com", "Max", "Manager", "ROLE_MANAGER", "demo-manager-password"},
		{"Main", "integration", "integration@example.com", "Ina", "Integration", "ROLE_INTEGRATION", "demo-integration-password"},
		{"Main", "auditor", "auditor@example.com", "Aude", "Auditor", "ROLE_AUDITOR", "demo-auditor-password"},
		{"Other", "other-admin", "other-admin@example.com", "Otto", "Other", "ROLE_ADMINISTRATOR", "other-admin-password"},
	}
	demoClients = []demoClient{
		{"demo-backoffice", "demo-backoffice-secret", AppBackoffice, "Demo back office (admin)", "admin", ""},
		{"demo-viewer", "demo-viewer-secret", AppBackoffice, "Demo back office (viewer)", "viewer", ""},
		{"demo-manager", "demo-manager-secret", AppBackoffice, "Demo back office (manager)", "manager", ""},
		{"demo-integration", "demo-integration-secret", AppBackoffice, "Demo back office (integration: reads the change events)", "integration", ""},
		{"demo-auditor", "demo-auditor-secret", AppBackoffice, "Demo back office (auditor: reads the audit history)", "auditor", ""},
		{"demo-other", "demo-other-secret", AppBackoffice, "Demo back office (other organization)", "other-admin", ""},
		{"demo-storefront", "demo-storefront-secret", AppStorefront, "Demo storefront", "", "Main"},
	}
)

// loadDemoPrincipals adds the demo organizations, users and clients that are
// missing. A user or client of a demo name that is not a demo one stops it:
// handing out a published secret for a real account would open it to anyone.
func (a *Store) loadDemoPrincipals(ctx context.Context) error {
	orgs := map[string]int64{}
	for _, name := range demoOrganizations {
		o, err := a.OrganizationByName(ctx, name)
		if errors.Is(err, ErrNotFound) {
			o, err = a.CreateOrganization(ctx, name)
		}
		if err != nil {
			return fmt.Errorf("authstore: demo organization %s: %w", name, err)
		}
		orgs[name] = o.ID
	}
	users := map[string]int64{}
	for _, d := range demoUsers {
		id, err := a.demoUser(ctx, d, orgs[d.org])
		if err != nil {
			return fmt.Errorf("authstore: demo user %s: %w", d.username, err)
		}
		users[d.username] = id
	}
	for _, d := range demoClients {
		if err := a.demoClient(ctx, d, users, orgs); err != nil {
			return fmt.Errorf("authstore: demo client %s: %w", d.id, err)
		}
	}
	return nil
}

// errNotDemo stops LoadDemo at a real account holding a demo name.
var errNotDemo = errors.New("exists and is not a demo one; rename it or run without --demo")

// demoUser returns the id of the demo user d, creating it when missing.
func (a *Store) demoUser(ctx context.Context, d demoUser, org int64) (int64, error) {
	u := new(User)
	err := a.c.One(ctx, u, "users", "? = ?", bun.Ident("username"), d.username)
	switch {
	case err == nil && !u.Demo:
		return 0, errNotDemo
	case err == nil:
		return u.ID, nil
	case !errors.Is(err, ErrNotFound):
		return 0, err
	}
	hash, err := secret.Hash(d.password)
	if err != nil {
		return 0, err
	}
	u = &User{OrganizationID: org, Username: d.username, Email: d.email, FirstName: d.first, LastName: d.last,
		Enabled: true, Demo: true, PasswordHash: &hash}
	if err := a.CreateUser(ctx, u, []string{d.role}); err != nil {
		return 0, err
	}
	return u.ID, nil
}

// demoClient creates the demo client d when missing.
func (a *Store) demoClient(ctx context.Context, d demoClient, users, orgs map[string]int64) error {
	cl, err := a.ClientByID(ctx, d.id)
	switch {
	case err == nil && !cl.Demo:
		return errNotDemo
	case err == nil:
		return nil
	case !errors.Is(err, ErrNotFound):
		return err
	}
	hash, err := secret.Hash(d.secret)
	if err != nil {
		return err
	}
	cl = &Client{ID: d.id, SecretHash: hash, App: d.app, Name: d.name, OrganizationID: orgs[d.org], Enabled: true, Demo: true}
	if d.user != "" {
		id := users[d.user]
		cl.UserID = &id
	}
	return a.CreateClient(ctx, cl)
}

// DemoClientInfo is a demo client as `entityapi serve --demo` announces it
// (server/cli's banner lists them all from DemoClients, so that the list
// cannot miss one).
type DemoClientInfo struct {
	ID, Secret, App, Name string
}

// DemoClients are the clients LoadDemo makes, in its order.
func DemoClients() []DemoClientInfo {
	out := make([]DemoClientInfo, len(demoClients))
	for i, d := range demoClients {
		out[i] = DemoClientInfo{ID: d.id, Secret: d.secret, App: d.app, Name: d.name}
	}
	return out
}
