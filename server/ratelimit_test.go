package server_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestRateLimit: at 0.001 requests per second with a burst of 2, a client's
// third request is refused (a token takes 1000 s to come back, so the count
// decides, not the clock), with Retry-After and an error document in the
// request's format; other clients keep their own buckets, and addresses that
// are not API routes are never limited.
func TestRateLimit(t *testing.T) {
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			a := newAPIWith(t, storagetest.Open(t, dialect), func(c *server.Config) {
				c.RateLimit = server.RateLimitConfig{PerSecond: 0.001, Burst: 2}
			})
			for _, tc := range []struct {
				name    string
				as      string // the principal whose token is sent
				path    string
				headers map[string]string
				title   string // where the refusal's title is in the error document
			}{
				{"back office, JSON:API", "admin", "/admin/api/countries/US", jsonAPI, "errors/0/title"},
				{"another back-office client, plain", "viewer", "/admin/api/countries", plain, "0/title"},
				{"storefront guest, by address", "admin", "/api/countries", guest, "errors/0/title"},
				{"storefront client", "storefront", "/api/countries/US", plain, "0/title"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					c := a.caller(tc.as)
					c.do(http.MethodGet, tc.path, tc.headers, "").want(t, 200)
					c.do(http.MethodHead, tc.path, tc.headers, "").want(t, 200)
					r := c.do(http.MethodGet, tc.path, tc.headers, "").want(t, 429)
					if s, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || s < 1 || s > 1000 {
						t.Errorf("Retry-After %q, want whole seconds in 1..1000", r.header.Get("Retry-After"))
					}
					if got := r.value(tc.title); got != "too many requests http exception" {
						t.Errorf("title %v in %s", got, r.body)
					}
					if tc.title == "errors/0/title" && (r.value("errors/0/status") != "429" || r.value("meta/requestId") != r.header.Get("X-Request-ID")) {
						t.Errorf("error document %s", r.body)
					}
				})
			}
			// Not API routes: documents, docs page, health, JWKS, token endpoint.
			for _, path := range []string{"/admin/api/openapi.json", "/api/doc", "/healthz", "/readyz", "/.well-known/jwks.json"} {
				for range 3 {
					a.do(http.MethodGet, path, map[string]string{"Authorization": ""}, "").want(t, 200)
				}
			}
			for range 3 {
				a.do(http.MethodPost, "/oauth2-token", map[string]string{"Authorization": "", "Content-Type": "application/json"},
					`{"grant_type":"client_credentials","client_id":"test-storefront","client_secret":"test-storefront-secret"}`).want(t, 200)
			}
		})
	}
}

// TestRateLimitUnset: without --rate-limit one client may send any number of
// requests (here many more than the bursts above).
func TestRateLimitUnset(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		for range 10 {
			a.do(http.MethodGet, "/admin/api/countries/US", jsonAPI, "").want(t, 200)
			a.do(http.MethodGet, "/api/countries/US", guest, "").want(t, 200)
		}
	})
}
