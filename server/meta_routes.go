package server

import (
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
)

// serveDocument publishes the application's public document as YAML and JSON, with
// servers[0] naming the configured base so "try it" tools reach this server, and
// its docs page (<base>/api/doc, docs.go).
func (a *application) serveDocument(g *gin.Engine) {
	base := a.base
	doc := *a.doc
	servers := *a.doc.Servers[0]
	servers.URL = strings.TrimSuffix(a.cfg.PublicURL, "/") + base
	if servers.URL == "" {
		servers.URL = "/"
	}
	doc.Servers = append(doc.Servers[:0:0], &servers)
	asJSON, err := doc.MarshalJSON()
	if err != nil {
		panic(err)
	}
	a.docJSON = asJSON
	asYAML := a.raw
	if servers.URL != a.doc.Servers[0].URL {
		if y, err := doc.MarshalYAML(); err == nil {
			if b, err := marshalYAML(y); err == nil {
				asYAML = b
			}
		}
	}
	g.GET(base+"/api/openapi.json", func(c *gin.Context) { c.Data(http.StatusOK, "application/json", asJSON) })
	g.GET(base+"/api/openapi.yaml", func(c *gin.Context) { c.Data(http.StatusOK, "application/yaml", asYAML) })
	a.serveDocs(g)
}

// healthz says the process is alive.
func (s *Server) healthz(c *gin.Context) {
	c.String(http.StatusOK, "ok\n")
}

// readyz says the database answers and every migration is applied.
func (s *Server) readyz(c *gin.Context) {
	if err := s.store.Ping(c.Request.Context()); err != nil {
		c.String(http.StatusServiceUnavailable, "database unavailable\n")
		return
	}
	if n, err := s.store.Pending(c.Request.Context()); err != nil || n > 0 {
		c.String(http.StatusServiceUnavailable, "migrations pending\n")
		return
	}
	c.String(http.StatusOK, "ready\n")
}
