package server

import (
	"log/slog"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
)

// observe writes the one log line of a request and counts it in the metrics.
// It runs first, so it sees the final status, also of a recovered panic.
//
// What it records is chosen so that nothing secret can appear: the route
// template (Gin's FullPath: /admin/api/accounts/:id, never the raw path or the
// query string), the status, the duration, the bytes written, the request id,
// and who called (client and user id) once authentication has run. Headers and
// bodies are never read here.
func (s *Server) observe(c *gin.Context) {
	start := time.Now()
	c.Next()
	end := time.Now()
	elapsed := end.Sub(start)
	route := c.FullPath()
	if route == "" {
		route = unmatchedRoute
	}
	method, status := c.Request.Method, c.Writer.Status()
	app := s.apps.of(route)
	level := slog.LevelInfo
	switch {
	case c.GetBool(timedOutKey):
		level = slog.LevelWarn // the server's deadline passed (writeError): load, not a fault
	case status >= http.StatusInternalServerError:
		level = slog.LevelError
	}
	if status == StatusClientClosedRequest || (status >= http.StatusInternalServerError && clientGone(c)) {
		// The client gave up: what was left unanswered is not a server
		// error (an error the handler wrote after the client left, a panic
		// on a closed connection, say). Recorded as 499 at INFO.
		status, level = StatusClientClosedRequest, slog.LevelInfo
	}
	code, label := strconv.Itoa(status), methodLabel(method)
	s.metrics.requests.WithLabelValues(app, label, route, code).Inc()
	s.metrics.duration.WithLabelValues(app, label, route, code).Observe(elapsed.Seconds())

	if !s.log.Enabled(c.Request.Context(), level) {
		return
	}
	line := requestLine{method: method, route: route, app: app, status: status,
		durationMS: float64(elapsed.Microseconds()) / 1000, bytes: max(c.Writer.Size(), 0),
		requestID: c.GetString(requestIDKey)}
	if p := principalOf(c); p != nil && p.ClientID != "" { // storefront guests have an empty principal
		line.clientID, line.userID = p.ClientID, p.UserID
	}
	logRequest(c.Request.Context(), s.log, end, level, &line)
}

// otherMethod is the method label of a request whose method is none of
// HTTP's standard ones.
const otherMethod = "OTHER"

// methodLabel is the method a request is counted under: one of the
// standard methods, or otherMethod. A client may send any token as its
// method, and each label value is a series of its own in every scrape and
// in memory for the life of the process: counted as sent, made-up methods
// would grow both without bound. The log line keeps the method as sent.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return m
	}
	return otherMethod
}

// appPrefixes tell which application a route template belongs to, for the
// app label: the longest base whose /api/ or token endpoint the route is under.
type appPrefixes []appPrefix

type appPrefix struct{ base, name string }

func newAppPrefixes(cfg *Config) appPrefixes {
	p := appPrefixes{{cfg.BackofficeBase, "backoffice"}, {cfg.StorefrontBase, "storefront"}}
	sort.SliceStable(p, func(i, j int) bool { return len(p[i].base) > len(p[j].base) })
	return p
}

// of names the application of a route template (noApplication for shared
// routes such as /healthz, for unmatched requests, and for /oauth2-token
// unless an application's base is empty). The token endpoints take clients of
// either application; the tokens metric tells them apart.
func (p appPrefixes) of(route string) string {
	for _, a := range p {
		if route == a.base+"/oauth2-token" || strings.HasPrefix(route, a.base+"/api/") {
			return a.name
		}
	}
	return noApplication
}
