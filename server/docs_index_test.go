package server_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestIndexPage: GET / answers a small HTML page that links both
// applications' docs pages and documents, following the configured bases
// and the path of --public-url, and every address it names answers; HEAD
// answers the same without a body.
func TestIndexPage(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		adjust func(*server.Config)
		prefix string // what a proxy in front strips (the path of --public-url)
		links  []string
	}{
		{"default bases", func(*server.Config) {}, "", []string{
			"/admin/api/doc", "/admin/api/openapi.yaml", "/admin/api/openapi.json",
			"/api/doc", "/api/openapi.yaml", "/api/openapi.json"}},
		{"other bases behind a proxy path", func(c *server.Config) {
			c.BackofficeBase, c.StorefrontBase, c.PublicURL = "/bo", "/shop", "https://api.example.com/prefix/"
		}, "/prefix", []string{
			"/prefix/bo/api/doc", "/prefix/bo/api/openapi.yaml", "/prefix/bo/api/openapi.json",
			"/prefix/shop/api/doc", "/prefix/shop/api/openapi.yaml", "/prefix/shop/api/openapi.json"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, dialect := range storagetest.Dialects() {
				t.Run(dialect, func(t *testing.T) {
					a := startAPI(t, storagetest.Open(t, dialect), tt.adjust)
					res, body := fetchDocs(t, http.MethodGet, a.base+"/", nil)
					if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/html; charset=utf-8" {
						t.Fatalf("GET /: %d %q, want 200 text/html\n%s", res.StatusCode, res.Header.Get("Content-Type"), body)
					}
					page := string(body)
					for _, want := range []string{"entityapi back-office API", "entityapi storefront API"} {
						if !strings.Contains(page, want) {
							t.Errorf("the page does not name %q:\n%s", want, page)
						}
					}
					var named []string
					for _, m := range pageReference.FindAllStringSubmatch(page, -1) {
						named = append(named, m[1])
					}
					for _, link := range tt.links {
						if !slices.Contains(named, link) {
							t.Errorf("the page does not link %s; it names %q", link, named)
						}
					}
					// Every address it names answers (through the proxy, the prefix is gone).
					for _, ref := range named {
						got, _ := fetchDocs(t, http.MethodGet, a.base+strings.TrimPrefix(ref, tt.prefix), nil)
						if got.StatusCode != http.StatusOK {
							t.Errorf("GET %s (named by the page): %d", ref, got.StatusCode)
						}
					}
					if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || inlineScript.MatchString(page) {
						t.Errorf("CSP %q, or a script on the page", csp)
					}
					if res, body := fetchDocs(t, http.MethodHead, a.base+"/", nil); res.StatusCode != http.StatusOK || len(body) != 0 {
						t.Errorf("HEAD /: %d with %d bytes", res.StatusCode, len(body))
					}
				})
			}
		})
	}
}
