package server

import (
	"context"

	"github.com/gin-gonic/gin"
)

// deadline gives a request's context the request timeout (--request-timeout),
// so that every query the request sends is cancelled when the time is up:
// modernc's SQLite interrupts the running statement, pgx cancels it on the
// server; writeError answers the failure 503 (problem.TimedOut). Without it
// the HTTP server's write timeout only dropped the answer while the queries
// ran on for minutes (issue 15). Batch uploads have their own, longer
// deadlines (batchRequest) and are left alone.
func (a *application) deadline(c *gin.Context) {
	if a.cfg.RequestTimeout <= 0 {
		c.Next()
		return
	}
	if rt := a.routes.lookup(c.Request.Method, c.FullPath()); rt != nil && rt.isBatch() {
		c.Next()
		return
	}
	ctx, cancel := context.WithTimeout(c.Request.Context(), a.cfg.RequestTimeout)
	defer cancel()
	c.Request = c.Request.WithContext(ctx)
	c.Next()
}
