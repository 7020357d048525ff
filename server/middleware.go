package server

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"regexp"
	"runtime/debug"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/server/problem"
)

// Keys of values kept on the Gin context.
const (
	negotiationKey = "entityapi.negotiation"
	requestIDKey   = "entityapi.requestID"
)

var saneRequestID = regexp.MustCompile(`^[A-Za-z0-9._:\-]{1,128}$`)

// requestID takes a sane X-Request-ID from the client or makes one, and echoes it.
func requestID(c *gin.Context) {
	id := c.GetHeader("X-Request-ID")
	if !saneRequestID.MatchString(id) {
		var b [12]byte
		_, _ = rand.Read(b[:])
		id = hex.EncodeToString(b[:])
	}
	c.Set(requestIDKey, id)
	c.Header("X-Request-ID", id)
	c.Next()
}

// recover turns a panic into a 500 error document that reveals nothing.
func (s *Server) recover(c *gin.Context) {
	defer func() {
		if v := recover(); v != nil {
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.Error("panic", "request_id", c.GetString(requestIDKey), "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
			writeProblems(c, problem.List{problem.InternalError()})
			c.Abort()
		}
	}()
	c.Next()
}

// formatOf is the negotiated format of a request, negotiating now if no
// middleware did yet (unknown routes).
func formatOf(c *gin.Context) engine.Format {
	return negotiationOf(c).format
}

func negotiationOf(c *gin.Context) negotiation {
	if v, ok := c.Get(negotiationKey); ok {
		return v.(negotiation)
	}
	var n negotiation
	if r := requestOf(c); r != nil && r.Route.IsAtomic() {
		n = negotiateAtomic(c.Request)
	} else {
		n = negotiate(c.Request)
	}
	c.Set(negotiationKey, n)
	return n
}

// negotiate rejects unacceptable media types and keeps the format for later;
// relationship endpoints speak JSON:API only (docs/decisions.md §3).
func (a *application) negotiate(c *gin.Context) {
	n := negotiationOf(c)
	if n.problem != nil {
		a.abort(c, n.problem)
		return
	}
	r := requestOf(c)
	if r == nil {
		c.Next()
		return
	}
	r.Format = n.format
	if r.Route.IsRelationship() && n.format == engine.Plain {
		if c.Request.Method == http.MethodGet {
			a.abort(c, problem.NotAcceptable("Relationship endpoints answer in JSON:API only (application/vnd.api+json)."))
		} else {
			a.abort(c, problem.UnsupportedMediaType("Relationship endpoints accept JSON:API only (application/vnd.api+json)."))
		}
		return
	}
	c.Next()
}

// unmatched answers requests no route took: OPTIONS gets the allowed methods (a
// CORS preflight of an allowed origin 204, cors.go), a known path with another
// method 405 (403 for an update in JSON:API, RouteTable.Refusal), anything
// else 404; each with a reason. Every refusal of a method carries Allow.
func (s *Server) unmatched(c *gin.Context, apps []*application) {
	for _, a := range apps {
		methods := a.routes.Allowed(c.Request.URL.Path)
		if methods == nil && c.Request.URL.Path == "/oauth2-token" {
			methods = []string{http.MethodOptions, http.MethodPost} // the shared token endpoint (docs/decisions.md §3)
		}
		if methods == nil {
			continue
		}
		c.Header("Allow", strings.Join(methods, ", "))
		if c.Request.Method == http.MethodOptions {
			if !preflight(c, methods) {
				c.Status(http.StatusOK)
			}
			return
		}
		writeProblems(c, problem.List{a.routes.Refusal(c.Request.Method, c.Request.URL.Path, negotiationOf(c).errorsInJSONAPI())})
		return
	}
	writeProblems(c, problem.List{problem.UnknownPath(notFoundDetail(c.Request.URL.Path, apps))})
}
