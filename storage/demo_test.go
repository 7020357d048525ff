package storage_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/secret"
	"github.com/entityapi/entityapi/storage/storagetest"
)

func TestLoadDemoOnceOnly(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		for range 2 {
			if err := s.LoadDemo(ctx); err != nil {
				t.Fatal(err)
			}
		}
		for table, want := range map[string]int{"accounts": 3, "weightunits": 2, "taxjurisdictions": 2} {
			tb, _ := s.Table(table)
			n, err := s.Count(ctx, storage.Query{Table: tb, Org: 1})
			if err != nil || n != want {
				t.Errorf("%s: %d rows (%v), want %d", table, n, err, want)
			}
		}
	})
}

func TestLoadDemoPrincipals(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		if err := s.LoadDemo(ctx); err != nil {
			t.Fatal(err)
		}
		other, err := s.OrganizationByName(ctx, "Other")
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
			u, err := s.UserByLogin(ctx, tc.username)
			if err != nil {
				t.Fatalf("user %s: %v", tc.username, err)
			}
			ids[tc.username] = u.ID
			if !u.Demo || !u.Enabled || u.OrganizationID != tc.org || u.PasswordHash == nil || !secret.Verify(*u.PasswordHash, tc.password) {
				t.Errorf("user %s = %+v", tc.username, u)
			}
			if roles, err := s.UserRoles(ctx, u.ID); err != nil || !reflect.DeepEqual(roles, []string{tc.role}) {
				t.Errorf("roles of %s = %v, %v", tc.username, roles, err)
			}
		}
		if admin, _ := s.UserByLogin(ctx, "admin@example.com"); admin == nil || admin.FirstName != "Ada" || admin.LastName != "Admin" {
			t.Errorf("admin by email = %+v", admin)
		}
		clients := []struct {
			id, app, user string
			org           int64
		}{
			{"demo-backoffice", storage.AppBackoffice, "admin", 1},
			{"demo-viewer", storage.AppBackoffice, "viewer", 1},
			{"demo-manager", storage.AppBackoffice, "manager", 1},
			{"demo-other", storage.AppBackoffice, "other-admin", other.ID},
			{"demo-storefront", storage.AppStorefront, "", 1},
		}
		for _, tc := range clients {
			cl, err := s.ClientByID(ctx, tc.id)
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
		if err := s.SetClientEnabled(ctx, "demo-viewer", false); err != nil {
			t.Fatal(err)
		}
		before := snapshot(t, s)
		if err := s.LoadDemo(ctx); err != nil {
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
		newUser(t, s, 1, "admin", "someone@example.com", "ROLE_ADMINISTRATOR")
		err := s.LoadDemo(context.Background())
		if err == nil || !strings.Contains(err.Error(), "not a demo one") {
			t.Fatalf("LoadDemo with a real admin = %v, want a refusal", err)
		}
		if _, err := s.ClientByID(context.Background(), "demo-backoffice"); !isNotFound(err) {
			t.Errorf("demo-backoffice was created for a real admin (%v)", err)
		}
	})
}

// snapshot lists the organizations, users and clients with every column.
func snapshot(t *testing.T, s *storage.Store) map[string][]storage.Row {
	t.Helper()
	out := map[string][]storage.Row{}
	for _, name := range []string{"organizations", "users", "clients"} {
		tbl := table(t, s, name)
		orgs := []int64{0}
		if tbl.Scoped {
			orgs = []int64{1, 2}
		}
		for _, org := range orgs {
			rows, err := s.Find(context.Background(), storage.Query{Table: tbl, Org: org, OrderBy: []storage.Order{{Column: tbl.Key}}})
			if err != nil {
				t.Fatal(err)
			}
			out[name] = append(out[name], rows...)
		}
	}
	return out
}
