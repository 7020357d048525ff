package server

import (
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
)

// CORS lets scripts on the configured origins call the APIs and the token
// endpoints (oro-behaviour §8, §12.3). Tokens travel in the Authorization
// header, never in cookies, so credentials are never allowed and "*" (any
// origin) is safe to configure: a foreign page still needs a token.

// CORSConfig names the origins whose scripts may call the APIs.
type CORSConfig struct {
	// Origins are scheme://host[:port] or "*" for any; none: no CORS headers at all.
	Origins []string
	// MaxAge is how long a browser may cache a preflight answer (10 min by default).
	MaxAge time.Duration
}

// Header lists of CORS answers (issue 9): what scripts may send, and which
// response headers beyond the safelisted ones they may read.
const (
	corsAllowHeaders  = "Authorization, Content-Type, Accept, X-Include, X-Mode, X-Localization-ID, X-Currency, X-Request-ID, If-Match, If-None-Match"
	corsExposeHeaders = "Location, Content-Location, Link, X-Include-Total-Count, X-Include-Deleted-Count, X-Request-ID, Retry-After, X-Currency, Content-Language, ETag"
)

// DefaultCORSMaxAge is how long a browser may cache a preflight answer when
// CORSConfig.MaxAge is zero (the --cors-max-age setting reads it).
const DefaultCORSMaxAge = 10 * time.Minute

// preflightKey marks a preflight from an allowed origin for unmatched, which
// knows the address's methods.
const preflightKey = "entityapi.corsPreflight"

// cors is the CORS policy of a server; nil when no origin is configured.
type cors struct {
	origins map[string]bool // normalized
	any     bool
	maxAge  string // whole seconds
	bases   []string
}

// newCORS checks the configured origins; bases are the applications' path
// prefixes, whose API addresses and token endpoints CORS covers.
func newCORS(cfg CORSConfig, bases ...string) (*cors, error) {
	if len(cfg.Origins) == 0 {
		return nil, nil
	}
	if cfg.MaxAge <= 0 {
		cfg.MaxAge = DefaultCORSMaxAge
	}
	p := &cors{origins: map[string]bool{}, maxAge: strconv.FormatInt(int64(cfg.MaxAge/time.Second), 10), bases: bases}
	for _, o := range cfg.Origins {
		n, err := NormalizeOrigin(o)
		if err != nil {
			return nil, err
		}
		if n == "*" {
			p.any = true
		}
		p.origins[n] = true
	}
	return p, nil
}

// NormalizeOrigin checks a configured origin and writes it as browsers send
// it in the Origin header: lower case, no default port, no trailing slash.
func NormalizeOrigin(origin string) (string, error) {
	if origin == "*" {
		return origin, nil
	}
	u, err := url.Parse(strings.TrimSuffix(origin, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		u.Path != "" || u.RawQuery != "" || u.Fragment != "" || strings.HasSuffix(origin, "?") {
		return "", errors.New("CORS origin " + strconv.Quote(origin) + ": want scheme://host[:port], such as https://shop.example.com, or *")
	}
	host := strings.ToLower(u.Host)
	if port := u.Port(); (u.Scheme == "http" && port == "80") || (u.Scheme == "https" && port == "443") {
		host = strings.TrimSuffix(host, ":"+port)
	}
	return u.Scheme + "://" + host, nil
}

// covers tells whether CORS applies to an address: the API of an application
// (its docs page excepted, which is served to browsers directly) and the
// token endpoints. Health, metrics and JWKS are for servers, not scripts.
func (p *cors) covers(path string) bool {
	if path == "/oauth2-token" {
		return true
	}
	for _, base := range p.bases {
		rest, ok := strings.CutPrefix(path, base+"/")
		if !ok {
			continue
		}
		if rest == "oauth2-token" || (strings.HasPrefix(rest, "api/") && rest != "api/doc" && !strings.HasPrefix(rest, "api/doc/")) {
			return true
		}
	}
	return false
}

// handle adds the CORS headers of an allowed origin; preflights are finished
// by unmatched, as every OPTIONS request is. Every covered answer varies by
// Origin, so shared caches keep them apart.
func (p *cors) handle(c *gin.Context) {
	if !p.covers(c.Request.URL.Path) {
		c.Next()
		return
	}
	h := c.Writer.Header()
	h.Add("Vary", "Origin")
	origin := c.Request.Header.Get("Origin")
	if origin == "" || !(p.any || p.origins[strings.ToLower(origin)]) {
		c.Next()
		return
	}
	if p.any {
		h.Set("Access-Control-Allow-Origin", "*")
	} else {
		h.Set("Access-Control-Allow-Origin", origin)
	}
	if c.Request.Method == http.MethodOptions && c.Request.Header.Get("Access-Control-Request-Method") != "" {
		c.Set(preflightKey, p)
	} else {
		h.Set("Access-Control-Expose-Headers", corsExposeHeaders)
	}
	c.Next()
}

// preflight answers a preflight of an allowed origin for an address allowing
// methods: 204, no token needed (oro-behaviour §8).
func preflight(c *gin.Context, methods []string) bool {
	v, ok := c.Get(preflightKey)
	if !ok {
		return false
	}
	p := v.(*cors)
	h := c.Writer.Header()
	h.Set("Access-Control-Allow-Methods", strings.Join(methods, ", "))
	h.Set("Access-Control-Allow-Headers", corsAllowHeaders)
	h.Set("Access-Control-Max-Age", p.maxAge)
	h.Set("Cache-Control", "max-age="+p.maxAge+", public")
	c.Status(http.StatusNoContent)
	return true
}
