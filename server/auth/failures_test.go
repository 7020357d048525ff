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
			{"then even the right secret gets 429 from that address until the window ends", func(t *testing.T) {
				tooMany(t, attempt("demo-viewer", "demo-viewer-secret", "203.0.113.1"), "45")
				b.clock.Advance(1500 * time.Millisecond)
				tooMany(t, attempt("demo-viewer", "demo-viewer-secret", "203.0.113.1"), "44")
			}},
			// Issue 15: the address used to be blocked for every client and the
			// client from every address, so a guesser locked out innocent ones.
			{"the same client from another address goes on", func(t *testing.T) {
				if a := attempt("demo-viewer", "demo-viewer-secret", "203.0.113.2"); a.status != http.StatusOK {
					t.Errorf("answer %d %s", a.status, a.raw)
				}
			}},
			{"other clients from the same address go on", func(t *testing.T) {
				if a := attempt("demo-backoffice", "demo-backoffice-secret", "203.0.113.1"); a.status != http.StatusOK {
					t.Errorf("answer %d %s", a.status, a.raw)
				}
			}},
			{"after the window the client is let in again", func(t *testing.T) {
				b.clock.Advance(44 * time.Second)
				if a := attempt("demo-viewer", "demo-viewer-secret", "203.0.113.1"); a.status != http.StatusOK {
					t.Errorf("answer %d %s", a.status, a.raw)
				}
			}},
			{"failures from one address for many client ids do not block the address", func(t *testing.T) {
				for i := range 10 {
					if a := attempt("guess-"+strconv.Itoa(i), "x", "203.0.113.9"); a.status != http.StatusUnauthorized {
						t.Fatalf("failure %d: %d %s", i+1, a.status, a.raw)
					}
				}
				if a := attempt("demo-storefront", "demo-storefront-secret", "203.0.113.9"); a.status != http.StatusOK {
					t.Errorf("answer %d %s", a.status, a.raw)
				}
			}},
			{"an IPv6 /64 counts as one address", func(t *testing.T) {
				for i := range 10 {
					attempt("demo-other", "wrong", "[2001:db8:1:2::"+strconv.Itoa(i+1)+"]")
				}
				tooMany(t, attempt("demo-other", "demo-other-secret", "[2001:db8:1:2:ffff::1]"), "60")
				if a := attempt("demo-other", "demo-other-secret", "[2001:db8:1:3::1]"); a.status != http.StatusOK {
					t.Errorf("another /64: answer %d %s", a.status, a.raw)
				}
			}},
			{"nine failures do not block", func(t *testing.T) {
				for range 9 {
					attempt("demo-other", "wrong", "203.0.113.10")
				}
				if a := attempt("demo-other", "demo-other-secret", "203.0.113.10"); a.status != http.StatusOK {
					t.Errorf("answer %d %s", a.status, a.raw)
				}
			}},
			{"the right secret forgets the address's failures", func(t *testing.T) {
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

// TestFailureLimitSettings: the limits per address and from all addresses
// follow the Config. The cases share one store, whose counts are shared (in
// the database with PostgreSQL), so each counts against a client of its own.
func TestFailureLimitSettings(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		tests := []struct {
			name   string
			cfg    auth.Config
			client string
			addrs  int    // the failures come from this many addresses, one each in turn
			fails  int    // how many
			status int    // of the next request, with the right secret, from one of those addresses
			retry  string // its Retry-After
		}{
			{"three in ten seconds", auth.Config{MaxFailures: 3, FailureWindow: 10 * time.Second}, "demo-storefront", 1, 3, http.StatusTooManyRequests, "10"},
			{"below the limit", auth.Config{MaxFailures: 3, FailureWindow: 10 * time.Second}, "demo-viewer", 1, 2, http.StatusOK, ""},
			{"no limit", auth.Config{MaxFailures: -1, MaxGlobalFailures: -1}, "demo-manager", 1, 25, http.StatusOK, ""},
			{"five from all addresses", auth.Config{MaxGlobalFailures: 5, FailureWindow: 20 * time.Second}, "demo-other", 5, 5, http.StatusTooManyRequests, "20"},
			{"below the global limit", auth.Config{MaxGlobalFailures: 5}, "demo-backoffice", 4, 4, http.StatusOK, ""},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				tc.cfg.Demo = true
				b := setup(t, s, tc.cfg)
				params := func(secret string) []string {
					return []string{"grant_type", "client_credentials", "client_id", tc.client, "client_secret", secret}
				}
				addr := func(i int) string { return "198.51.100." + strconv.Itoa(1+i%tc.addrs) }
				for i := range tc.fails {
					if a := b.post(t, request{ctype: "form", addr: addr(i), params: params("wrong")}); a.status != http.StatusUnauthorized {
						t.Fatalf("failure answered %d %s", a.status, a.raw)
					}
				}
				a := b.post(t, request{ctype: "form", addr: addr(0), params: params(tc.client + "-secret")})
				if a.status != tc.status || a.header.Get("Retry-After") != tc.retry {
					t.Errorf("answer %d (Retry-After %q) %s, want %d", a.status, a.header.Get("Retry-After"), a.raw, tc.status)
				}
			})
		}
	})
}
