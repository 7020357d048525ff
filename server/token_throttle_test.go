package server_test

import (
	"context"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/authstore"
	"github.com/entityapi/entityapi/storage/secret"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// testClock is a clock the tests move by hand, handed to the token endpoint
// so that a failure window can pass without waiting for it.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func newTestClock() *testClock { return &testClock{now: time.Now()} }

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// addPasswordUser stores an enabled user of the Main organization whose
// password is "pw-" + username, for the password grant.
func addPasswordUser(t *testing.T, s *storage.Store, username string) {
	t.Helper()
	hash, err := secret.Hash("pw-" + username)
	if err != nil {
		t.Fatal(err)
	}
	u := &storage.User{OrganizationID: 1, Username: username, Email: username + "@test.example",
		FirstName: "Test", LastName: username, Enabled: true, PasswordHash: &hash}
	if err := authstore.New(s).CreateUser(context.Background(), u, []string{"ROLE_USER"}); err != nil {
		t.Fatalf("user %s: %v", username, err)
	}
}

// passwordGrant asks the back-office token endpoint for a token of username
// through the test-viewer client, without a bearer token.
func (a *api) passwordGrant(username, password string) *result {
	a.t.Helper()
	return a.do(http.MethodPost, "/admin/oauth2-token", map[string]string{"Authorization": "", "Content-Type": "application/json"},
		`{"grant_type":"password","client_id":"test-viewer","client_secret":"test-viewer-secret","username":"`+username+`","password":"`+password+`"}`)
}

// clientGrant asks the shared token endpoint for a client_credentials token.
func (a *api) clientGrant(clientID, clientSecret string) *result {
	a.t.Helper()
	return a.do(http.MethodPost, "/oauth2-token", map[string]string{"Authorization": "", "Content-Type": "application/json"},
		`{"grant_type":"client_credentials","client_id":"`+clientID+`","client_secret":"`+clientSecret+`"}`)
}

// wantTooMany fails unless r is the token endpoint's 429: OAuth's error
// format with Retry-After in whole seconds within the window.
func wantTooMany(t *testing.T, r *result, window time.Duration) {
	t.Helper()
	r.want(t, http.StatusTooManyRequests)
	secs, err := strconv.Atoi(r.header.Get("Retry-After"))
	if err != nil || secs < 1 || secs > int(window/time.Second) {
		t.Errorf("Retry-After %q, want whole seconds in 1..%d", r.header.Get("Retry-After"), int(window/time.Second))
	}
	if r.value("error") != "too_many_requests" || r.value("message") != r.value("error_description") || r.value("error_description") == nil {
		t.Errorf("body %s", r.body)
	}
}

// TestTokenGuessingIsThrottled (issue 15 items 7 and 8), over real HTTP from
// one address with the default limits: ten wrong passwords for one user are
// 400, the rest of a hundred are 429, and so is the right password until the
// window passes; ten wrong secrets of one client are 401 and then 429 for
// that client only. Neither locks out another user or another client from
// the same address.
func TestTokenGuessingIsThrottled(t *testing.T) {
	const window = 60 * time.Second
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			clock := newTestClock()
			a := newAPIWith(t, storagetest.Open(t, dialect), func(c *server.Config) { c.Auth.Now = clock.Now })
			addPasswordUser(t, a.store, "guessed")
			addPasswordUser(t, a.store, "bystander")

			t.Run("a hundred wrong passwords", func(t *testing.T) {
				for i := range 100 {
					r := a.passwordGrant("guessed", "wrong-"+strconv.Itoa(i))
					if i < 10 {
						r.want(t, http.StatusBadRequest)
						continue
					}
					wantTooMany(t, r, window)
				}
			})
			t.Run("the right password is refused too", func(t *testing.T) {
				wantTooMany(t, a.passwordGrant("guessed", "pw-guessed"), window)
			})
			t.Run("another user of the same client and address logs in", func(t *testing.T) {
				a.passwordGrant("bystander", "pw-bystander").want(t, http.StatusOK)
			})
			t.Run("the client itself is not locked out", func(t *testing.T) {
				a.clientGrant("test-viewer", "test-viewer-secret").want(t, http.StatusOK)
			})
			t.Run("after the window the user logs in", func(t *testing.T) {
				clock.Advance(window)
				a.passwordGrant("guessed", "pw-guessed").want(t, http.StatusOK)
			})

			t.Run("ten wrong client secrets", func(t *testing.T) {
				for range 10 {
					a.clientGrant("test-manager", "wrong").want(t, http.StatusUnauthorized)
				}
				wantTooMany(t, a.clientGrant("test-manager", "test-manager-secret"), window)
			})
			t.Run("other clients from the same address are let in", func(t *testing.T) {
				a.clientGrant("test-storefront", "test-storefront-secret").want(t, http.StatusOK)
				a.clientGrant("test-admin", "test-admin-secret").want(t, http.StatusOK)
			})
			t.Run("after the window the client is let in", func(t *testing.T) {
				clock.Advance(window)
				a.clientGrant("test-manager", "test-manager-secret").want(t, http.StatusOK)
			})
		})
	}
}

// TestTokenFailuresSharedByProcesses: two servers on one PostgreSQL
// database, as two processes behind a balancer, share the counts, so
// alternating between them gives a guesser no more attempts than one. A
// SQLite database has one process, whose counts are in its memory, so the
// test runs on PostgreSQL only.
func TestTokenFailuresSharedByProcesses(t *testing.T) {
	const window = 60 * time.Second
	for _, dialect := range storagetest.Dialects() {
		if dialect == "sqlite" {
			continue
		}
		t.Run(dialect, func(t *testing.T) {
			one, two := storagetest.OpenTwo(t, dialect)
			clock := newTestClock()
			adjust := func(c *server.Config) { c.Auth.Now = clock.Now }
			servers := []*api{newAPIWith(t, one, adjust), startAPI(t, two, func(c *server.Config) { adjust(c); c.Jobs.NoWorkers = true })}
			addPasswordUser(t, one, "guessed")

			for i := range 10 {
				servers[i%2].passwordGrant("guessed", "wrong").want(t, http.StatusBadRequest)
			}
			for _, a := range servers {
				wantTooMany(t, a.passwordGrant("guessed", "pw-guessed"), window)
			}
			for i := range 10 {
				servers[i%2].clientGrant("test-manager", "wrong").want(t, http.StatusUnauthorized)
			}
			for _, a := range servers {
				wantTooMany(t, a.clientGrant("test-manager", "test-manager-secret"), window)
			}
			clock.Advance(window)
			servers[1].passwordGrant("guessed", "pw-guessed").want(t, http.StatusOK)
			servers[0].clientGrant("test-manager", "test-manager-secret").want(t, http.StatusOK)
		})
	}
}
