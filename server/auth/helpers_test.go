package auth_test

import (
	"context"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/entityapi/entityapi/server/auth"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/authstore"
	"github.com/entityapi/entityapi/storage/secret"
)

// clock is a test clock that starts at the real time and moves on request.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func newClock() *clock { return &clock{now: time.Now()} }

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// bundle is one Service on a store with the demo principals, its handlers
// mounted on the paths the server mounts them on.
type bundle struct {
	store   *storage.Store
	svc     *auth.Service
	clock   *clock
	handler http.Handler
}

// setup loads the demo principals into s and builds a Service with cfg (its
// clock a test clock unless cfg sets one). The Service's goroutines end with
// the test.
func setup(t *testing.T, s *storage.Store, cfg auth.Config) *bundle {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	if err := s.LoadDemoRecords(ctx); err != nil {
		t.Fatal(err)
	}
	if err := authstore.New(s).LoadDemo(ctx); err != nil {
		t.Fatal(err)
	}
	b := &bundle{store: s, clock: newClock()}
	if cfg.Now == nil {
		cfg.Now = b.clock.Now
	}
	svc, err := auth.New(ctx, cfg, authstore.New(s))
	if err != nil {
		t.Fatalf("auth.New: %v", err)
	}
	b.svc = svc
	mux := http.NewServeMux()
	mux.HandleFunc("POST /oauth2-token", svc.TokenHandler)
	mux.HandleFunc("POST /admin/oauth2-token", svc.TokenHandler)
	mux.HandleFunc("GET /.well-known/jwks.json", svc.JWKSHandler)
	b.handler = mux
	return b
}

// request is one token request: params go into a body of the content type
// ctype ("form", "json", or a literal Content-Type with raw as the body).
type request struct {
	path   string // default /oauth2-token
	ctype  string
	params []string // name, value, name, value...
	raw    string
	basic  []string // client id and secret for an Authorization: Basic header
	addr   string   // remote address (an IPv6 one in brackets); default 192.0.2.1
	remote string   // the request's RemoteAddr as is, port included, instead of addr
	header map[string]string
}

// answer is a response of the token endpoint.
type answer struct {
	status int
	header http.Header
	raw    string
	body   map[string]any
}

func (b *bundle) post(t *testing.T, r request) answer {
	t.Helper()
	body, ctype := r.raw, r.ctype
	switch r.ctype {
	case "form":
		v := url.Values{}
		for i := 0; i < len(r.params); i += 2 {
			v.Add(r.params[i], r.params[i+1])
		}
		body, ctype = v.Encode(), "application/x-www-form-urlencoded"
	case "json":
		m := map[string]string{}
		for i := 0; i < len(r.params); i += 2 {
			m[r.params[i]] = r.params[i+1]
		}
		raw, _ := json.Marshal(m)
		body, ctype = string(raw), "application/json"
	}
	path := r.path
	if path == "" {
		path = "/oauth2-token"
	}
	req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if r.basic != nil {
		req.SetBasicAuth(r.basic[0], r.basic[1])
	}
	req.RemoteAddr = "192.0.2.1:4321"
	if r.addr != "" {
		req.RemoteAddr = r.addr + ":4321"
	}
	if r.remote != "" {
		req.RemoteAddr = r.remote
	}
	for k, v := range r.header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	b.handler.ServeHTTP(rec, req)
	a := answer{status: rec.Code, header: rec.Header(), raw: rec.Body.String()}
	if err := json.Unmarshal(rec.Body.Bytes(), &a.body); err != nil {
		t.Fatalf("POST %s: body %q is not a JSON object", path, a.raw)
	}
	return a
}

// token gets a token through the client_credentials grant.
func (b *bundle) token(t *testing.T, clientID, clientSecret string) string {
	t.Helper()
	a := b.post(t, request{ctype: "form", params: []string{"grant_type", "client_credentials", "client_id", clientID, "client_secret", clientSecret}})
	if a.status != http.StatusOK {
		t.Fatalf("token for %s: %d %s", clientID, a.status, a.raw)
	}
	return a.body["access_token"].(string)
}

// addUser stores an enabled, non-demo user whose password is "pw-" + username.
func addUser(t *testing.T, s *storage.Store, org int64, username string, roles ...string) *storage.User {
	t.Helper()
	hash, err := secret.Hash("pw-" + username)
	if err != nil {
		t.Fatal(err)
	}
	u := &storage.User{OrganizationID: org, Username: username, Email: username + "@example.org",
		FirstName: "F", LastName: "L", Enabled: true, PasswordHash: &hash}
	if err := authstore.New(s).CreateUser(context.Background(), u, roles); err != nil {
		t.Fatal(err)
	}
	return u
}

// addClient stores an enabled, non-demo client whose secret is "secret-" +
// id: a back-office one acting as user, or a storefront one of org 1.
func addClient(t *testing.T, s *storage.Store, id string, user *storage.User) *authstore.Client {
	t.Helper()
	hash, err := secret.Hash("secret-" + id)
	if err != nil {
		t.Fatal(err)
	}
	c := &authstore.Client{ID: id, SecretHash: hash, App: authstore.AppStorefront, OrganizationID: 1, Name: id, Enabled: true}
	if user != nil {
		c.App, c.UserID, c.OrganizationID = authstore.AppBackoffice, &user.ID, user.OrganizationID
	}
	if err := authstore.New(s).CreateClient(context.Background(), c); err != nil {
		t.Fatal(err)
	}
	return c
}

// decode reads a JWT's header and claims without verifying it.
func decode(t *testing.T, token string) (header, claims map[string]any) {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("token %q has %d parts", token, len(parts))
	}
	for i, dst := range []*map[string]any{&header, &claims} {
		raw, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, dst); err != nil {
			t.Fatal(err)
		}
	}
	return header, claims
}

// signingKey is the newest key in the database, to forge tokens with.
func signingKey(t *testing.T, s *storage.Store) (string, *rsa.PrivateKey) {
	t.Helper()
	keys, err := authstore.New(s).SigningKeys(context.Background())
	if err != nil || len(keys) == 0 {
		t.Fatalf("SigningKeys() = %v, %v", keys, err)
	}
	block, _ := pem.Decode([]byte(keys[0].PrivatePEM))
	key, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return keys[0].KID, key.(*rsa.PrivateKey)
}

// sign makes a token with the given method, key, header kid (none when
// empty) and claims.
func sign(t *testing.T, method jwt.SigningMethod, key any, kid string, claims jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, claims)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// reason returns the Reason of an *auth.Error ("" for nil, "not an
// *auth.Error: ..." for anything else).
func reason(err error) string {
	if err == nil {
		return ""
	}
	ae, ok := err.(*auth.Error)
	if !ok {
		return "not an *auth.Error: " + err.Error()
	}
	return ae.Reason
}
