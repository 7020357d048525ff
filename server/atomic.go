package server

import (
	"github.com/gin-gonic/gin"

	"github.com/entityapi/entityapi/server/atomic"
)

// atomicRequest serves POST /api/operations, JSON:API Atomic Operations:
// server/atomic runs the operations with the engine in one transaction.
// The middleware has negotiated the extension's media types (negotiate.go),
// authenticated the caller, counted the operations against
// --max-atomic-operations and checked the body against the document
// (validate.go); each operation's own roles and body are server/atomic's checks.
func (a *application) atomicRequest(c *gin.Context) {
	body, err := a.readBody(c)
	if err != nil {
		a.writeError(c, err)
		return
	}
	reply, err := atomic.Run(a.engine, requestOf(c), body)
	if err != nil {
		a.writeError(c, err)
		return
	}
	if err := reply.Write(c.Writer); err != nil {
		a.log.Debug("atomic answer not written", "request_id", c.GetString(requestIDKey), "error", err.Error())
	}
}
