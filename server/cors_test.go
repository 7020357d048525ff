package server_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// The CORS answers the tests expect (issue 9).
const (
	shopOrigin   = "https://shop.example.com"
	allowHeaders = "Authorization, Content-Type, Accept, X-Include, X-Mode, X-Localization-ID, X-Currency, X-Request-ID, If-Match, If-None-Match"
	exposed      = "Location, Content-Location, Link, X-Include-Total-Count, X-Include-Deleted-Count, X-Request-ID, Retry-After, X-Currency, Content-Language, ETag"
)

// corsCase is one request and every Access-Control-* header its answer must
// carry: a header not named must be absent.
type corsCase struct {
	name    string
	method  string
	path    string
	headers map[string]string
	body    string
	status  int
	cors    map[string]string
}

// preflightFrom is a browser's preflight of a GET with a token.
func preflightFrom(origin string) map[string]string {
	return map[string]string{"Authorization": "", "Origin": origin,
		"Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "authorization"}
}

// withOrigin is headers plus an Origin.
func withOrigin(headers map[string]string, origin string) map[string]string {
	return withHeaders(headers, "Origin", origin)
}

// preflightOK is what a preflight of an allowed origin answers.
func preflightOK(origin, methods, maxAge string) map[string]string {
	return map[string]string{"Access-Control-Allow-Origin": origin, "Access-Control-Allow-Methods": methods,
		"Access-Control-Allow-Headers": allowHeaders, "Access-Control-Max-Age": maxAge}
}

// actualOK is what any other answer to an allowed origin carries.
func actualOK(origin string) map[string]string {
	return map[string]string{"Access-Control-Allow-Origin": origin, "Access-Control-Expose-Headers": exposed}
}

// checkCORS sends each case and compares the Access-Control-* headers of the
// answer with the wanted ones, both ways.
func checkCORS(t *testing.T, a *api, cases []corsCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := a.do(tc.method, tc.path, tc.headers, tc.body).want(t, tc.status)
			got := map[string]string{}
			for k := range r.header {
				if strings.HasPrefix(k, "Access-Control-") {
					got[k] = r.header.Get(k)
				}
			}
			for k, v := range tc.cors {
				if got[k] != v {
					t.Errorf("%s = %q, want %q", k, got[k], v)
				}
			}
			for k, v := range got {
				if _, ok := tc.cors[k]; !ok {
					t.Errorf("unexpected %s: %q", k, v)
				}
			}
			if len(tc.cors) > 0 && !slices.Contains(r.header.Values("Vary"), "Origin") {
				t.Errorf("Vary = %q, want Origin among them", r.header.Values("Vary"))
			}
			if r.header.Get("Access-Control-Allow-Credentials") != "" {
				t.Error("credentials are never allowed: tokens are bearer tokens")
			}
			if tc.method == http.MethodOptions && r.header.Get("Allow") == "" && tc.status < 300 {
				t.Error("OPTIONS without Allow")
			}
		})
	}
}

