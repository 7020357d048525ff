package server

import (
	"github.com/gin-gonic/gin"
)

// atomicRequest serves POST /api/operations, JSON:API Atomic Operations: the
// engine runs the operations in one transaction (server/engine/atomic.go).
// The middleware has negotiated the extension's media types (negotiate.go),
// authenticated the caller, counted the operations against
// --max-atomic-operations and checked the body against the document
// (validate.go); each operation's own roles and body are the engine's checks.
func (a *application) atomicRequest(c *gin.Context) {
	body, err := a.readBody(c)
	if err != nil {
		a.writeError(c, err)
		return
	}
	reply, err := a.engine.Atomic(requestOf(c), body)
	if err != nil {
		a.writeError(c, err)
		return
	}
	if err := reply.Write(c.Writer); err != nil {
		a.log.Debug("atomic answer not written", "request_id", c.GetString(requestIDKey), "error", err.Error())
	}
}
