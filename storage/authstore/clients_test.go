package authstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/authstore"
	"github.com/entityapi/entityapi/storage/storagetest"
)

func TestCreateClient(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		a := authstore.New(s)
		ctx := context.Background()
		other, err := a.CreateOrganization(ctx, "Other")
		if err != nil {
			t.Fatal(err)
		}
		alice := newUser(t, s, 1, "alice", "alice@example.com")
		otto := newUser(t, s, other.ID, "otto", "otto@example.com")
		missing := int64(99999)
		tests := []struct {
			name    string
			client  authstore.Client
			wantOrg int64 // 0: CreateClient fails
			wantErr func(error) bool
		}{
			{name: "back office takes its user's organization",
				client: authstore.Client{ID: "bo", App: authstore.AppBackoffice, UserID: &otto.ID}, wantOrg: other.ID},
			{name: "back office in its user's organization",
				client: authstore.Client{ID: "bo2", App: authstore.AppBackoffice, UserID: &alice.ID, OrganizationID: 1}, wantOrg: 1},
			{name: "storefront", client: authstore.Client{ID: "sf", App: authstore.AppStorefront, OrganizationID: other.ID}, wantOrg: other.ID},
			{name: "generated id", client: authstore.Client{App: authstore.AppStorefront, OrganizationID: 1}, wantOrg: 1},
			{name: "taken id", client: authstore.Client{ID: "sf", App: authstore.AppStorefront, OrganizationID: 1}, wantErr: isUnique("id")},
			{name: "missing user", client: authstore.Client{ID: "x1", App: authstore.AppBackoffice, UserID: &missing}, wantErr: isForeignKey},
			{name: "missing organization", client: authstore.Client{ID: "x2", App: authstore.AppStorefront, OrganizationID: 999}, wantErr: isForeignKey},
			{name: "back office without user", client: authstore.Client{ID: "x3", App: authstore.AppBackoffice, OrganizationID: 1}},
			{name: "storefront with user", client: authstore.Client{ID: "x4", App: authstore.AppStorefront, UserID: &alice.ID}},
			{name: "unknown application", client: authstore.Client{ID: "x5", App: "frontend", OrganizationID: 1}},
			{name: "user of another organization",
				client: authstore.Client{ID: "x6", App: authstore.AppBackoffice, UserID: &alice.ID, OrganizationID: other.ID}},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				cl := tc.client
				cl.SecretHash, cl.Name, cl.Enabled = "$2a$10$hash", tc.name, true
				err := a.CreateClient(ctx, &cl)
				if tc.wantOrg == 0 {
					if err == nil || (tc.wantErr != nil && !tc.wantErr(err)) {
						t.Fatalf("CreateClient error = %v", err)
					}
					if tc.client.ID != "sf" {
						if _, err := a.ClientByID(ctx, tc.client.ID); !errors.Is(err, storage.ErrNotFound) {
							t.Errorf("a refused client was stored (%v)", err)
						}
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				got, err := a.ClientByID(ctx, cl.ID)
				if err != nil {
					t.Fatal(err)
				}
				if got.OrganizationID != tc.wantOrg || got.App != cl.App || got.SecretHash != cl.SecretHash ||
					!got.Enabled || got.Demo || got.Name != tc.name || (got.UserID == nil) != (cl.UserID == nil) {
					t.Errorf("ClientByID = %+v", got)
				}
				if len(cl.ID) != 32 && tc.client.ID == "" {
					t.Errorf("generated id %q is not 16 bytes of hex", cl.ID)
				}
			})
		}
		if _, err := a.ClientByID(ctx, "nope"); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("ClientByID(missing) error = %v", err)
		}
		users := storagetest.Table(t, s, "users")
		if err := s.Delete(ctx, users, other.ID, otto.ID); err != nil {
			t.Fatal(err)
		}
		if _, err := a.ClientByID(ctx, "bo"); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("the client of a deleted user is still there (%v)", err)
		}
	})
}

func TestSetClientEnabled(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		a := authstore.New(s)
		ctx := context.Background()
		if err := a.CreateClient(ctx, &authstore.Client{ID: "sf", App: authstore.AppStorefront, OrganizationID: 1,
			SecretHash: "$2a$10$hash", Name: "sf", Enabled: true}); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			id      string
			enabled bool
			wantErr error
		}{
			{"sf", false, nil},
			{"sf", false, nil},
			{"sf", true, nil},
			{"nope", false, storage.ErrNotFound},
		} {
			err := a.SetClientEnabled(ctx, tc.id, tc.enabled)
			if !errors.Is(err, tc.wantErr) || (tc.wantErr == nil && err != nil) {
				t.Fatalf("SetClientEnabled(%s, %v) = %v, want %v", tc.id, tc.enabled, err, tc.wantErr)
			}
			if tc.wantErr != nil {
				continue
			}
			if got, err := a.ClientByID(ctx, tc.id); err != nil || got.Enabled != tc.enabled {
				t.Errorf("after SetClientEnabled(%v): %+v, %v", tc.enabled, got, err)
			}
		}
	})
}

