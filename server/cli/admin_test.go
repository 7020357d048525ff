package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/authstore"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestAdminCommands runs the administration commands on each database as
// `entityapi org create`, `user create`, `client create` and `client disable`
// do, and judges what they print, what they store and how they refuse.
func TestAdminCommands(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		store := authstore.New(s)
		ctx := context.Background()
		cmd := func(name string, f *adminFlags, args ...string) (string, error) {
			var out bytes.Buffer
			err := admin(ctx, store, name, f, args, &out)
			return out.String(), err
		}
		out, err := cmd("org create", &adminFlags{}, "Acme")
		if err != nil || !strings.HasPrefix(out, "organization ") || !strings.HasSuffix(out, " Acme\n") {
			t.Fatalf("org create: %q, %v", out, err)
		}
		ann := &adminFlags{org: "Acme", username: "ann", email: "ann@test.example", firstName: "Ann", lastName: "Admin",
			role: "ROLE_ADMINISTRATOR", password: "correct horse"}
		out, err = cmd("user create", ann)
		if err != nil || !strings.Contains(out, " ann (ROLE_ADMINISTRATOR) in Acme") {
			t.Fatalf("user create: %q, %v", out, err)
		}
		if u, err := store.UserByLogin(ctx, "ann"); err != nil || u.PasswordHash == nil {
			t.Errorf("user ann: %+v, %v; want a password hash", u, err)
		}
		out, err = cmd("client create", &adminFlags{app: "backoffice", user: "ann"})
		if err != nil || !strings.HasPrefix(out, "client_id:     ") || !strings.Contains(out, "(shown once; keep it)") {
			t.Fatalf("client create: %q, %v", out, err)
		}
		out, err = cmd("client create", &adminFlags{app: "storefront", org: "Acme", name: "shop", asJSON: true})
		var cred map[string]string
		if err != nil || json.Unmarshal([]byte(out), &cred) != nil || cred["app"] != "storefront" || cred["client_secret"] == "" {
			t.Fatalf("client create --json: %q, %v", out, err)
		}
		out, err = cmd("client disable", &adminFlags{}, cred["client_id"])
		if err != nil || out != "client "+cred["client_id"]+" disabled\n" {
			t.Fatalf("client disable: %q, %v", out, err)
		}
		if c, err := store.ClientByID(ctx, cred["client_id"]); err != nil || c.Enabled {
			t.Errorf("client after disable: %+v, %v", c, err)
		}

		refused := []struct {
			name, cmd string
			f         *adminFlags
			args      []string
			want      string
		}{
			{"org without a name", "org create", &adminFlags{}, nil, "usage: entityapi org create NAME"},
			{"user without names", "user create", &adminFlags{org: "Acme", username: "bob"}, nil, "usage: entityapi user create"},
			{"user of no organization", "user create", &adminFlags{org: "Nope", username: "bob", email: "b@test.example", firstName: "B",
				lastName: "B", role: "ROLE_USER"}, nil, `organization "Nope"`},
			{"back-office client without a user", "client create", &adminFlags{app: "backoffice"}, nil, "usage: entityapi client create"},
			{"back-office client of no user", "client create", &adminFlags{app: "backoffice", user: "nobody"}, nil, `user "nobody"`},
			{"storefront client of no organization", "client create", &adminFlags{app: "storefront", org: "Nope"}, nil, `organization "Nope"`},
			{"client of no application", "client create", &adminFlags{app: "shop"}, nil, `--app "shop": want backoffice or storefront`},
			{"disable without an id", "client disable", &adminFlags{}, nil, "usage: entityapi client disable ID"},
			{"rewrap without a key", "keys rewrap", &adminFlags{}, nil, "keys rewrap needs the key-encryption key"},
			{"unknown", "org delete", &adminFlags{}, []string{"Acme"}, `unknown command "org delete"`},
		}
		for _, tt := range refused {
			if _, err := cmd(tt.cmd, tt.f, tt.args...); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s: %v, want an error with %q", tt.name, err, tt.want)
			}
		}
	})
}
