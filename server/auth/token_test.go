package auth_test

import (
	"context"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/entityapi/entityapi/server/auth"
	"github.com/entityapi/entityapi/server/identity"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/authstore"
	"github.com/entityapi/entityapi/storage/storagetest"
)

func TestTokenGrants(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		b := setup(t, s, auth.Config{Demo: true, TokenTTL: 600 * time.Second, Issuer: "https://api.example.com"})
		ctx := context.Background()
		admin, _ := authstore.New(s).UserByLogin(ctx, "admin")
		viewer, _ := authstore.New(s).UserByLogin(ctx, "viewer")
		cc := func(id string) []string {
			return []string{"grant_type", "client_credentials", "client_id", id, "client_secret", id + "-secret"}
		}
		pw := func(id, user, password string) []string {
			return []string{"grant_type", "password", "client_id", id, "client_secret", id + "-secret", "username", user, "password", password}
		}
		tests := []struct {
			name string
			req  request
			want identity.Principal
		}{
			{"client credentials, form", request{ctype: "form", params: cc("demo-backoffice")},
				identity.Principal{App: "backoffice", ClientID: "demo-backoffice", UserID: admin.ID, Org: 1, Roles: []string{"ROLE_ADMINISTRATOR"}}},
			{"client credentials, JSON, back-office path", request{path: "/admin/oauth2-token", ctype: "json", params: cc("demo-viewer")},
				identity.Principal{App: "backoffice", ClientID: "demo-viewer", UserID: viewer.ID, Org: 1, Roles: []string{"ROLE_USER"}}},
			{"client credentials, JSON with charset", request{ctype: "application/json; charset=utf-8",
				raw: `{"grant_type":"client_credentials","client_id":"demo-storefront","client_secret":"demo-storefront-secret","scope":"x"}`},
				identity.Principal{App: "storefront", ClientID: "demo-storefront", Org: 1}},
			{"client credentials, Basic, form", request{ctype: "form", params: []string{"grant_type", "client_credentials"},
				basic: []string{"demo-storefront", "demo-storefront-secret"}},
				identity.Principal{App: "storefront", ClientID: "demo-storefront", Org: 1}},
			{"client credentials, Basic, JSON", request{ctype: "json", params: []string{"grant_type", "client_credentials"},
				basic: []string{"demo-backoffice", "demo-backoffice-secret"}},
				identity.Principal{App: "backoffice", ClientID: "demo-backoffice", UserID: admin.ID, Org: 1, Roles: []string{"ROLE_ADMINISTRATOR"}}},
			{"password, form: the token is the user's", request{ctype: "form", params: pw("demo-viewer", "admin", "demo-admin-password")},
				identity.Principal{App: "backoffice", ClientID: "demo-viewer", UserID: admin.ID, Org: 1, Roles: []string{"ROLE_ADMINISTRATOR"}}},
			{"password by email, JSON", request{ctype: "json", params: pw("demo-backoffice", "viewer@example.com", "demo-viewer-password")},
				identity.Principal{App: "backoffice", ClientID: "demo-backoffice", UserID: viewer.ID, Org: 1, Roles: []string{"ROLE_USER"}}},
			{"password, Basic", request{ctype: "form", params: []string{"grant_type", "password", "username", "viewer", "password", "demo-viewer-password"},
				basic: []string{"demo-backoffice", "demo-backoffice-secret"}},
				identity.Principal{App: "backoffice", ClientID: "demo-backoffice", UserID: viewer.ID, Org: 1, Roles: []string{"ROLE_USER"}}},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				a := b.post(t, tc.req)
				if a.status != http.StatusOK {
					t.Fatalf("status %d: %s", a.status, a.raw)
				}
				if ct := a.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") || a.header.Get("Cache-Control") != "no-store" {
					t.Errorf("Content-Type %q, Cache-Control %q", ct, a.header.Get("Cache-Control"))
				}
				if len(a.body) != 3 || a.body["token_type"] != "Bearer" || a.body["expires_in"] != 600.0 {
					t.Errorf("body = %v", a.body)
				}
				token, _ := a.body["access_token"].(string)
				p, err := b.svc.Authenticate(ctx, token, tc.want.App)
				if err != nil {
					t.Fatalf("Authenticate: %v", err)
				}
				if !reflect.DeepEqual(*p, tc.want) {
					t.Errorf("principal = %+v, want %+v", *p, tc.want)
				}
			})
		}
	})
}

