package auth_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"reflect"
	"strconv"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/entityapi/entityapi/server/auth"
	"github.com/entityapi/entityapi/server/identity"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/authstore"
	"github.com/entityapi/entityapi/storage/storagetest"
)

func TestAuthenticateRejects(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		b := setup(t, s, auth.Config{})
		ctx := context.Background()
		kid, key := signingKey(t, s)
		eve := addUser(t, s, 1, "eve", "ROLE_MANAGER")
		addClient(t, s, "eve-client", eve)
		addClient(t, s, "shop", nil)
		stranger, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			t.Fatal(err)
		}
		publicPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: must(x509.MarshalPKIXPublicKey(&key.PublicKey))})
		now := b.clock.Now()
		// claims returns valid back-office claims for eve, changed by edit.
		claims := func(edit func(jwt.MapClaims)) jwt.MapClaims {
			c := jwt.MapClaims{"iss": "entityapi", "sub": strconv.FormatInt(eve.ID, 10), "aud": []string{"backoffice"},
				"client_id": "eve-client", "org": "1", "iat": now.Unix(), "exp": now.Add(time.Hour).Unix(), "jti": "j"}
			if edit != nil {
				edit(c)
			}
			return c
		}
		rs256 := func(edit func(jwt.MapClaims)) string { return sign(t, jwt.SigningMethodRS256, key, kid, claims(edit)) }
		storefront := func(c jwt.MapClaims) { c["aud"], c["sub"], c["client_id"] = []string{"storefront"}, "shop", "shop" }
		tests := []struct {
			name     string
			token    string
			audience string
			want     string // the Reason; "" accepts
		}{
			{"valid back-office token", rs256(nil), "backoffice", ""},
			{"valid storefront token", rs256(storefront), "storefront", ""},
			{"aud as a string", rs256(func(c jwt.MapClaims) { c["aud"] = "backoffice" }), "backoffice", ""},
			{"exp within the leeway", rs256(func(c jwt.MapClaims) { c["exp"] = now.Add(-20 * time.Second).Unix() }), "backoffice", ""},
			{"empty", "", "backoffice", "The access token is malformed."},
			{"not a JWT", "abc.def", "backoffice", "The access token is malformed."},
			{"garbage segments", "a.b.c", "backoffice", "The access token is malformed."},
			{"expired", rs256(func(c jwt.MapClaims) { c["exp"] = now.Add(-31 * time.Second).Unix() }), "backoffice", "The access token is expired."},
			{"issued in the future", rs256(func(c jwt.MapClaims) { c["iat"] = now.Add(time.Minute).Unix() }), "backoffice", "The access token is not valid yet."},
			{"no exp", rs256(func(c jwt.MapClaims) { delete(c, "exp") }), "backoffice", "The access token lacks a required claim."},
			{"no aud", rs256(func(c jwt.MapClaims) { delete(c, "aud") }), "backoffice", "The access token lacks a required claim."},
			{"wrong signature", sign(t, jwt.SigningMethodRS256, stranger, kid, claims(nil)), "backoffice", "The access token signature is invalid."},
			{"alg none", sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, kid, claims(nil)), "backoffice", "The access token signature is invalid."},
			{"HS256 with the public key as secret", sign(t, jwt.SigningMethodHS256, publicPEM, kid, claims(nil)), "backoffice", "The access token signature is invalid."},
			{"RS512", sign(t, jwt.SigningMethodRS512, key, kid, claims(nil)), "backoffice", "The access token signature is invalid."},
			{"unknown kid", sign(t, jwt.SigningMethodRS256, key, "no-such-key", claims(nil)), "backoffice", "The access token is signed with an unknown key."},
			{"no kid", sign(t, jwt.SigningMethodRS256, key, "", claims(nil)), "backoffice", "The access token is signed with an unknown key."},
			{"storefront token for the back office", rs256(storefront), "backoffice", "The access token is not meant for this application."},
			{"back-office token for the storefront", rs256(nil), "storefront", "The access token is not meant for this application."},
			{"wrong issuer", rs256(func(c jwt.MapClaims) { c["iss"] = "https://evil.example" }), "backoffice", "The access token was issued by an unknown issuer."},
			{"no issuer", rs256(func(c jwt.MapClaims) { delete(c, "iss") }), "backoffice", "The access token was issued by an unknown issuer."},
			{"unknown client", rs256(func(c jwt.MapClaims) { c["client_id"] = "gone" }), "backoffice", "The client of the access token does not exist."},
			{"client of the other application", rs256(func(c jwt.MapClaims) { c["client_id"] = "shop" }), "backoffice", "The access token is not meant for this application."},
			{"unknown user", rs256(func(c jwt.MapClaims) { c["sub"] = "999999" }), "backoffice", "The user of the access token does not exist."},
			{"sub not a user id", rs256(func(c jwt.MapClaims) { c["sub"] = "eve" }), "backoffice", "The access token is invalid."},
			{"storefront sub not its client", rs256(func(c jwt.MapClaims) { storefront(c); c["sub"] = "someone" }), "storefront", "The access token is invalid."},
			{"wrong organization", rs256(func(c jwt.MapClaims) { c["org"] = "2" }), "backoffice", "The access token is invalid."},
			{"no client_id", rs256(func(c jwt.MapClaims) { delete(c, "client_id") }), "backoffice", "The access token is invalid."},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				p, err := b.svc.Authenticate(ctx, tc.token, tc.audience)
				if got := reason(err); got != tc.want {
					t.Fatalf("Authenticate = %+v, %q; want %q", p, got, tc.want)
				}
				if tc.want == "" && (p == nil || p.Org != 1) {
					t.Errorf("principal = %+v", p)
				}
			})
		}
		var ae *auth.Error
		if _, err := b.svc.Authenticate(ctx, rs256(nil), "admin"); err == nil || errors.As(err, &ae) {
			t.Errorf("an unknown application = %v, want an error that is not a refusal", err)
		}
	})
}

