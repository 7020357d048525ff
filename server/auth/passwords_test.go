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

// TestPasswordGuessing (issue 15 item 7): wrong passwords are counted per
// user from one address and per user from all addresses, as client secrets
// are. Small limits keep the bcrypt work of the test small; the defaults
// are the same code with other numbers.
func TestPasswordGuessing(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		b := setup(t, s, auth.Config{Demo: true, MaxFailures: 3, MaxGlobalFailures: 6, FailureWindow: 30 * time.Second})
		for _, name := range []string{"alice", "bob", "carol", "dave"} {
			addUser(t, s, 1, name, "ROLE_USER")
		}
		login := func(username, password, addr string) answer {
			return b.post(t, request{ctype: "form", path: "/admin/oauth2-token", addr: addr, params: []string{"grant_type", "password",
				"client_id", "demo-backoffice", "client_secret", "demo-backoffice-secret", "username", username, "password", password}})
		}
		want := func(t *testing.T, a answer, status int, retryAfter string) {
			t.Helper()
			if a.status != status || a.header.Get("Retry-After") != retryAfter {
				t.Errorf("answer %d (Retry-After %q) %s, want %d (Retry-After %q)", a.status, a.header.Get("Retry-After"), a.raw, status, retryAfter)
			}
			if status == http.StatusTooManyRequests && (a.body["error"] != "too_many_requests" || a.body["message"] != a.body["error_description"]) {
				t.Errorf("body %s", a.raw)
			}
		}
		steps := []struct {
			name string
			run  func(t *testing.T)
		}{
			{"three wrong passwords from one address, then 429 for the right one there", func(t *testing.T) {
				for range 3 {
					want(t, login("alice", "wrong", "203.0.113.1"), http.StatusBadRequest, "")
				}
				b.clock.Advance(10 * time.Second)
				want(t, login("alice", "pw-alice", "203.0.113.1"), http.StatusTooManyRequests, "20")
			}},
			{"the user's email is the same user", func(t *testing.T) {
				want(t, login("alice@example.org", "pw-alice", "203.0.113.1"), http.StatusTooManyRequests, "20")
			}},
			{"another user from that address and the user from another address log in", func(t *testing.T) {
				want(t, login("bob", "pw-bob", "203.0.113.1"), http.StatusOK, "")
				want(t, login("alice", "pw-alice", "203.0.113.2"), http.StatusOK, "")
			}},
			{"a guess from many addresses runs into the global count", func(t *testing.T) {
				for i := range 6 {
					want(t, login("carol", "wrong", "198.51.100."+strconv.Itoa(i+1)), http.StatusBadRequest, "")
				}
				want(t, login("carol", "pw-carol", "192.0.2.77"), http.StatusTooManyRequests, "30")
				want(t, login("dave", "pw-dave", "192.0.2.77"), http.StatusOK, "")
				b.clock.Advance(30 * time.Second)
				want(t, login("carol", "pw-carol", "192.0.2.77"), http.StatusOK, "")
			}},
			{"an unknown user is counted like a known one", func(t *testing.T) {
				for range 3 {
					want(t, login("nobody", "wrong", "203.0.113.3"), http.StatusBadRequest, "")
				}
				want(t, login("nobody", "wrong", "203.0.113.3"), http.StatusTooManyRequests, "30")
			}},
			{"the right password forgets the address's failures, not the global count", func(t *testing.T) {
				for range 2 {
					want(t, login("bob", "wrong", "203.0.113.4"), http.StatusBadRequest, "")
					want(t, login("bob", "wrong", "203.0.113.4"), http.StatusBadRequest, "")
					want(t, login("bob", "pw-bob", "203.0.113.4"), http.StatusOK, "")
				}
				// Four failures from all addresses: two more and bob is refused everywhere.
				want(t, login("bob", "wrong", "203.0.113.5"), http.StatusBadRequest, "")
				want(t, login("bob", "wrong", "203.0.113.5"), http.StatusBadRequest, "")
				want(t, login("bob", "pw-bob", "203.0.113.4"), http.StatusTooManyRequests, "30")
			}},
		}
		for _, st := range steps {
			t.Run(st.name, st.run)
		}
	})
}