func TestTokenClaims(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		b := setup(t, s, auth.Config{Demo: true})
		other, _ := authstore.New(s).UserByLogin(context.Background(), "other-admin")
		kid, _ := signingKey(t, s)
		now := b.clock.Now().Unix()
		tests := []struct {
			client string
			want   map[string]any
		}{
			{"demo-other", map[string]any{"iss": "entityapi", "sub": strconv.FormatInt(other.ID, 10), "aud": []any{"backoffice"},
				"client_id": "demo-other", "org": strconv.FormatInt(other.OrganizationID, 10)}},
			{"demo-storefront", map[string]any{"iss": "entityapi", "sub": "demo-storefront", "aud": []any{"storefront"},
				"client_id": "demo-storefront", "org": "1"}},
		}
		jtis := map[any]bool{}
		for _, tc := range tests {
			t.Run(tc.client, func(t *testing.T) {
				header, claims := decode(t, b.token(t, tc.client, tc.client+"-secret"))
				if !reflect.DeepEqual(header, map[string]any{"alg": "RS256", "typ": "JWT", "kid": kid}) {
					t.Errorf("header = %v", header)
				}
				if claims["iat"] != float64(now) || claims["exp"] != float64(now+3600) {
					t.Errorf("iat %v, exp %v; want %d and %d", claims["iat"], claims["exp"], now, now+3600)
				}
				jti, _ := claims["jti"].(string)
				if len(jti) < 16 || jtis[jti] {
					t.Errorf("jti %q is short or repeated", jti)
				}
				jtis[jti] = true
				for _, c := range []string{"iat", "exp", "jti"} {
					delete(claims, c)
				}
				if !reflect.DeepEqual(claims, tc.want) {
					t.Errorf("claims = %v, want %v", claims, tc.want)
				}
			})
		}
	})
}

