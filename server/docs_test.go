package server_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// docsPages are the docs pages of the default configuration: page, document.
var docsPages = []struct{ app, page, document string }{
	{"backoffice", "/admin/api/doc", "/admin/api/openapi.json"},
	{"storefront", "/api/doc", "/api/openapi.json"},
}

// docsAssetTypes are the files every docs page serves under <page>/, with their media types.
var docsAssetTypes = map[string]string{
	"swagger-ui.css":                   "text/css; charset=utf-8",
	"swagger-ui-bundle.js":             "text/javascript; charset=utf-8",
	"docs.js":                          "text/javascript; charset=utf-8",
	"docs.css":                         "text/css; charset=utf-8",
	"favicon-16x16.png":                "image/png",
	"favicon-32x32.png":                "image/png",
	"LICENSE":                          "text/plain; charset=utf-8",
	"NOTICE":                           "text/plain; charset=utf-8",
	"swagger-ui-bundle.js.LICENSE.txt": "text/plain; charset=utf-8",
}

// fetchDocs sends a request without a token (the docs pages need none).
func fetchDocs(t *testing.T, method, address string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, address, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	// The transport must not add Accept-Encoding and decode by itself.
	res, err := (&http.Transport{DisableCompression: true}).RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, body
}

// pageReference finds the addresses an HTML page names (src, href, data-url...).
var pageReference = regexp.MustCompile(`(?i)\s(?:src|href|data-url|action|srcset|poster)\s*=\s*"([^"]*)"`)

// inlineScript finds a script element without src, or an event handler attribute.
var inlineScript = regexp.MustCompile(`(?i)<script\s*>|\son[a-z]+\s*=`)

func TestDocsPages(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		for _, p := range docsPages {
			t.Run(p.app, func(t *testing.T) {
				res, body := fetchDocs(t, http.MethodGet, a.base+p.page, nil)
				if res.StatusCode != 200 {
					t.Fatalf("GET %s: %d\n%s", p.page, res.StatusCode, body)
				}
				for k, want := range map[string]string{"Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"} {
					if got := res.Header.Get(k); got != want {
						t.Errorf("%s: %s = %q, want %q", p.page, k, got, want)
					}
				}
				csp := res.Header.Get("Content-Security-Policy")
				for _, want := range []string{"default-src 'none'", "script-src 'self';", "connect-src 'self';"} {
					if !strings.Contains(csp, want) {
						t.Errorf("%s: Content-Security-Policy %q lacks %q", p.page, csp, want)
					}
				}
				html := string(body)
				for _, want := range []string{`data-url="` + p.document + `"`, "/oauth2-token", "demo-" + p.app + "-secret", "Authorize"} {
					if !strings.Contains(html, want) {
						t.Errorf("%s: the page does not contain %q", p.page, want)
					}
				}
				if guests := "Guests need none to read countries, currencies, localizations, regions."; strings.Contains(html, guests) != (p.app == "storefront") {
					t.Errorf("%s: the sentence on guests is wrong or missing", p.page)
				}
				if inlineScript.MatchString(html) {
					t.Errorf("%s: inline script (the Content-Security-Policy forbids it)", p.page)
				}
				// Every reference is a path on this origin, and answers 200.
				refs := pageReference.FindAllStringSubmatch(html, -1)
				if len(refs) < 6 {
					t.Fatalf("%s: only %d references", p.page, len(refs))
				}
				seen := map[string]bool{}
				for _, m := range refs {
					ref := strings.ReplaceAll(m[1], "&amp;", "&")
					u, err := url.Parse(ref)
					if err != nil || u.Scheme != "" || u.Host != "" || !strings.HasPrefix(u.Path, "/") {
						t.Errorf("%s: %q is not a path on the same origin", p.page, ref)
						continue
					}
					res, body := fetchDocs(t, http.MethodGet, a.base+ref, nil)
					if res.StatusCode != 200 || len(body) == 0 {
						t.Errorf("%s: GET %s: %d", p.page, ref, res.StatusCode)
					}
					seen[strings.TrimPrefix(u.Path, p.page+"/")] = true
				}
				for _, name := range []string{"swagger-ui.css", "swagger-ui-bundle.js", "docs.js", "docs.css", "favicon-32x32.png"} {
					if !seen[name] {
						t.Errorf("%s: the page does not load %s", p.page, name)
					}
				}
				// The document the page names is the served one, with a bearerAuth scheme.
				_, doc := fetchDocs(t, http.MethodGet, a.base+p.document, nil)
				var d struct {
					Components struct {
						SecuritySchemes map[string]struct{ Scheme string } `json:"securitySchemes"`
					} `json:"components"`
				}
				if err := json.Unmarshal(doc, &d); err != nil || d.Components.SecuritySchemes["bearerAuth"].Scheme != "bearer" {
					t.Errorf("%s: no bearerAuth scheme (%v)", p.document, err)
				}
				// HEAD answers like GET, without a body.
				head, hbody := fetchDocs(t, http.MethodHead, a.base+p.page, nil)
				if head.StatusCode != 200 || len(hbody) != 0 || head.Header.Get("Content-Type") != "text/html; charset=utf-8" {
					t.Errorf("HEAD %s: %d %q %d bytes", p.page, head.StatusCode, head.Header.Get("Content-Type"), len(hbody))
				}
			})
		}
	})
}

