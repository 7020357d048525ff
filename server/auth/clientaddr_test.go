package auth_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/entityapi/entityapi/server/auth"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestFailuresCountUnderTheConnectionAddress: the failure throttle counts a
// request under its connection's address, never one a forwarding header
// names (a client must not choose it), the same address however it is
// written. Three failures from one address block a fourth attempt from it.
func TestFailuresCountUnderTheConnectionAddress(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		b := setup(t, s, auth.Config{Demo: true, MaxFailures: 3, MaxGlobalFailures: 100, FailureWindow: time.Minute})
		tests := []struct {
			name     string
			remotes  [4]string // RemoteAddr of the three failures and the fourth attempt
			header   []map[string]string
			sameAddr bool // the fourth attempt is answered 429
		}{
			{name: "X-Forwarded-For is not read",
				remotes: [4]string{"203.0.113.9:1", "203.0.113.9:2", "203.0.113.9:3", "203.0.113.9:4"},
				header: []map[string]string{{"X-Forwarded-For": "10.0.0.1"}, {"X-Forwarded-For": "10.0.0.2"},
					{"X-Forwarded-For": "10.0.0.3"}, {"X-Forwarded-For": "10.0.0.4"}},
				sameAddr: true},
			{name: "X-Real-IP is not read",
				remotes:  [4]string{"203.0.113.10:1", "203.0.113.10:1", "203.0.113.10:1", "203.0.113.10:1"},
				header:   []map[string]string{{"X-Real-IP": "10.0.0.1"}, {"X-Real-IP": "10.0.0.2"}, {"X-Real-IP": "10.0.0.3"}, {"X-Real-IP": "10.0.0.4"}},
				sameAddr: true},
			{name: "one forwarded address from several connections is several addresses",
				remotes: [4]string{"198.51.100.1:1", "198.51.100.2:1", "198.51.100.3:1", "198.51.100.4:1"},
				header: []map[string]string{{"X-Forwarded-For": "10.0.0.1"}, {"X-Forwarded-For": "10.0.0.1"},
					{"X-Forwarded-For": "10.0.0.1"}, {"X-Forwarded-For": "10.0.0.1"}}},
			{name: "an IPv4-mapped IPv6 address is the IPv4 address",
				remotes:  [4]string{"[::ffff:192.0.2.50]:1", "[::ffff:192.0.2.50]:2", "192.0.2.50:3", "192.0.2.50:4"},
				sameAddr: true},
			{name: "IPv6 written in different ways",
				remotes:  [4]string{"[2001:DB8::1]:1", "[2001:db8:0:0::1]:1", "[2001:0db8::0001]:1", "[2001:db8::1]:2"},
				sameAddr: true},
		}
		for i, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				client := "addr-" + string(rune('a'+i))
				var a answer
				for j, remote := range tc.remotes {
					r := request{ctype: "form", remote: remote,
						params: []string{"grant_type", "client_credentials", "client_id", client, "client_secret", "wrong"}}
					if j < len(tc.header) {
						r.header = tc.header[j]
					}
					a = b.post(t, r)
					if j < 3 && a.status != http.StatusUnauthorized {
						t.Fatalf("failure %d from %s: %d %s", j+1, remote, a.status, a.raw)
					}
				}
				if got := a.status == http.StatusTooManyRequests; got != tc.sameAddr {
					t.Errorf("fourth attempt: %d %s; want 429: %v", a.status, a.raw, tc.sameAddr)
				}
			})
		}
	})
}
