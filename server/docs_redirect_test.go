package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestDocsRedirects: the application bases and their /api, the addresses a
// newcomer types first, lead to the docs pages (302), following the
// configured bases and the path of --public-url; they are no operations of
// the documents, so this test asserts them (docs/decisions.md §2). / is the
// page that links both (TestIndexPage), whatever the bases.
func TestDocsRedirects(t *testing.T) {
	t.Parallel()
	type redirect struct{ method, path, location string }
	for _, tt := range []struct {
		name   string
		adjust func(*server.Config)
		want   []redirect
		absent []string // paths that stay 404
	}{
		{"default bases", func(*server.Config) {}, []redirect{
			{http.MethodGet, "/api", "/api/doc"},
			{http.MethodGet, "/admin", "/admin/api/doc"},
			{http.MethodGet, "/admin/api", "/admin/api/doc"},
			{http.MethodHead, "/admin", "/admin/api/doc"},
		}, []string{"/bo", "/shop/api"}},
		{"other bases behind a proxy path", func(c *server.Config) {
			c.BackofficeBase, c.StorefrontBase, c.PublicURL = "/bo", "/shop", "https://api.example.com/prefix/"
		}, []redirect{
			{http.MethodGet, "/bo", "/prefix/bo/api/doc"},
			{http.MethodGet, "/bo/api", "/prefix/bo/api/doc"},
			{http.MethodGet, "/shop", "/prefix/shop/api/doc"},
			{http.MethodGet, "/shop/api", "/prefix/shop/api/doc"},
		}, []string{"/admin", "/admin/api", "/api"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			for _, dialect := range storagetest.Dialects() {
				t.Run(dialect, func(t *testing.T) {
					a := newAPIWith(t, storagetest.Open(t, dialect), tt.adjust)
					for _, r := range tt.want {
						res, body := fetchDocs(t, r.method, a.base+r.path, nil)
						if res.StatusCode != http.StatusFound || res.Header.Get("Location") != r.location {
							t.Errorf("%s %s: %d to %q, want 302 to %q", r.method, r.path, res.StatusCode, res.Header.Get("Location"), r.location)
						}
						if r.method == http.MethodHead && len(body) != 0 {
							t.Errorf("HEAD %s: a body of %d bytes", r.path, len(body))
						}
						// It leads to the page (through the proxy, the prefix is gone).
						if page, _ := fetchDocs(t, http.MethodGet, a.base+strings.TrimPrefix(r.location, "/prefix"), nil); page.StatusCode != 200 {
							t.Errorf("%s %s leads to %s: %d", r.method, r.path, r.location, page.StatusCode)
						}
					}
					// Only GET and HEAD lead there; a write is no request for a page.
					if res, _ := fetchDocs(t, http.MethodPost, a.base+tt.want[0].path, nil); res.StatusCode == http.StatusFound {
						t.Errorf("POST %s: 302", tt.want[0].path)
					}
					for _, path := range tt.absent {
						if res, _ := fetchDocs(t, http.MethodGet, a.base+path, nil); res.StatusCode != http.StatusNotFound {
							t.Errorf("GET %s: %d, want 404", path, res.StatusCode)
						}
					}
				})
			}
		})
	}
}