func TestDocsAssets(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		for _, p := range docsPages {
			for name, ctype := range docsAssetTypes {
				address := a.base + p.page + "/" + name
				res, body := fetchDocs(t, http.MethodGet, address, nil)
				if res.StatusCode != 200 || len(body) == 0 {
					t.Fatalf("GET %s: %d", address, res.StatusCode)
				}
				if got := res.Header.Get("Content-Type"); got != ctype {
					t.Errorf("%s: Content-Type %q, want %q", address, got, ctype)
				}
				if got := res.Header.Get("Cache-Control"); got != "public, no-cache" {
					t.Errorf("%s without ?v: Cache-Control %q", address, got)
				}
				if res.Header.Get("X-Content-Type-Options") != "nosniff" || res.Header.Get("Content-Encoding") != "" {
					t.Errorf("%s: headers %v", address, res.Header)
				}
				etag := res.Header.Get("ETag")
				if len(etag) < 3 {
					t.Fatalf("%s: ETag %q", address, etag)
				}
				// The page's ?v= (the ETag's value) makes it immutable.
				versioned := address + "?v=" + strings.Trim(etag, `"`)
				res, _ = fetchDocs(t, http.MethodGet, versioned, nil)
				if got := res.Header.Get("Cache-Control"); got != "public, max-age=31536000, immutable" {
					t.Errorf("%s: Cache-Control %q", versioned, got)
				}
				res, b := fetchDocs(t, http.MethodGet, address, map[string]string{"If-None-Match": etag})
				if res.StatusCode != http.StatusNotModified || len(b) != 0 {
					t.Errorf("%s with If-None-Match: %d, %d bytes", address, res.StatusCode, len(b))
				}
				res, b = fetchDocs(t, http.MethodHead, address, nil)
				if res.StatusCode != 200 || len(b) != 0 || res.Header.Get("Content-Type") != ctype || res.Header.Get("Content-Length") != strconv.Itoa(len(body)) {
					t.Errorf("HEAD %s: %d %v", address, res.StatusCode, res.Header)
				}
				if strings.HasPrefix(ctype, "image/") {
					continue
				}
				res, b = fetchDocs(t, http.MethodGet, address, map[string]string{"Accept-Encoding": "br, gzip;q=0.8"})
				if res.Header.Get("Content-Encoding") != "gzip" || !strings.Contains(res.Header.Get("Vary"), "Accept-Encoding") {
					t.Fatalf("%s: gzip not used: %v", address, res.Header)
				}
				zr, err := gzip.NewReader(bytes.NewReader(b))
				if err != nil {
					t.Fatal(err)
				}
				plainBody, err := io.ReadAll(zr)
				if err != nil || !bytes.Equal(plainBody, body) {
					t.Errorf("%s: the gzip body differs (%v)", address, err)
				}
				if res.Header.Get("ETag") == etag {
					t.Errorf("%s: the gzip body has the ETag of the plain one", address)
				}
				res, _ = fetchDocs(t, http.MethodGet, address, map[string]string{"Accept-Encoding": "gzip;q=0"})
				if res.Header.Get("Content-Encoding") != "" {
					t.Errorf("%s: gzip sent although q=0", address)
				}
			}
			for _, missing := range []string{"/nope.js", "/swagger-ui.js", "/README.md", "/VERSION"} {
				res, _ := fetchDocs(t, http.MethodGet, a.base+p.page+missing, nil)
				if res.StatusCode != 404 {
					t.Errorf("GET %s%s: %d", p.page, missing, res.StatusCode)
				}
			}
		}
	})
}

