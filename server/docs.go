package server

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html/template"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"sync"

	"github.com/gin-gonic/gin"
)

// The docs pages (<base>/api/doc, docs/decisions.md §3): Swagger UI over the application's
// public document, with every file it needs embedded in the binary, so the page
// makes no request to another host and works without internet. docs/swagger-ui/
// holds an unmodified copy of the pinned swagger-ui-dist files (`make docs-assets`
// copies them again from scripts/node_modules); docs.js starts Swagger UI.

//go:embed docs/page.html docs/docs.js docs/docs.css docs/swagger-ui
var docsFS embed.FS

// swaggerUIVersion is the swagger-ui-dist version copied into docs/swagger-ui
// (its VERSION file, written by `make docs-assets`).
var swaggerUIVersion = strings.TrimSpace(string(mustRead("docs/swagger-ui/VERSION")))

// docAssets are the files served under <base>/api/doc/: name in the address, file,
// media type. Text files are also sent gzip-compressed to clients that accept it.
var docAssets = sync.OnceValue(func() map[string]*docAsset {
	out := map[string]*docAsset{}
	for _, f := range []struct{ name, file, ctype string }{
		{"swagger-ui.css", "docs/swagger-ui/swagger-ui.css", "text/css; charset=utf-8"},
		{"swagger-ui-bundle.js", "docs/swagger-ui/swagger-ui-bundle.js", "text/javascript; charset=utf-8"},
		{"favicon-16x16.png", "docs/swagger-ui/favicon-16x16.png", "image/png"},
		{"favicon-32x32.png", "docs/swagger-ui/favicon-32x32.png", "image/png"},
		{"LICENSE", "docs/swagger-ui/LICENSE", "text/plain; charset=utf-8"},
		{"NOTICE", "docs/swagger-ui/NOTICE", "text/plain; charset=utf-8"},
		{"swagger-ui-bundle.js.LICENSE.txt", "docs/swagger-ui/swagger-ui-bundle.js.LICENSE.txt", "text/plain; charset=utf-8"},
		{"docs.js", "docs/docs.js", "text/javascript; charset=utf-8"},
		{"docs.css", "docs/docs.css", "text/css; charset=utf-8"},
	} {
		body := mustRead(f.file)
		sum := sha256.Sum256(body)
		a := &docAsset{ctype: f.ctype, body: body, version: hex.EncodeToString(sum[:6])}
		a.etag = `"` + a.version + `"`
		if !strings.HasPrefix(f.ctype, "image/") {
			a.gzipped = sync.OnceValue(func() []byte { return gzipped(body) })
		}
		out[f.name] = a
	}
	return out
})

var docsPage = template.Must(template.New("page.html").ParseFS(docsFS, "docs/page.html"))

func mustRead(name string) []byte {
	b, err := docsFS.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return b
}

// docAsset is one embedded file of the docs pages.
type docAsset struct {
	ctype   string
	body    []byte
	version string        // a hash of body: the ?v= of the page's references
	etag    string        // quoted version
	gzipped func() []byte // computed once; nil for files not worth compressing
}

// serve answers GET (and HEAD) of an asset. A reference carrying the current
// ?v= is cached for a year (the page names a new v when the file changes);
// any other is revalidated with its ETag.
func (d *docAsset) serve(c *gin.Context) {
	h := c.Writer.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	if c.Query("v") == d.version {
		h.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		h.Set("Cache-Control", "public, no-cache")
	}
	body, etag := d.body, d.etag
	if d.gzipped != nil {
		h.Set("Vary", "Accept-Encoding")
		if acceptsGzip(c.GetHeader("Accept-Encoding")) {
			body, etag = d.gzipped(), `"`+d.version+`-gz"`
			h.Set("Content-Encoding", "gzip")
		}
	}
	h.Set("ETag", etag)
	if etagMatches(c.GetHeader("If-None-Match"), etag) {
		h.Del("Content-Encoding")
		c.Status(http.StatusNotModified)
		return
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	c.Data(http.StatusOK, d.ctype, body)
}

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = w.Write(b)
	_ = w.Close()
	return buf.Bytes()
}

// acceptsGzip tells whether an Accept-Encoding value allows gzip (q above 0).
func acceptsGzip(header string) bool {
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.ToLower(strings.TrimSpace(name))
		if name != "gzip" && name != "x-gzip" {
			continue
		}
		q := 1.0
		for _, p := range strings.Split(params, ";") {
			if k, v, ok := strings.Cut(strings.TrimSpace(p), "="); ok && strings.EqualFold(k, "q") {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					q = f
				}
			}
		}
		return q > 0
	}
	return false
}