// TestCORS: with an origin configured, its preflights are answered without a
// token on API routes and token endpoints, and every other answer to it, errors
// included, lets its scripts read the documented headers; another origin and
// the docs page get no CORS headers, and plain OPTIONS is unchanged.
func TestCORS(t *testing.T) {
	t.Parallel()
	token := `{"grant_type":"client_credentials","client_id":"test-storefront","client_secret":"test-storefront-secret"}`
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			a := newAPIWith(t, storagetest.Open(t, dialect), func(c *server.Config) {
				c.CORS.Origins = []string{"https://admin.example.com", shopOrigin + "/"}
			})
			checkCORS(t, a, []corsCase{
				{"preflight of a collection", http.MethodOptions, "/admin/api/accounts", preflightFrom(shopOrigin), "", 204,
					preflightOK(shopOrigin, "OPTIONS, GET, HEAD, PATCH, POST, DELETE", "600")},
				{"preflight of an item", http.MethodOptions, "/admin/api/countries/US", preflightFrom(shopOrigin), "", 204,
					preflightOK(shopOrigin, "OPTIONS, GET, HEAD", "600")},
				{"preflight of a storefront route", http.MethodOptions, "/api/countries", preflightFrom(shopOrigin), "", 204,
					preflightOK(shopOrigin, "OPTIONS, GET, HEAD", "600")},
				{"preflight of the back-office token endpoint", http.MethodOptions, "/admin/oauth2-token", preflightFrom(shopOrigin), "", 204,
					preflightOK(shopOrigin, "OPTIONS, POST", "600")},
				{"preflight of the shared token endpoint", http.MethodOptions, "/oauth2-token", preflightFrom(shopOrigin), "", 204,
					preflightOK(shopOrigin, "OPTIONS, POST", "600")},
				{"preflight of another origin is a plain OPTIONS", http.MethodOptions, "/admin/api/accounts", preflightFrom("https://evil.example.com"), "", 200, nil},
				{"plain OPTIONS", http.MethodOptions, "/admin/api/accounts", map[string]string{"Authorization": ""}, "", 200, nil},
				{"OPTIONS with an origin but no requested method", http.MethodOptions, "/admin/api/accounts",
					map[string]string{"Authorization": "", "Origin": shopOrigin}, "", 200, actualOK(shopOrigin)},
				{"read", http.MethodGet, "/admin/api/countries/US", withOrigin(jsonAPI, shopOrigin), "", 200, actualOK(shopOrigin)},
				{"guest read, plain", http.MethodGet, "/api/countries/US", withOrigin(withHeaders(plain, "Authorization", ""), shopOrigin), "", 200, actualOK(shopOrigin)},
				{"not found", http.MethodGet, "/admin/api/accounts/999999", withOrigin(jsonAPI, shopOrigin), "", 404, actualOK(shopOrigin)},
				{"no token", http.MethodGet, "/admin/api/accounts", withOrigin(map[string]string{"Authorization": ""}, shopOrigin), "", 401, actualOK(shopOrigin)},
				{"method not allowed", http.MethodPost, "/admin/api/countries", withOrigin(jsonAPI, shopOrigin), `{"data":{"type":"countries"}}`, 405, actualOK(shopOrigin)},
				{"token", http.MethodPost, "/oauth2-token", map[string]string{"Authorization": "", "Origin": shopOrigin, "Content-Type": "application/json"}, token, 200, actualOK(shopOrigin)},
				{"refused token", http.MethodPost, "/admin/oauth2-token", map[string]string{"Authorization": "", "Origin": shopOrigin, "Content-Type": "application/json"}, `{"grant_type":"client_credentials"}`, 400, actualOK(shopOrigin)},
				{"another origin", http.MethodGet, "/admin/api/countries/US", withOrigin(jsonAPI, "https://evil.example.com"), "", 200, nil},
				{"an origin differing in scheme", http.MethodGet, "/admin/api/countries/US", withOrigin(jsonAPI, "http://shop.example.com"), "", 200, nil},
				{"no origin", http.MethodGet, "/admin/api/countries/US", jsonAPI, "", 200, nil},
				{"docs page", http.MethodGet, "/admin/api/doc", map[string]string{"Origin": shopOrigin}, "", 200, nil},
				{"health", http.MethodGet, "/healthz", map[string]string{"Origin": shopOrigin}, "", 200, nil},
			})
		})
	}
}

// TestCORSAnyOrigin: "*" answers every origin with "*" (never with
// credentials), and the preflight's max-age follows the setting.
func TestCORSAnyOrigin(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			a := newAPIWith(t, storagetest.Open(t, dialect), func(c *server.Config) {
				c.CORS = server.CORSConfig{Origins: []string{"*"}, MaxAge: 30 * time.Second}
			})
			checkCORS(t, a, []corsCase{
				{"preflight", http.MethodOptions, "/api/countries", preflightFrom("https://anywhere.example"), "", 204,
					preflightOK("*", "OPTIONS, GET, HEAD", "30")},
				{"guest read", http.MethodGet, "/api/countries/US", withOrigin(guest, "https://anywhere.example"), "", 200, actualOK("*")},
			})
		})
	}
}

// TestCORSUnconfigured: without a configured origin nothing changes: no CORS
// header, and a preflight is a plain OPTIONS.
func TestCORSUnconfigured(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		checkCORS(t, a, []corsCase{
			{"preflight", http.MethodOptions, "/admin/api/accounts", preflightFrom(shopOrigin), "", 200, nil},
			{"read", http.MethodGet, "/admin/api/countries/US", withOrigin(jsonAPI, shopOrigin), "", 200, nil},
			{"error", http.MethodGet, "/admin/api/accounts/999999", withOrigin(jsonAPI, shopOrigin), "", 404, nil},
		})
		r := a.do(http.MethodGet, "/admin/api/countries/US", withOrigin(jsonAPI, shopOrigin), "")
		if v := r.header.Values("Vary"); slices.Contains(v, "Origin") {
			t.Errorf("Vary = %q without CORS", v)
		}
	})
}