func TestAuthenticateNoticesDisabledPrincipals(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		b := setup(t, s, auth.Config{EnabledCacheTTL: 5 * time.Second})
		ctx := context.Background()
		users := storagetest.Table(t, s, "users")
		gus := addUser(t, s, 1, "gus", "ROLE_USER", "ROLE_MANAGER")
		addClient(t, s, "gus-client", gus)
		hal := addUser(t, s, 1, "hal", "ROLE_USER")
		addClient(t, s, "hal-client", hal)
		addClient(t, s, "shop", nil)
		tests := []struct {
			name     string
			client   string
			audience string
			disable  func() error
			want     string
		}{
			{"disabled back-office client", "gus-client", "backoffice", func() error { return authstore.New(s).SetClientEnabled(ctx, "gus-client", false) },
				"The client of the access token is disabled."},
			{"disabled storefront client", "shop", "storefront", func() error { return authstore.New(s).SetClientEnabled(ctx, "shop", false) },
				"The client of the access token is disabled."},
			{"disabled user", "hal-client", "backoffice", func() error { return s.Update(ctx, users, 1, hal.ID, storage.Row{"enabled": false}) },
				"The user of the access token is disabled."},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				token := b.token(t, tc.client, "secret-"+tc.client)
				if _, err := b.svc.Authenticate(ctx, token, tc.audience); err != nil {
					t.Fatalf("before: %v", err)
				}
				if err := tc.disable(); err != nil {
					t.Fatal(err)
				}
				if _, err := b.svc.Authenticate(ctx, token, tc.audience); err != nil {
					t.Errorf("within the cache time: %v, want the cached state", err)
				}
				b.clock.Advance(5 * time.Second)
				if _, err := b.svc.Authenticate(ctx, token, tc.audience); reason(err) != tc.want {
					t.Errorf("after the cache time: %v, want %q", err, tc.want)
				}
			})
		}
	})
}

func TestAuthenticateRefusesDemoWithoutDemo(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		demo := setup(t, s, auth.Config{Demo: true})
		plain, err := auth.New(t.Context(), auth.Config{}, authstore.New(s))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		fred := addUser(t, s, 1, "fred", "ROLE_USER")
		addClient(t, s, "fred-client", fred)
		tests := []struct {
			name     string
			params   []string
			audience string
		}{
			{"demo back-office client", []string{"grant_type", "client_credentials", "client_id", "demo-viewer", "client_secret", "demo-viewer-secret"}, "backoffice"},
			{"demo storefront client", []string{"grant_type", "client_credentials", "client_id", "demo-storefront", "client_secret", "demo-storefront-secret"}, "storefront"},
			{"demo user through a real client", []string{"grant_type", "password", "client_id", "fred-client", "client_secret", "secret-fred-client",
				"username", "viewer", "password", "demo-viewer-password"}, "backoffice"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				a := demo.post(t, request{ctype: "form", params: tc.params})
				token, _ := a.body["access_token"].(string)
				if _, err := demo.svc.Authenticate(ctx, token, tc.audience); err != nil {
					t.Fatalf("with --demo: %v", err)
				}
				p, err := plain.Authenticate(ctx, token, tc.audience)
				if reason(err) != "Demo credentials are refused: the server does not run in demo mode." {
					t.Errorf("without --demo: %+v, %v", p, err)
				}
			})
		}
		want := identity.Principal{App: "backoffice", ClientID: "fred-client", UserID: fred.ID, Org: 1, Roles: []string{"ROLE_USER"}}
		if p, err := plain.Authenticate(ctx, demo.token(t, "fred-client", "secret-fred-client"), "backoffice"); err != nil || !reflect.DeepEqual(*p, want) {
			t.Errorf("a real client without --demo: %+v, %v", p, err)
		}
	})
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