func TestSigningKeys(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		a := authstore.New(s)
		ctx := context.Background()
		if keys, err := a.SigningKeys(ctx); err != nil || len(keys) != 0 {
			t.Fatalf("SigningKeys() on a new database = %v, %v", keys, err)
		}
		t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
		for _, k := range []authstore.SigningKey{
			{KID: "a", PrivatePEM: "pem-a", CreatedAt: t0},
			{KID: "c", PrivatePEM: "pem-c", CreatedAt: t0.Add(time.Hour)},
			{KID: "b", PrivatePEM: "pem-b", CreatedAt: t0.Add(time.Hour)},
			{KID: "now", PrivatePEM: "pem-now"},
		} {
			if err := a.AddSigningKey(ctx, &k); err != nil {
				t.Fatalf("AddSigningKey(%s): %v", k.KID, err)
			}
		}
		keys, err := a.SigningKeys(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var kids []string
		for _, k := range keys {
			kids = append(kids, k.KID)
			if k.PrivatePEM != "pem-"+k.KID || k.CreatedAt.Location() != time.UTC {
				t.Errorf("key %+v", k)
			}
		}
		if got := strings.Join(kids, " "); got != "now c b a" {
			t.Errorf("SigningKeys() order = %s, want newest first, then kid descending", got)
		}
		if !keys[3].CreatedAt.Equal(t0) {
			t.Errorf("created_at of a = %v, want %v", keys[3].CreatedAt, t0)
		}
		for _, tc := range []struct {
			name string
			key  authstore.SigningKey
			want func(error) bool
		}{
			{"taken kid", authstore.SigningKey{KID: "a", PrivatePEM: "x"}, isUnique("kid")},
			{"no kid", authstore.SigningKey{PrivatePEM: "x"}, func(err error) bool { return err != nil }},
			{"no key", authstore.SigningKey{KID: "z"}, func(err error) bool { return err != nil }},
		} {
			if err := a.AddSigningKey(ctx, &tc.key); !tc.want(err) {
				t.Errorf("%s: AddSigningKey error = %v", tc.name, err)
			}
		}
	})
}

// TestResealSigningKeys: the keys fn changes are rewritten together, and an
// error of fn on any key leaves every key as it was.
func TestResealSigningKeys(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		a := authstore.New(s)
		ctx := context.Background()
		for _, kid := range []string{"k1", "k2", "k3"} {
			if err := a.AddSigningKey(ctx, &authstore.SigningKey{KID: kid, PrivatePEM: "plain " + kid}); err != nil {
				t.Fatal(err)
			}
		}
		values := func() map[string]string {
			keys, err := a.SigningKeys(ctx)
			if err != nil {
				t.Fatal(err)
			}
			out := map[string]string{}
			for _, k := range keys {
				out[k.KID] = k.PrivatePEM
			}
			return out
		}
		failing := errors.New("cannot open k1")
		n, err := a.ResealSigningKeys(ctx, func(k authstore.SigningKey) (string, bool, error) {
			if k.KID == "k1" { // the oldest, so the last one seen: the others were rewritten first
				return "", false, failing
			}
			return "sealed " + k.KID, true, nil
		})
		if !errors.Is(err, failing) {
			t.Fatalf("ResealSigningKeys = %d, %v; want the error of fn", n, err)
		}
		for kid, v := range values() {
			if v != "plain "+kid {
				t.Errorf("after a failed reseal, key %s = %q: want it unchanged", kid, v)
			}
		}
		n, err = a.ResealSigningKeys(ctx, func(k authstore.SigningKey) (string, bool, error) {
			return "sealed " + k.KID, k.KID != "k2", nil
		})
		if err != nil || n != 2 {
			t.Fatalf("ResealSigningKeys = %d, %v; want 2, nil", n, err)
		}
		want := map[string]string{"k1": "sealed k1", "k2": "plain k2", "k3": "sealed k3"}
		for kid, v := range values() {
			if v != want[kid] {
				t.Errorf("key %s = %q, want %q", kid, v, want[kid])
			}
		}
	})
}