// etagMatches applies If-None-Match (weak comparison).
func etagMatches(header, etag string) bool {
	for _, part := range strings.Split(header, ",") {
		part = strings.TrimPrefix(strings.TrimSpace(part), "W/")
		if part == "*" || part == etag {
			return true
		}
	}
	return false
}

// docsPageData fills docs/page.html.
type docsPageData struct {
	Title       string
	Application string // back office, storefront
	Prefix      string // path of --public-url and the base: where this application's files are, seen from the browser
	TokenURL    string // the token endpoint, absolute
	Client      string // the demo client of the application
	Demo        bool   // the server accepts the demo clients (--demo)
	Guests      string // storefront: the resources readable without a token
	SwaggerUI   string // swagger-ui-dist version
	assets      map[string]*docAsset
}

// Asset is the same-origin address of an asset, with its version for caching.
func (d docsPageData) Asset(name string) string {
	a, ok := d.assets[name]
	if !ok {
		panic("docs page: no asset " + name)
	}
	return d.Prefix + "/api/doc/" + name + "?v=" + a.version
}

// Document is the same-origin address of the application's public JSON document.
func (d docsPageData) Document() string { return d.Prefix + "/api/openapi.json" }

// serveDocs registers <base>/api/doc and its assets. The page names only paths on
// its own origin: with --public-url, its path is the prefix a proxy strips.
func (a *application) serveDocs(g *gin.Engine) {
	base := a.base
	prefix := a.browserPrefix()
	connect := "'self'"
	if a.cfg.PublicURL != "" {
		if u, err := url.Parse(a.cfg.PublicURL); err == nil && u.Scheme != "" && u.Host != "" {
			connect += " " + u.Scheme + "://" + u.Host // "Try it out" goes to the document's servers[0]
		}
	}
	data := docsPageData{
		Title:       a.doc.Info.Title,
		Application: map[string]string{"backoffice": "back office", "storefront": "storefront"}[a.audience],
		Prefix:      prefix,
		Client:      "demo-" + a.audience,
		Demo:        a.cfg.Auth.Demo,
		Guests:      strings.Join(a.guests(), ", "),
		SwaggerUI:   swaggerUIVersion,
		assets:      docAssets(),
	}
	// No inline script; inline styles are Swagger UI's (React style attributes);
	// data: images are its icons.
	csp := "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
		"font-src 'self'; connect-src " + connect + "; base-uri 'none'; form-action 'none'; frame-ancestors 'self'"
	page := func(c *gin.Context) {
		d := data
		d.TokenURL = a.publicBase(c.Request) + base + "/oauth2-token"
		var buf bytes.Buffer
		if err := docsPage.Execute(&buf, d); err != nil {
			panic(err)
		}
		h := c.Writer.Header()
		h.Set("Cache-Control", "no-cache")
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		c.Data(http.StatusOK, "text/html; charset=utf-8", buf.Bytes())
	}
	g.GET(base+"/api/doc", page)
	// The application's base and its /api (/admin, /admin/api; with the
	// storefront's empty base, /api) are what a person types first: they
	// lead to the docs page. An empty base is / itself, the page that links
	// both applications' docs (docs_index.go). Not operations of the
	// documents, these answers have their own test (TestDocsRedirects).
	toPage := prefix + "/api/doc"
	for _, p := range []string{base, base + "/api"} {
		if p != "" {
			g.GET(p, func(c *gin.Context) { c.Redirect(http.StatusFound, toPage) })
		}
	}
	for name, asset := range data.assets {
		g.GET(path.Join(base, "/api/doc", name), asset.serve)
	}
}

// browserPrefix is the path of the application's base as a browser sees it:
// behind --public-url, its path comes first (the prefix a proxy strips).
func (a *application) browserPrefix() string {
	if a.cfg.PublicURL != "" {
		if u, err := url.Parse(a.cfg.PublicURL); err == nil {
			return strings.TrimSuffix(u.Path, "/") + a.base
		}
	}
	return a.base
}

// guests are the types the application lets read without a token (the
// storefront's whitelist; none on the back office).
func (a *application) guests() []string {
	if a.storefront == nil {
		return nil
	}
	return a.storefront.Guests()
}
