package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/problem"
)

// StatusClientClosedRequest (499, nginx's) records a request whose client went
// away before its answer was ready. It is not a server error: 5xx alerting
// must not see the clients that give up.
const StatusClientClosedRequest = 499

// timedOutKey marks, in a Gin context, a request answered 503 because its
// deadline passed, for observe to log at WARN.
const timedOutKey = "entityapi.timedOut"

// outageRetryAfter is the Retry-After, in seconds, of a request answered
// 503 because the database is unavailable: about what a PostgreSQL restart
// or a replica's promotion takes (docs/production.md, "Database outages").
const outageRetryAfter = 5

// clientGone tells whether the client of c has gone away: its request's
// context was cancelled (the server cancels it when the connection closes).
// Whatever a query then returns (context canceled, a driver's "interrupted"),
// the cause is the client's leaving.
func clientGone(c *gin.Context) bool {
	return errors.Is(c.Request.Context().Err(), context.Canceled)
}

// abort answers with the problems of err and stops the handler chain.
func (a *application) abort(c *gin.Context, err error) {
	a.writeError(c, err)
	c.Abort()
}

// writeError is the one place an error becomes a response: problems are answered
// as they are, anything else is logged with the request id and answered as a 500.
//
// A failure after the client went away (its request's context is cancelled:
// it gave up, or closed the connection) is no fault of the server's: the
// request is recorded as 499, client closed request, at INFO (see observe),
// and nothing is written, since nobody reads it. A failure after the
// request's own deadline passed (the server's, not the client's) is a 503:
// the server could not answer in the time it allows itself, a condition of
// load that 5xx alerting should see, but no fault to log as an ERROR (observe
// logs it at WARN). A failure the database's dialect reads as its own
// condition (a server down or restarting, a connection cut: see
// storage.Store.Unavailable) is a 503 with Retry-After: the client may send
// the request again, and nothing of it was written.
func (a *application) writeError(c *gin.Context, err error) {
	list, ok := problem.From(err)
	if !ok {
		switch ctxErr := c.Request.Context().Err(); {
		case errors.Is(ctxErr, context.Canceled):
			a.log.Debug("request abandoned by its client", "request_id", c.GetString(requestIDKey), "error", err.Error())
			c.Status(StatusClientClosedRequest)
			return
		case errors.Is(ctxErr, context.DeadlineExceeded):
			c.Set(timedOutKey, true)
			list, ok = problem.List{problem.TimedOut()}, true
		case a.unavailable != nil && a.unavailable(err):
			a.log.Warn("database unavailable", "request_id", c.GetString(requestIDKey), "method", c.Request.Method,
				"route", c.FullPath(), "error", err.Error())
			c.Header("Retry-After", strconv.Itoa(outageRetryAfter))
			list, ok = problem.List{problem.DatabaseUnavailable(outageRetryAfter)}, true
		}
	}
	if !ok {
		a.log.Error("request failed", "request_id", c.GetString(requestIDKey), "method", c.Request.Method,
			"route", c.FullPath(), "error", err.Error())
		list = problem.List{problem.InternalError()}
	}
	writeProblems(c, list)
}

// requestError handles a body or parameter the generated code could not bind;
// the validator rejects most such requests first. What is left is a query
// parameter given more than once.
func (a *application) requestError(c *gin.Context, err error) {
	if m := badParameter.FindStringSubmatch(err.Error()); m != nil {
		writeProblems(c, problem.List{problem.Filter(m[1], "The parameter should be given once, with one value.")})
		return
	}
	writeProblems(c, problem.List{problem.MalformedJSON("Invalid json message received.")})
}

// badParameter finds the parameter in the generated code's binding errors.
var badParameter = regexp.MustCompile(`^Invalid format for parameter (\S+):`)

// writeProblems writes an error document in the negotiated format (docs/decisions.md §3):
// JSON:API errors with the status as a string and the request id in meta, or the
// plain format's bare array.
func writeProblems(c *gin.Context, list problem.List) {
	c.Header("Cache-Control", cacheNoStore) // no cache keeps an error (cache.go)
	status := list.Status()
	if status == http.StatusRequestEntityTooLarge {
		closeUnreadBody(c) // the rest of a refused body is not read (bodylimit.go)
	}
	var body []byte
	if negotiationOf(c).errorsInJSONAPI() {
		doc := jsonapi.ErrorDocument{Errors: make([]jsonapi.Error, len(list))}
		for i, p := range list {
			e := jsonapi.Error{Status: strconv.Itoa(p.Kind.Status()), Code: p.Code, Title: p.Title, Detail: p.Detail}
			if p.About != "" {
				e.Links = &jsonapi.ErrorLinks{About: p.About, Type: p.Type}
			}
			if p.Meta != nil {
				e.Meta = p.Meta
			}
			if p.Pointer != "" || p.Parameter != "" || p.Header != "" {
				e.Source = &jsonapi.ErrorSource{Pointer: p.Pointer, Parameter: p.Parameter, Header: p.Header}
			}
			doc.Errors[i] = e
		}
		if id := c.GetString(requestIDKey); id != "" {
			doc.Meta = &jsonapi.ErrorsMeta{RequestID: id}
		}
		body, _ = json.Marshal(doc)
		c.Data(status, jsonapi.MediaType, body)
		return
	}
	plain := make([]jsonapi.PlainError, len(list))
	for i, p := range list {
		src := p.Pointer
		if len(src) > 1 && src[0] == '/' {
			src = src[1:]
		}
		if p.Parameter != "" {
			src = p.Parameter
		}
		if p.Header != "" {
			src = p.Header
		}
		plain[i] = jsonapi.PlainError{Code: p.Code, Title: p.Title, Detail: p.Detail, Source: src}
	}
	body, _ = json.Marshal(plain)
	c.Data(status, jsonapi.PlainMediaType, body)
}
