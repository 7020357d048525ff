package server

import (
	"bytes"
	_ "embed"
	"html/template"
	"net/http"

	"github.com/gin-gonic/gin"
)

// The index page, GET /: what a person who opens the server's address
// finds, a small page that links each application's docs page and documents
// (the storefront's alone, once, was all / led to). Like the docs pages it is
// no operation of the documents and makes no request to another host; its
// test is TestIndexPage.

//go:embed docs/index.html
var indexHTML string

var indexPage = template.Must(template.New("index.html").Parse(indexHTML))

// indexData fills docs/index.html.
type indexData struct {
	Stylesheet string // the docs pages' docs.css, same-origin
	Apps       []indexApp
}

// indexApp is one application on the index page: addresses as the browser
// sees them (application.browserPrefix).
type indexApp struct {
	Title, Docs, YAML, JSON string
}

// serveIndex registers GET / for the applications, in their order. The page
// depends on the configuration alone, so it is built once.
func serveIndex(g *gin.Engine, apps ...*application) {
	data := indexData{Stylesheet: apps[0].browserPrefix() + "/api/doc/docs.css?v=" + docAssets()["docs.css"].version}
	for _, a := range apps {
		p := a.browserPrefix()
		data.Apps = append(data.Apps, indexApp{Title: a.doc.Info.Title, Docs: p + "/api/doc",
			YAML: p + "/api/openapi.yaml", JSON: p + "/api/openapi.json"})
	}
	var buf bytes.Buffer
	if err := indexPage.Execute(&buf, data); err != nil {
		panic(err) // a defect of the template, met by every test that starts a server
	}
	body := buf.Bytes()
	const csp = "default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'"
	g.GET("/", func(c *gin.Context) {
		h := c.Writer.Header()
		h.Set("Cache-Control", "no-cache")
		h.Set("Content-Security-Policy", csp)
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("Referrer-Policy", "no-referrer")
		c.Data(http.StatusOK, "text/html; charset=utf-8", body)
	})
}
