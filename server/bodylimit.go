package server

import (
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/entityapi/entityapi/server/problem"
)

// This file makes a request refused for its size (--max-body,
// --max-batch-body, --max-batch-item) an answer its client reads
// (docs/decisions.md §13). Left to net/http, the server stops reading such a
// body, reads at most 256 KiB more and closes the connection with the rest
// unread: the kernel answers the client's next bytes with a reset, and a
// client that sends its whole body before it reads (Python's urllib) sees a
// broken pipe instead of the 413 document; one that waits for 100 Continue
// got it, and sent the body, before being refused.

const (
	// drainBytes is how far past its route's limit a refused body is read
	// and discarded after its 413 is sent, so that a client still sending
	// finishes and reads the answer: a request never makes the server read
	// more than an accepted one of its route could, and 8 MiB. What is left
	// beyond is not read (the connection closes).
	drainBytes = 8 << 20
	// drainTime bounds how long the discarding waits for those bytes: a
	// client that declared more than it sends holds a goroutine this long at
	// most.
	drainTime = 10 * time.Second
)

// edgeBodyKey keeps a request's edgeBody on the Gin context.
const edgeBodyKey = "entityapi.edgeBody"

// limitBody refuses, before anything reads it, a body whose Content-Length
// is over the route's limit (--max-batch-body for a batch, --max-body for
// any other route with a body): no 100 Continue is sent to a client that
// asked for one, since net/http sends it only on the first read. It watches
// the body for the refusals found while reading it (a body over its limit, a
// batch item over --max-batch-item), and after any 413 with the body unread
// discards a bounded part of the rest (drain). It runs after negotiate, whose
// format the 413 document takes.
func (a *application) limitBody(c *gin.Context) {
	r := requestOf(c)
	if r == nil || c.Request.Body == nil || c.Request.Body == http.NoBody ||
		(r.Route.Operation().Operation.RequestBody == nil && !r.Route.IsBatch()) {
		c.Next()
		return
	}
	limit := a.cfg.MaxBody
	if r.Route.IsBatch() {
		limit = a.cfg.MaxBatchBody
	}
	body := &edgeBody{ReadCloser: c.Request.Body}
	c.Request.Body = body
	c.Set(edgeBodyKey, body)
	if c.Request.ContentLength > limit {
		a.abort(c, problem.BodyTooLarge(limit))
	} else {
		c.Next()
	}
	if c.Writer.Status() == http.StatusRequestEntityTooLarge && !body.sawEOF.Load() {
		drain(c, body, limit+drainBytes)
	}
}

// closeUnreadBody marks the answer being written to close the connection
// when the request's body has not been read whole: what follows on the
// connection is the rest of the body, not a next request. writeProblems calls
// it for every 413.
func closeUnreadBody(c *gin.Context) {
	if v, ok := c.Get(edgeBodyKey); ok && !v.(*edgeBody).sawEOF.Load() {
		c.Header("Connection", "close")
	}
}

// drain sends the answer written, then reads and discards the rest of a
// refused body until the body has been read up to bound bytes in all, or for
// drainTime, whichever ends first: a client that sends its whole body before
// reading its answer (Python's urllib) then reads the 413 instead of a reset,
// and one that reads while it sends (Go's, Node's) is not raced by that
// reset. A body declared longer than the bound is not read at all (its
// client would be reset anyway), nor one whose client waits for 100 Continue
// (it sends nothing, having its final answer).
func drain(c *gin.Context, body *edgeBody, bound int64) {
	c.Writer.Flush()
	if !body.started.Load() && strings.EqualFold(c.Request.Header.Get("Expect"), "100-continue") {
		return
	}
	left := bound - body.read.Load()
	if cl := c.Request.ContentLength; left <= 0 || cl > bound {
		return
	}
	// Not every writer has deadlines (tests' recorders): then the server's
	// read timeout applies.
	_ = http.NewResponseController(c.Writer).SetReadDeadline(time.Now().Add(drainTime))
	_, _ = io.CopyN(io.Discard, body.ReadCloser, left)
}

// edgeBody is a request body as limitBody hands it on: it records whether it
// was read at all, how much of it, and whether to its end.
type edgeBody struct {
	io.ReadCloser
	started atomic.Bool
	read    atomic.Int64
	sawEOF  atomic.Bool
}

func (b *edgeBody) Read(p []byte) (int, error) {
	b.started.Store(true)
	n, err := b.ReadCloser.Read(p)
	b.read.Add(int64(n))
	if err == io.EOF {
		b.sawEOF.Store(true)
	}
	return n, err
}