// TestDocsPagesOtherBases: the pages follow the configured bases, and with
// --public-url the page names paths under its path (the prefix a proxy strips)
// and "Try it out" may reach its origin.
func TestDocsPagesOtherBases(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			a := newAPIWith(t, storagetest.Open(t, dialect), func(c *server.Config) {
				c.BackofficeBase, c.StorefrontBase, c.PublicURL = "/bo", "/shop", "https://api.example.com/prefix/"
				c.Auth.Demo = true
			})
			for _, p := range []struct{ page, prefix, client string }{{"/bo/api/doc", "/prefix/bo", "demo-backoffice"}, {"/shop/api/doc", "/prefix/shop", "demo-storefront"}} {
				res, body := fetchDocs(t, http.MethodGet, a.base+p.page, nil)
				if res.StatusCode != 200 {
					t.Fatalf("GET %s: %d", p.page, res.StatusCode)
				}
				html := string(body)
				if !strings.Contains(html, `data-url="`+p.prefix+`/api/openapi.json"`) {
					t.Errorf("%s: %s", p.page, html)
				}
				// In demo mode, the token command is ready to paste.
				if want := "-d client_id=" + p.client + " -d client_secret=" + p.client + "-secret https://api.example.com" + p.prefix + "/oauth2-token"; !strings.Contains(html, want) {
					t.Errorf("%s: no %q", p.page, want)
				}
				for _, m := range pageReference.FindAllStringSubmatch(html, -1) {
					if !strings.HasPrefix(m[1], p.prefix+"/api/") {
						t.Errorf("%s: reference %q outside %s/api/", p.page, m[1], p.prefix)
						continue
					}
					// Through the proxy, the prefix is gone.
					local := strings.TrimPrefix(strings.ReplaceAll(m[1], "&amp;", "&"), "/prefix")
					if res, _ := fetchDocs(t, http.MethodGet, a.base+local, nil); res.StatusCode != 200 {
						t.Errorf("%s: GET %s: %d", p.page, local, res.StatusCode)
					}
				}
				if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "connect-src 'self' https://api.example.com;") {
					t.Errorf("%s: Content-Security-Policy %q", p.page, csp)
				}
			}
			for _, old := range []string{"/admin/api/doc", "/api/doc"} {
				if res, _ := fetchDocs(t, http.MethodGet, a.base+old, nil); res.StatusCode != 404 {
					t.Errorf("GET %s with other bases: %d", old, res.StatusCode)
				}
			}
		})
	}
}

// TestDocsAssetsPinned: the embedded Swagger UI is the version scripts/package.json
// pins, and (when scripts/node_modules holds a complete install of that version)
// byte for byte its files. A missing, partial or other-version install is not a
// difference of the copies: it is reported with the command that fixes it, and
// fails only under CI=true, where `npm ci` has run.
func TestDocsAssetsPinned(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("../scripts/package.json")
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		DevDependencies map[string]string `json:"devDependencies"`
	}
	if err := json.Unmarshal(raw, &pkg); err != nil {
		t.Fatal(err)
	}
	pinned := pkg.DevDependencies["swagger-ui-dist"]
	version, err := os.ReadFile("docs/swagger-ui/VERSION")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(version)); got != pinned {
		t.Fatalf("server/docs/swagger-ui holds Swagger UI %s, scripts/package.json pins %s: run `make docs-assets`", got, pinned)
	}
	unusable, diffs := compareDocsAssets("../scripts/node_modules/swagger-ui-dist/", "docs/swagger-ui/", pinned)
	if unusable != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s (CI runs `npm ci` in scripts/ first)", unusable)
		}
		t.Logf("%s: the copies are not compared", unusable)
	}
	for _, d := range diffs {
		t.Errorf("%s: run `make docs-assets`", d)
	}
}

