package auth_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/golang-jwt/jwt/v5"

	"github.com/entityapi/entityapi/server/auth"
	"github.com/entityapi/entityapi/server/identity"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/authstore"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// identityProvider serves the JWKS of a test key, as an outside identity
// provider does.
func identityProvider(t *testing.T) (*httptest.Server, *rsa.PrivateKey) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	jwk, err := jwkset.NewJWKFromKey(&key.PublicKey, jwkset.JWKOptions{
		Metadata: jwkset.JWKMetadataOptions{KID: "idp-1", ALG: jwkset.AlgRS256, USE: jwkset.UseSig}})
	if err != nil {
		t.Fatal(err)
	}
	set := jwkset.NewMemoryStorage()
	if err := set.KeyWrite(context.Background(), jwk); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := set.JSONPublic(r.Context())
		w.Header().Set("Content-Type", "application/jwk-set+json")
		_, _ = w.Write(raw)
	}))
	t.Cleanup(srv.Close)
	return srv, key
}

func TestExternalIdentityProvider(t *testing.T) {
	t.Parallel()
	idp, idpKey := identityProvider(t)
	stranger, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ext := &auth.External{JWKSURL: idp.URL, Issuer: "https://idp.example", AudienceBackoffice: "entityapi-admin"}
		b := setup(t, s, auth.Config{External: ext, Demo: true})
		ctx := context.Background()
		ivy := addUser(t, s, 1, "ivy", "ROLE_MANAGER", "ROLE_USER")
		other, _ := authstore.New(s).UserByLogin(ctx, "other-admin")
		jon := addUser(t, s, 1, "jon", "ROLE_USER")
		if err := s.Update(ctx, storagetest.Table(t, s, "users"), 1, jon.ID, storage.Row{"enabled": false}); err != nil {
			t.Fatal(err)
		}
		now := b.clock.Now()
		claims := func(edit func(jwt.MapClaims)) jwt.MapClaims {
			c := jwt.MapClaims{"iss": "https://idp.example", "sub": "abc", "aud": "entityapi-admin", "email": "ivy@example.org",
				"iat": now.Unix(), "exp": now.Add(5 * time.Minute).Unix()}
			if edit != nil {
				edit(c)
			}
			return c
		}
		idpToken := func(edit func(jwt.MapClaims)) string {
			return sign(t, jwt.SigningMethodRS256, idpKey, "idp-1", claims(edit))
		}
		ivyAs := func(client string) *identity.Principal {
			return &identity.Principal{App: "backoffice", ClientID: client, UserID: ivy.ID, Org: 1, Roles: []string{"ROLE_MANAGER", "ROLE_USER"}}
		}
		tests := []struct {
			name     string
			token    string
			audience string
			want     *identity.Principal
			reason   string
		}{
			{"email of a user", idpToken(nil), "backoffice", ivyAs("external"), ""},
			{"email in another case, azp", idpToken(func(c jwt.MapClaims) { c["email"], c["azp"] = "IVY@example.org", "portal" }), "backoffice", ivyAs("portal"), ""},
			{"client_id claim", idpToken(func(c jwt.MapClaims) { c["client_id"] = "cli" }), "backoffice", ivyAs("cli"), ""},
			{"user of another organization", idpToken(func(c jwt.MapClaims) { c["email"] = "other-admin@example.com" }), "backoffice",
				&identity.Principal{App: "backoffice", ClientID: "external", UserID: other.ID, Org: other.OrganizationID, Roles: []string{"ROLE_ADMINISTRATOR"}}, ""},
			{"unknown email", idpToken(func(c jwt.MapClaims) { c["email"] = "nobody@example.org" }), "backoffice", nil, "The user of the access token does not exist."},
			{"disabled user", idpToken(func(c jwt.MapClaims) { c["email"] = "jon@example.org" }), "backoffice", nil, "The user of the access token is disabled."},
			{"no email claim", idpToken(func(c jwt.MapClaims) { delete(c, "email") }), "backoffice", nil, "The access token does not name a user."},
			{"our audience instead of theirs", idpToken(func(c jwt.MapClaims) { c["aud"] = "backoffice" }), "backoffice", nil, "The access token is not meant for this application."},
			{"for the storefront", idpToken(nil), "storefront", nil, "Access tokens of the external identity provider are accepted by the back office only."},
			{"signed by another key", sign(t, jwt.SigningMethodRS256, stranger, "idp-1", claims(nil)), "backoffice", nil, "The access token signature is invalid."},
			{"expired", idpToken(func(c jwt.MapClaims) { c["exp"] = now.Add(-time.Minute).Unix() }), "backoffice", nil, "The access token is expired."},
			{"no exp", idpToken(func(c jwt.MapClaims) { delete(c, "exp") }), "backoffice", nil, "The access token lacks a required claim."},
			{"HS256", sign(t, jwt.SigningMethodHS256, []byte("shared"), "idp-1", claims(nil)), "backoffice", nil, "The access token signature is invalid."},
			{"our own tokens stay valid", b.token(t, "demo-backoffice", "demo-backoffice-secret"), "backoffice", nil, ""},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				p, err := b.svc.Authenticate(ctx, tc.token, tc.audience)
				if got := reason(err); got != tc.reason {
					t.Fatalf("Authenticate = %+v, %q; want %q", p, got, tc.reason)
				}
				if tc.want != nil && !reflect.DeepEqual(p, tc.want) {
					t.Errorf("principal = %+v, want %+v", p, tc.want)
				}
			})
		}

		byName, err := auth.New(t.Context(), auth.Config{External: &auth.External{JWKSURL: idp.URL, Issuer: "https://idp.example",
			AudienceBackoffice: "entityapi-admin", UserClaim: "preferred_username"}, Now: b.clock.Now}, authstore.New(s))
		if err != nil {
			t.Fatal(err)
		}
		p, err := byName.Authenticate(ctx, idpToken(func(c jwt.MapClaims) { c["preferred_username"] = "ivy" }), "backoffice")
		if err != nil || p.UserID != ivy.ID {
			t.Errorf("UserClaim preferred_username: %+v, %v", p, err)
		}
		for _, bad := range []auth.External{{Issuer: "x", AudienceBackoffice: "y"}, {JWKSURL: idp.URL, AudienceBackoffice: "y"}, {JWKSURL: idp.URL, Issuer: "x"},
			{JWKSURL: idp.URL, Issuer: "entityapi", AudienceBackoffice: "y"}} {
			if _, err := auth.New(t.Context(), auth.Config{External: &bad}, authstore.New(s)); err == nil {
				t.Errorf("New accepted an incomplete External %+v", bad)
			}
		}
	})
}
