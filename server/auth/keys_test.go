package auth_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"errors"
	"math/big"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/entityapi/entityapi/server/auth"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/authstore"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// jwks fetches the key set and returns its keys by kid.
func (b *bundle) jwks(t *testing.T) map[string]map[string]any {
	t.Helper()
	rec := httptest.NewRecorder()
	b.handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/.well-known/jwks.json", nil))
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/jwk-set+json" {
		t.Fatalf("GET /.well-known/jwks.json: %d %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	var set struct {
		Keys []map[string]any `json:"keys"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &set); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, k := range set.Keys {
		out[k["kid"].(string)] = k
	}
	return out
}

// kids lists the kids of a key set, sorted.
func kids(set map[string]map[string]any) []string {
	var out []string
	for kid := range set {
		out = append(out, kid)
	}
	slices.Sort(out)
	return out
}

func TestJWKS(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		b := setup(t, s, auth.Config{})
		kid, key := signingKey(t, s)
		set := b.jwks(t)
		if len(set) != 1 || set[kid] == nil {
			t.Fatalf("key set %v, want only %s", kids(set), kid)
		}
		b64 := func(n *big.Int) string { return base64.RawURLEncoding.EncodeToString(n.Bytes()) }
		want := map[string]any{"kty": "RSA", "kid": kid, "alg": "RS256", "use": "sig",
			"n": b64(key.N), "e": b64(big.NewInt(int64(key.E)))}
		if !reflect.DeepEqual(set[kid], want) {
			t.Errorf("key = %v\nwant %v (public members only)", set[kid], want)
		}
		// A second Service (another process) uses the stored key, not a new one.
		if _, err := auth.New(t.Context(), auth.Config{}, authstore.New(s)); err != nil {
			t.Fatal(err)
		}
		if keys, err := authstore.New(s).SigningKeys(context.Background()); err != nil || len(keys) != 1 {
			t.Errorf("signing keys after a second New: %d, %v; want 1", len(keys), err)
		}
	})
}

func TestKeyRotation(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		b := setup(t, s, auth.Config{Demo: true, ReloadEvery: time.Hour})
		other := setup(t, s, auth.Config{Demo: true, ReloadEvery: time.Hour}) // another process
		before := b.token(t, "demo-backoffice", "demo-backoffice-secret")
		oldKID, _ := decode(t, before)
		kid, err := auth.RotateKey(ctx, authstore.New(s), nil)
		if err != nil {
			t.Fatal(err)
		}
		steps := []struct {
			name string
			run  func(t *testing.T)
		}{
			{"before the reload the old key still signs", func(t *testing.T) {
				if h, _ := decode(t, b.token(t, "demo-viewer", "demo-viewer-secret")); h["kid"] != oldKID["kid"] {
					t.Errorf("kid %v, want the old %v", h["kid"], oldKID["kid"])
				}
			}},
			{"after the reload new tokens carry the new kid", func(t *testing.T) {
				if err := b.svc.Reload(ctx); err != nil {
					t.Fatal(err)
				}
				if h, _ := decode(t, b.token(t, "demo-viewer", "demo-viewer-secret")); h["kid"] != kid {
					t.Errorf("kid %v, want the new %s", h["kid"], kid)
				}
			}},
			{"a token signed before the rotation still verifies", func(t *testing.T) {
				if _, err := b.svc.Authenticate(ctx, before, "backoffice"); err != nil {
					t.Error(err)
				}
			}},
			{"the key set lists both keys", func(t *testing.T) {
				if got := kids(b.jwks(t)); !reflect.DeepEqual(got, kids(map[string]map[string]any{kid: nil, oldKID["kid"].(string): nil})) {
					t.Errorf("kids %v", got)
				}
			}},
			{"a process that has not reloaded yet accepts the new kid", func(t *testing.T) {
				if _, err := other.svc.Authenticate(ctx, b.token(t, "demo-viewer", "demo-viewer-secret"), "backoffice"); err != nil {
					t.Error(err)
				}
			}},
			{"the old key leaves once its last token has expired", func(t *testing.T) {
				// From the real time, not the test clock's start: the new key's
				// created_at is the database's clock, and a loaded machine can
				// take more than a second between setup and the rotation.
				b.clock.Advance(time.Since(b.clock.Now()) + time.Hour + time.Hour + 31*time.Second + time.Second)
				if err := b.svc.Reload(ctx); err != nil {
					t.Fatal(err)
				}
				if got := kids(b.jwks(t)); !reflect.DeepEqual(got, []string{kid}) {
					t.Errorf("kids %v, want only the new key", got)
				}
			}},
		}
		for _, st := range steps {
			t.Run(st.name, st.run)
		}
	})
}

func TestKeysReloadInTheBackground(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		b := setup(t, s, auth.Config{Demo: true, ReloadEvery: 20 * time.Millisecond})
		kid, err := auth.RotateKey(context.Background(), authstore.New(s), nil)
		if err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(5 * time.Second)
		for {
			if h, _ := decode(t, b.token(t, "demo-storefront", "demo-storefront-secret")); h["kid"] == kid {
				return
			}
			if time.Now().After(deadline) {
				t.Fatal("the new key did not sign within 5 s")
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
}

func TestSigningKeyFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name string, block *pem.Block) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	small, err := rsa.GenerateKey(rand.Reader, 1024)
	if err != nil {
		t.Fatal(err)
	}
	pkcs1 := write("pkcs1.pem", &pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	pkcs8 := write("pkcs8.pem", &pem.Block{Type: "PRIVATE KEY", Bytes: must(x509.MarshalPKCS8PrivateKey(key))})
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		tests := []struct {
			name string
			path string
			ok   bool
		}{
			{"PKCS #1", pkcs1, true},
			{"PKCS #8", pkcs8, true},
			{"missing file", filepath.Join(dir, "none.pem"), false},
			{"not PEM", write("junk.pem", &pem.Block{Type: "CERTIFICATE", Bytes: []byte("junk")}), false},
			{"too small", write("small.pem", &pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(small)}), false},
		}
		var fileKID any
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				if !tc.ok {
					if _, err := auth.New(t.Context(), auth.Config{SigningKeyFile: tc.path}, authstore.New(s)); err == nil {
						t.Fatal("New accepted the key file")
					}
					return
				}
				b := setup(t, s, auth.Config{Demo: true, SigningKeyFile: tc.path})
				header, _ := decode(t, b.token(t, "demo-backoffice", "demo-backoffice-secret"))
				set := b.jwks(t)
				if len(set) != 1 || set[header["kid"].(string)] == nil {
					t.Errorf("key set %v, token kid %v", kids(set), header["kid"])
				}
				if fileKID != nil && header["kid"] != fileKID {
					t.Errorf("kid %v, want %v: one file key, one kid", header["kid"], fileKID)
				}
				fileKID = header["kid"]
			})
		}
		if keys, err := authstore.New(s).SigningKeys(context.Background()); err != nil || len(keys) != 0 {
			t.Errorf("a key file left %d database keys (%v); want none", len(keys), err)
		}
	})
}

// TestUnknownKidWhileTheDatabaseIsDown: a process that meets a kid it has
// not loaded yet (a key another process just added) while it cannot read the
// keys does not refuse the token (a client told 401 drops a good token):
// the failure is the database's, and so are the next ones until a reload
// succeeds; then the token verifies.
func TestUnknownKidWhileTheDatabaseIsDown(t *testing.T) {
	t.Parallel()
	for _, d := range storagetest.Dialects() {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			first, second := storagetest.OpenTwo(t, d)
			stale := setup(t, first, auth.Config{Demo: true, ReloadEvery: time.Hour})
			if _, err := auth.RotateKey(ctx, authstore.New(second), nil); err != nil {
				t.Fatal(err)
			}
			fresh := setup(t, second, auth.Config{Demo: true, ReloadEvery: time.Hour})
			token := fresh.token(t, "demo-backoffice", "demo-backoffice-secret")
			first.Close()            // the stale process's database is gone
			for attempt := range 2 { // the reload, then the reloads it spaces out
				_, err := stale.svc.Authenticate(ctx, token, "backoffice")
				var ae *auth.Error
				if err == nil || errors.As(err, &ae) {
					t.Fatalf("attempt %d: Authenticate = %v, want the database's failure, not a refusal", attempt, err)
				}
			}
		})
	}
}