func TestTokenErrors(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		b := setup(t, s, auth.Config{Demo: true})
		ctx := context.Background()
		ann := addUser(t, s, 1, "ann", "ROLE_USER")
		addClient(t, s, "ann-client", ann)
		off := addUser(t, s, 1, "off", "ROLE_USER")
		addClient(t, s, "off-client", off)
		addClient(t, s, "off-sf", nil)
		users := storagetest.Table(t, s, "users")
		if err := s.Update(ctx, users, 1, off.ID, storage.Row{"enabled": false}); err != nil {
			t.Fatal(err)
		}
		if err := authstore.New(s).SetClientEnabled(ctx, "off-sf", false); err != nil {
			t.Fatal(err)
		}
		other := addUser(t, s, 2, "olga", "ROLE_USER")

		const (
			invalidRequest = "The request is missing a required parameter, includes an invalid parameter value, includes a parameter more than once, or is otherwise malformed."
			invalidClient  = "Client authentication failed"
			badUser        = "The user credentials were incorrect."
			invalidGrant   = "The provided authorization grant (e.g., authorization code, resource owner credentials) or refresh token is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client."
			unsupported    = "The authorization grant type is not supported by the authorization server."
		)
		cc := []string{"grant_type", "client_credentials"}
		bo := []string{"client_id", "demo-backoffice", "client_secret", "demo-backoffice-secret"}
		pw := append([]string{"grant_type", "password"}, bo...)
		join := func(parts ...[]string) []string {
			var out []string
			for _, p := range parts {
				out = append(out, p...)
			}
			return out
		}
		tests := []struct {
			name      string
			req       request
			status    int
			code      string
			text      string
			hint      string
			basicAuth bool // WWW-Authenticate: Basic realm="OAuth"
		}{
			{"no grant type", request{ctype: "form", params: bo}, 400, "invalid_request", invalidRequest, "Check the `grant_type` parameter", false},
			{"unsupported grant", request{ctype: "form", params: join([]string{"grant_type", "authorization_code"}, bo)}, 400, "unsupported_grant_type", unsupported, "Check that all required parameters have been provided", false},
			{"refresh token grant", request{ctype: "json", params: join([]string{"grant_type", "refresh_token"}, bo)}, 400, "unsupported_grant_type", unsupported, "Check that all required parameters have been provided", false},
			{"no client id", request{ctype: "form", params: join(cc, []string{"client_secret", "x"})}, 400, "invalid_request", invalidRequest, "Check the `client_id` parameter", false},
			{"NUL in the client id, JSON", request{ctype: "json", params: join(cc, []string{"client_id", "x\x00", "client_secret", "x"})}, 400, "invalid_request", invalidRequest, "Check the `client_id` parameter", false},
			{"NUL in the client id, form", request{ctype: "form", params: join(cc, []string{"client_id", "\x00", "client_secret", "x"})}, 400, "invalid_request", invalidRequest, "Check the `client_id` parameter", false},
			{"NUL in the username", request{ctype: "json", params: join(pw, []string{"username", "ad\x00min", "password", "x"})}, 400, "invalid_request", invalidRequest, "Check the `username` parameter", false},
			{"no client secret", request{ctype: "form", params: join(cc, []string{"client_id", "demo-backoffice"})}, 401, "invalid_client", invalidClient, "", false},
			{"unknown client", request{ctype: "form", params: join(cc, []string{"client_id", "nope", "client_secret", "x"})}, 401, "invalid_client", invalidClient, "", false},
			{"wrong secret", request{ctype: "json", params: join(cc, []string{"client_id", "demo-backoffice", "client_secret", "demo-viewer-secret"})}, 401, "invalid_client", invalidClient, "", false},
			{"wrong secret, Basic", request{ctype: "form", params: cc, basic: []string{"demo-backoffice", "wrong"}}, 401, "invalid_client", invalidClient, "", true},
			{"disabled client", request{ctype: "form", params: join(cc, []string{"client_id", "off-sf", "client_secret", "secret-off-sf"})}, 401, "invalid_client", invalidClient, "", false},
			{"disabled user of the client", request{ctype: "form", params: join(cc, []string{"client_id", "off-client", "client_secret", "secret-off-client"})}, 400, "invalid_grant", invalidGrant, "Account is disabled.", false},
			{"password without username", request{ctype: "form", params: join(pw, []string{"password", "x"})}, 400, "invalid_request", invalidRequest, "Check the `username` parameter", false},
			{"password without password", request{ctype: "json", params: join(pw, []string{"username", "admin"})}, 400, "invalid_request", invalidRequest, "Check the `password` parameter", false},
			{"wrong password", request{ctype: "form", params: join(pw, []string{"username", "admin", "password", "demo-viewer-password"})}, 400, "invalid_grant", badUser, "", false},
			{"unknown user", request{ctype: "form", params: join(pw, []string{"username", "nobody", "password", "x"})}, 400, "invalid_grant", badUser, "", false},
			{"user of another organization", request{ctype: "form", params: join(pw, []string{"username", other.Username, "password", "pw-olga"})}, 400, "invalid_grant", badUser, "", false},
			{"disabled user", request{ctype: "form", params: join(pw, []string{"username", "off", "password", "pw-off"})}, 400, "invalid_grant", invalidGrant, "Account is disabled.", false},
			{"password grant of a storefront client", request{ctype: "form", params: []string{"grant_type", "password", "client_id", "demo-storefront",
				"client_secret", "demo-storefront-secret", "username", "admin", "password", "demo-admin-password"}}, 400, "invalid_grant", invalidGrant,
				"The password grant is available to back-office clients only.", false},
			{"plain text body", request{ctype: "text/plain", raw: "grant_type=client_credentials"}, 400, "invalid_request", invalidRequest,
				"Send the parameters as application/json or application/x-www-form-urlencoded.", false},
			{"no content type", request{raw: "grant_type=client_credentials"}, 400, "invalid_request", invalidRequest,
				"Send the parameters as application/json or application/x-www-form-urlencoded.", false},
			{"malformed JSON", request{ctype: "application/json", raw: `{"grant_type":`}, 400, "invalid_request", invalidRequest, "The request body is not a JSON object.", false},
			{"JSON array", request{ctype: "application/json", raw: `["client_credentials"]`}, 400, "invalid_request", invalidRequest, "The request body is not a JSON object.", false},
			{"JSON number", request{ctype: "application/json", raw: `{"grant_type":"client_credentials","client_id":7}`}, 400, "invalid_request", invalidRequest, "Check the `client_id` parameter", false},
			{"parameter twice", request{ctype: "form", params: join(cc, cc, bo)}, 400, "invalid_request", invalidRequest, "Check the `grant_type` parameter", false},
			{"parameters in the query string only", request{path: "/oauth2-token?grant_type=client_credentials&client_id=demo-backoffice&client_secret=demo-backoffice-secret",
				ctype: "form"}, 400, "invalid_request", invalidRequest, "Check the `grant_type` parameter", false},
		}
		for i, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				tc.req.addr = "198.51.100." + strconv.Itoa(i+1) // keep the failure counts apart
				a := b.post(t, tc.req)
				if a.status != tc.status || a.body["error"] != tc.code || a.body["error_description"] != tc.text || a.body["message"] != tc.text {
					t.Errorf("answer %d %s, want %d %s", a.status, a.raw, tc.status, tc.code)
				}
				if hint, _ := a.body["hint"].(string); hint != tc.hint {
					t.Errorf("hint %q, want %q", hint, tc.hint)
				}
				if got := a.header.Get("WWW-Authenticate"); (got == `Basic realm="OAuth"`) != tc.basicAuth || (!tc.basicAuth && got != "") {
					t.Errorf("WWW-Authenticate %q", got)
				}
				if !strings.HasPrefix(a.header.Get("Content-Type"), "application/json") {
					t.Errorf("Content-Type %q", a.header.Get("Content-Type"))
				}
				if strings.Contains(a.raw, "secret-") || strings.Contains(a.raw, "password\"") {
					t.Errorf("the answer echoes a secret: %s", a.raw)
				}
			})
		}
		if token := b.token(t, "ann-client", "secret-ann-client"); token == "" {
			t.Error("a valid non-demo client got no token")
		}
	})
}

