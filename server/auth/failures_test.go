package auth_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/entityapi/entityapi/server/auth"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

func TestTooManyFailedClientAuthentications(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		b := setup(t, s, auth.Config{Demo: true})
		attempt := func(client, secret, addr string) answer {
			return b.post(t, request{ctype: "form", addr: addr,
				params: []string{"grant_type", "client_credentials", "client_id", client, "client_secret", secret}})
		}
		tooMany := func(t *testing.T, a answer, retryAfter string) {
			t.Helper()
			if a.status != http.StatusTooManyRequests || a.body["error"] != "too_many_requests" || a.body["message"] != a.body["error_description"] ||
				a.header.Get("Retry-After") != retryAfter {
				t.Errorf("answer %d (Retry-After %q) %s, want 429 with Retry-After %s", a.status, a.header.Get("Retry-After"), a.raw, retryAfter)
			}
		}
		steps := []struct {
			name string
			run  func(t *testing.T)
		}{
			{"ten failures for one client id are answered 401", func(t *testing.T) {
				for i := range 10 {
					if a := attempt("demo-viewer", "wrong", "203.0.113.1"); a.status != http.StatusUnauthorized {
						t.Fatalf("failure %d: %d %s", i+1, a.status, a.raw)
					}
					if i == 0 {
						b.clock.Advance(15 * time.Second)
					}
				}
			}},
			{"then even the right secret gets 429 until the window ends", func(t *testing.T) {
				tooMany(t, attempt("demo-viewer", "demo-viewer-secret", "203.0.113.2"), "45")
				b.clock.Advance(1500 * time.Millisecond)
				tooMany(t, attempt("demo-viewer", "demo-viewer-secret", "203.0.113.2"), "44")
			}},
			{"the address is blocked for other clients too", func(t *testing.T) {
				tooMany(t, attempt("demo-backoffice", "demo-backoffice-secret", "203.0.113.1"), "44")
			}},
			{"other clients from other addresses go on", func(t *testing.T) {
				if a := attempt("demo-backoffice", "demo-backoffice-secret", "203.0.113.3"); a.status != http.StatusOK {
					t.Errorf("answer %d %s", a.status, a.raw)
				}
			}},
			{"after the window the client is let in again", func(t *testing.T) {
				b.clock.Advance(44 * time.Second)
				if a := attempt("demo-viewer", "demo-viewer-secret", "203.0.113.1"); a.status != http.StatusOK {
					t.Errorf("answer %d %s", a.status, a.raw)
				}
			}},
			{"ten failures from one address for many client ids block the address", func(t *testing.T) {
				for i := range 10 {
					if a := attempt("guess-"+strconv.Itoa(i), "x", "203.0.113.9"); a.status != http.StatusUnauthorized {
						t.Fatalf("failure %d: %d %s", i+1, a.status, a.raw)
					}
				}
				tooMany(t, attempt("demo-storefront", "demo-storefront-secret", "203.0.113.9"), "60")
			}},
			{"nine failures do not block", func(t *testing.T) {
				for range 9 {
					attempt("demo-other", "wrong", "203.0.113.10")
				}
				if a := attempt("demo-other", "demo-other-secret", "203.0.113.10"); a.status != http.StatusOK {
					t.Errorf("answer %d %s", a.status, a.raw)
				}
			}},
		}
		for _, st := range steps {
			t.Run(st.name, st.run)
		}
	})
}

func TestFailureLimitSettings(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		tests := []struct {
			name   string
			cfg    auth.Config
			fails  int
			status int    // of the next request, with the right secret
			retry  string // its Retry-After
		}{
			{"three in ten seconds", auth.Config{MaxFailures: 3, FailureWindow: 10 * time.Second}, 3, http.StatusTooManyRequests, "10"},
			{"below the limit", auth.Config{MaxFailures: 3, FailureWindow: 10 * time.Second}, 2, http.StatusOK, ""},
			{"no limit", auth.Config{MaxFailures: -1}, 25, http.StatusOK, ""},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				tc.cfg.Demo = true
				b := setup(t, s, tc.cfg)
				params := func(secret string) []string {
					return []string{"grant_type", "client_credentials", "client_id", "demo-storefront", "client_secret", secret}
				}
				for range tc.fails {
					if a := b.post(t, request{ctype: "form", params: params("wrong")}); a.status != http.StatusUnauthorized {
						t.Fatalf("failure answered %d %s", a.status, a.raw)
					}
				}
				a := b.post(t, request{ctype: "form", params: params("demo-storefront-secret")})
				if a.status != tc.status || a.header.Get("Retry-After") != tc.retry {
					t.Errorf("answer %d (Retry-After %q) %s, want %d", a.status, a.header.Get("Retry-After"), a.raw, tc.status)
				}
			})
		}
	})
}
