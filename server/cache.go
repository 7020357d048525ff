package server

import (
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
)

// HTTP caches (issue 34, item 2; docs/storefront.md, "HTTP caches"). A
// storefront guest's read is the same for every guest: its answer is public,
// for any cache and CDN to keep (Cache-Control: public, max-age from
// --guest-max-age), tagged by its bytes (engine.Request.BodyTags: a strong
// ETag that changes with every byte, which a cache revalidates with
// If-None-Match), and varies by every request header that changes it. Every
// other answer is the caller's: an authenticated read is private (the
// client's own cache may keep it and must revalidate it with its ETag), and
// anything else, a write or an error, is kept by no cache (no-store: set
// here for a write, and by writeProblems for every error, those answered
// before this middleware runs included).

// DefaultGuestMaxAge is how long a cache may serve a guest's read without
// asking again (--guest-max-age).
const DefaultGuestMaxAge = time.Minute

// guestVary names the request headers a guest's answer depends on: the
// format (Accept), the localization and currency, X-Include, and
// Authorization, so that no cache answers an authenticated request with a
// guest's answer. The query is the address's; the host is the cache key's
// (or --public-url fixes the links).
const guestVary = "Accept, Authorization, X-Include, X-Localization-ID, X-Currency"

// Cache-Control values.
const (
	cacheNoStore = "no-store"
	cachePrivate = "private, no-cache"
)

// The header values cacheControl sets on every answer, made once: a
// header's Set would allocate a slice per request. Nothing modifies a
// header value in place (Add appends to a full slice, a copy).
var (
	noStoreValue = []string{cacheNoStore}
	privateValue = []string{cachePrivate}
)

// guestCacheControl is the Cache-Control of a guest's read for maxAge:
// public for that long; a negative maxAge (--guest-max-age 0) keeps it
// public but revalidated every time.
func guestCacheControl(maxAge time.Duration) string {
	switch {
	case maxAge < 0:
		return "public, no-cache"
	case maxAge == 0:
		maxAge = DefaultGuestMaxAge
	}
	return "public, max-age=" + strconv.FormatInt(int64(maxAge/time.Second), 10)
}

// cacheControl, after authenticate, says once what caches may do with the
// answer (see the top of this file).
func (a *application) cacheControl(c *gin.Context) {
	r := requestOf(c)
	h := c.Writer.Header()
	if r == nil || r.Principal == nil || (c.Request.Method != http.MethodGet && c.Request.Method != http.MethodHead) {
		h["Cache-Control"] = noStoreValue
		c.Next()
		return
	}
	if a.storefront != nil && r.Principal.Guest() {
		r.BodyTags = true
		h["Cache-Control"] = a.guestCache
		h["Vary"] = append(h["Vary"], guestVary)
	} else {
		h["Cache-Control"] = privateValue
	}
	c.Next()
}