// compareDocsAssets compares the Swagger UI files embedded in copies with those
// of the swagger-ui-dist install in dist. unusable says why the install cannot
// be compared (missing, partial, another version than pinned) and how to get a
// good one; diffs names the files that differ.
func compareDocsAssets(dist, copies, pinned string) (unusable string, diffs []string) {
	const fix = "run `cd scripts && npm ci`"
	raw, err := os.ReadFile(dist + "package.json")
	if err != nil {
		return fmt.Sprintf("no swagger-ui-dist in %s (%s)", dist, fix), nil
	}
	var pkg struct{ Version string }
	if err := json.Unmarshal(raw, &pkg); err != nil {
		return fmt.Sprintf("%spackage.json is unreadable, a partial install (%s)", dist, fix), nil
	}
	if pkg.Version != pinned {
		return fmt.Sprintf("%s holds swagger-ui-dist %s, scripts/package.json pins %s (%s)", dist, pkg.Version, pinned, fix), nil
	}
	names := slices.Sorted(maps.Keys(docsAssetTypes))
	for _, name := range names {
		if name == "docs.js" || name == "docs.css" {
			continue
		}
		if _, err := os.Stat(dist + name); err != nil {
			return fmt.Sprintf("%s lacks %s, a partial install (%s)", dist, name, fix), nil
		}
	}
	for _, name := range names {
		if name == "docs.js" || name == "docs.css" {
			continue
		}
		want, err := os.ReadFile(dist + name)
		got, gerr := os.ReadFile(copies + name)
		if err != nil || gerr != nil || !bytes.Equal(got, want) {
			diffs = append(diffs, fmt.Sprintf("%s%s differs from %s%s", copies, name, dist, name))
		}
	}
	return "", diffs
}

// TestDocsAssetsCompare: the comparison of TestDocsAssetsPinned tells an
// unusable install from copies that differ, and still finds a difference.
func TestDocsAssetsCompare(t *testing.T) {
	t.Parallel()
	copies := "docs/swagger-ui/"
	install := func(t *testing.T, version string, skip string, change string) string {
		dist := t.TempDir() + "/"
		if version != "" {
			if err := os.WriteFile(dist+"package.json", []byte(`{"version":"`+version+`"}`), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		for name := range docsAssetTypes {
			if name == "docs.js" || name == "docs.css" || name == skip {
				continue
			}
			b, err := os.ReadFile(copies + name)
			if err != nil {
				t.Fatal(err)
			}
			if name == change {
				b = append(b, '\n')
			}
			if err := os.WriteFile(dist+name, b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return dist
	}
	for _, tt := range []struct {
		name, version, skip, change string
		unusable, diff              string
	}{
		{name: "no install", unusable: "no swagger-ui-dist"},
		{name: "partial install", version: "5.35.0", skip: "swagger-ui-bundle.js", unusable: "lacks swagger-ui-bundle.js, a partial install"},
		{name: "another version", version: "5.0.0", unusable: "holds swagger-ui-dist 5.0.0, scripts/package.json pins 5.35.0"},
		{name: "the same files", version: "5.35.0"},
		{name: "a file differs", version: "5.35.0", change: "swagger-ui.css", diff: "docs/swagger-ui/swagger-ui.css differs"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dist := t.TempDir() + "/missing/"
			if tt.version != "" {
				dist = install(t, tt.version, tt.skip, tt.change)
			}
			unusable, diffs := compareDocsAssets(dist, copies, "5.35.0")
			if tt.unusable == "" && unusable != "" || !strings.Contains(unusable, tt.unusable) {
				t.Errorf("unusable %q, want %q", unusable, tt.unusable)
			}
			if unusable != "" && !strings.Contains(unusable, "cd scripts && npm ci") {
				t.Errorf("unusable %q does not say what to run", unusable)
			}
			if got := strings.Join(diffs, "; "); tt.diff == "" && got != "" || !strings.Contains(got, tt.diff) {
				t.Errorf("diffs %q, want %q", got, tt.diff)
			}
		})
	}
}
