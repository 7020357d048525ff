package authstore_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/authstore"
	"github.com/entityapi/entityapi/storage/secret"
	"github.com/entityapi/entityapi/storage/storagetest"
)

func TestLoadDemoPrincipals(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		a := authstore.New(s)
		ctx := context.Background()
		if err := a.LoadDemo(ctx); err != nil {
			t.Fatal(err)
		}
		other, err := a.OrganizationByName(ctx, "Other")
		if err != nil {
			t.Fatal(err)
		}
		users := []struct {
			username, password, role string
			org                      int64
		}{
			{"admin", "demo-admin-password", "ROLE_ADMINISTRATOR", 1},
			{"viewer", "demo-viewer-password", "ROLE_USER", 1},
			{"manager", "demo-manager-password", "ROLE_MANAGER", 1},
			{"other-admin", "other-admin-password", "ROLE_ADMINISTRATOR", other.ID},
		}
		ids := map[string]int64{}
		for _, tc := range users {
			u, err := a.UserByLogin(ctx, tc.username)
			if err != nil {
				t.Fatalf("user %s: %v", tc.username, err)
			}
			ids[tc.username] = u.ID
			if !u.Demo || !u.Enabled || u.OrganizationID != tc.org || u.PasswordHash == nil || !secret.Verify(*u.PasswordHash, tc.password) {
				t.Errorf("user %s = %+v", tc.username, u)
			}
			if roles, err := a.UserRoles(ctx, u.ID); err != nil || !reflect.DeepEqual(roles, []string{tc.role}) {
				t.Errorf("roles of %s = %v, %v", tc.username, roles, err)
			}
		}
		if admin, _ := a.UserByLogin(ctx, "admin@example.com"); admin == nil || admin.FirstName != "Ada" || admin.LastName != "Admin" {
			t.Errorf("admin by email = %+v", admin)
		}
		clients := []struct {
			id, app, user string
			org           int64
		}{
			{"demo-backoffice", authstore.AppBackoffice, "admin", 1},
			{"demo-viewer", authstore.AppBackoffice, "viewer", 1},
			{"demo-manager", authstore.AppBackoffice, "manager", 1},
			{"demo-other", authstore.AppBackoffice, "other-admin", other.ID},
			{"demo-storefront", authstore.AppStorefront, "", 1},
		}
		for _, tc := range clients {
			cl, err := a.ClientByID(ctx, tc.id)
			if err != nil {
				t.Fatalf("client %s: %v", tc.id, err)
			}
			var user int64
			if cl.UserID != nil {
				user = *cl.UserID
			}
			if cl.App != tc.app || user != ids[tc.user] || cl.OrganizationID != tc.org || !cl.Demo || !cl.Enabled ||
				!secret.Verify(cl.SecretHash, tc.id+"-secret") {
				t.Errorf("client %s = %+v", tc.id, cl)
			}
		}

		// A second call changes nothing, not even what a user changed since.
		if err := a.SetClientEnabled(ctx, "demo-viewer", false); err != nil {
			t.Fatal(err)
		}
		before := snapshot(t, s)
		if err := a.LoadDemo(ctx); err != nil {
			t.Fatal(err)
		}
		if after := snapshot(t, s); !reflect.DeepEqual(before, after) {
			t.Errorf("the second LoadDemo changed the principals:\n%v\n%v", before, after)
		}
	})
}

func TestLoadDemoRefusesRealAccounts(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		a := authstore.New(s)
		newUser(t, s, 1, "admin", "someone@example.com", "ROLE_ADMINISTRATOR")
		err := a.LoadDemo(context.Background())
		if err == nil || !strings.Contains(err.Error(), "not a demo one") {
			t.Fatalf("LoadDemo with a real admin = %v, want a refusal", err)
		}
		if _, err := a.ClientByID(context.Background(), "demo-backoffice"); !isNotFound(err) {
			t.Errorf("demo-backoffice was created for a real admin (%v)", err)
		}
	})
}

// snapshot lists the organizations, users and clients with every column.
func snapshot(t *testing.T, s *storage.Store) map[string]any {
	t.Helper()
	ctx := context.Background()
	out := map[string]any{}
	for _, name := range []string{"organizations", "users"} {
		tbl := storagetest.Table(t, s, name)
		orgs := []int64{0}
		if tbl.Scoped {
			orgs = []int64{1, 2}
		}
		var rows []storage.Row
		for _, org := range orgs {
			found, err := s.Find(ctx, storage.Query{Table: tbl, Org: org, OrderBy: []storage.Order{{Column: tbl.Key}}})
			if err != nil {
				t.Fatal(err)
			}
			rows = append(rows, found...)
		}
		out[name] = rows
	}
	var clients []authstore.Client // not a generic table: read through its model
	if err := s.DB().NewSelect().Model(&clients).Order("id").Scan(ctx); err != nil {
		t.Fatal(err)
	}
	out["clients"] = clients
	return out
}