func TestDemoCredentialsRefusedWithoutDemo(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		b := setup(t, s, auth.Config{})
		admin, _ := authstore.New(s).UserByLogin(context.Background(), "admin")
		addClient(t, s, "real-as-demo-user", admin)
		real := addUser(t, s, 1, "real", "ROLE_USER")
		addClient(t, s, "real", real)
		tests := []struct {
			name   string
			params []string
			status int
			code   string
		}{
			{"demo back-office client", []string{"grant_type", "client_credentials", "client_id", "demo-backoffice", "client_secret", "demo-backoffice-secret"}, 401, "invalid_client"},
			{"demo storefront client", []string{"grant_type", "client_credentials", "client_id", "demo-storefront", "client_secret", "demo-storefront-secret"}, 401, "invalid_client"},
			{"real client acting as a demo user", []string{"grant_type", "client_credentials", "client_id", "real-as-demo-user", "client_secret", "secret-real-as-demo-user"}, 400, "invalid_grant"},
			{"demo user through a real client", []string{"grant_type", "password", "client_id", "real", "client_secret", "secret-real",
				"username", "admin", "password", "demo-admin-password"}, 400, "invalid_grant"},
			{"real client and user", []string{"grant_type", "password", "client_id", "real", "client_secret", "secret-real",
				"username", "real", "password", "pw-real"}, 200, ""},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				a := b.post(t, request{ctype: "form", params: tc.params})
				if a.status != tc.status || (tc.code != "" && a.body["error"] != tc.code) {
					t.Errorf("answer %d %s, want %d %s", a.status, a.raw, tc.status, tc.code)
				}
			})
		}
	})
}
