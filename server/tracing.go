package server

import (
	"context"
	"database/sql"
	"errors"
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.37.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/entityapi/entityapi/server/telemetry"
)

// Traces (issue 19). With Config.TracerProvider set, every request is a
// span named by its method and route template, with these children:
// "validate" (the checks against the document), "engine" (the generated
// handler and the engine, or the batch and atomic handlers), and one span
// per SQL statement under whichever of them sent it. A batch chunk job is
// a span of its own, linked to the request that queued it (server/batch).
//
// Without a provider none of this exists: no middleware is added, the
// statement hook is not installed and validate takes its old path, so a
// request costs what it cost before (server/allocbound_test.go holds it).
//
// What a span records is chosen as the request log's line is (observe): the
// route template, never the raw path or query string; the status; the
// request id; the client and user ids once authentication has run. SQL text
// is recorded with its literals replaced by ? (sanitizeSQL): the generic
// queries bind every value, but Bun writes the values of its model queries
// (a client's secret hash, a sealed signing key) into the text.

// Attribute keys of entityapi's own.
const (
	attrRequestID   = attribute.Key("entityapi.request_id")
	attrClientID    = attribute.Key("entityapi.client_id")
	attrUserID      = attribute.Key("entityapi.user_id")
	attrOperationID = attribute.Key("entityapi.operation_id")
)

// traceRequest is the router's first middleware when tracing is on: it
// continues the caller's trace (W3C traceparent) or starts one, and gives
// the request's context the request span, so that begin's engine.Request
// and every query below carry it.
func (s *Server) traceRequest(c *gin.Context) {
	method := methodLabel(c.Request.Method)
	route := c.FullPath()
	name := method
	attrs := []attribute.KeyValue{semconv.HTTPRequestMethodKey.String(method)}
	if route != "" {
		name += " " + route
		attrs = append(attrs, semconv.HTTPRoute(route))
	}
	ctx := telemetry.Extract(c.Request.Context(), c.Request.Header)
	ctx, span := s.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer), trace.WithAttributes(attrs...))
	defer span.End()
	ctx = telemetry.WithRequest(ctx, span.SpanContext())
	c.Request = c.Request.WithContext(ctx)
	c.Next()
	status := c.Writer.Status()
	span.SetAttributes(semconv.HTTPResponseStatusCode(status), attrRequestID.String(c.GetString(requestIDKey)))
	if p := principalOf(c); p != nil && p.ClientID != "" {
		span.SetAttributes(attrClientID.String(p.ClientID))
		if p.UserID != 0 {
			span.SetAttributes(attrUserID.Int64(p.UserID))
		}
	}
	if status >= http.StatusInternalServerError {
		span.SetStatus(codes.Error, http.StatusText(status))
	}
}

// traceEngine adds engineSpan to an application's middleware, last, when
// tracing is on. engineSpan puts the
// handler's work (binding, the engine, writing the answer; a batch upload
// or an atomic request) in an "engine" span, whose context the
// engine.Request and the request carry so that the statements it sends are
// its children.
func (a *application) traceEngine(group *gin.RouterGroup) {
	if a.tracer != nil {
		group.Use(a.engineSpan)
	}
}

func (a *application) engineSpan(c *gin.Context) {
	r := requestOf(c)
	if r == nil {
		c.Next()
		return
	}
	ctx, span := a.tracer.Start(c.Request.Context(), "engine",
		trace.WithAttributes(attrOperationID.String(r.Route.Operation().Operation.OperationID)))
	defer span.End()
	outer := r.Ctx
	r.Ctx = ctx
	c.Request = c.Request.WithContext(ctx)
	c.Next()
	r.Ctx = outer
	if status := c.Writer.Status(); status >= http.StatusInternalServerError {
		span.SetStatus(codes.Error, http.StatusText(status))
	}
}

// endChecked ends validate's span: an error status when the request was
// refused (the answer's status says why).
func endChecked(span trace.Span, ok bool, status int) {
	if !ok {
		span.SetAttributes(semconv.HTTPResponseStatusCode(status))
		span.SetStatus(codes.Error, "refused")
	}
	span.End()
}

// sqlSpans is the statement hook (storage.StatementHook) that makes a span
// of each statement sent for a traced request or job: through Bun, through
// database/sql with bound parameters, or through pgx on the pool, since
// storage passes every one of them to its hooks. A statement outside any
// recording span (the job queue's housekeeping, say) makes none.
type sqlSpans struct {
	tracer trace.Tracer
	system attribute.KeyValue // db.system.name
}

// sqlSpanKey keeps the statement's span on the context BeforeStatement
// returns, for AfterStatement to end it.
type sqlSpanKey struct{}

// newSQLSpans makes the hook of a database whose db.system.name is system
// (storage's dialect says it: Features.SystemName).
func newSQLSpans(tracer trace.Tracer, system string) sqlSpans {
	return sqlSpans{tracer: tracer, system: semconv.DBSystemNameKey.String(system)}
}

func (h sqlSpans) BeforeStatement(ctx context.Context, query string) context.Context {
	if !trace.SpanFromContext(ctx).IsRecording() {
		return ctx
	}
	op := sqlOperation(query)
	ctx, span := h.tracer.Start(ctx, op, trace.WithSpanKind(trace.SpanKindClient),
		trace.WithAttributes(h.system, semconv.DBOperationName(op), semconv.DBQueryText(sanitizeSQL(query))))
	return context.WithValue(ctx, sqlSpanKey{}, span)
}

func (h sqlSpans) AfterStatement(ctx context.Context, _ string, err error) {
	span, ok := ctx.Value(sqlSpanKey{}).(trace.Span)
	if !ok {
		return
	}
	if err != nil && !errors.Is(err, sql.ErrNoRows) {
		span.RecordError(err)
		span.SetStatus(codes.Error, "statement failed")
	}
	span.End()
}

// sqlOperation is a statement's first keyword, upper-cased: SELECT,
// INSERT, WITH, BEGIN... (the span's name and db.operation.name).
func sqlOperation(query string) string {
	query = strings.TrimLeft(query, " \t\r\n(")
	end := strings.IndexFunc(query, func(r rune) bool { return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') })
	if end < 0 {
		end = len(query)
	}
	if end == 0 {
		return "SQL"
	}
	return strings.ToUpper(query[:end])
}

// sanitizeSQL replaces every quoted literal of query ('...', with ”
// inside) by ?, so that no value Bun wrote into a statement's text reaches
// a trace. Identifiers are double-quoted and stay; the numbers Bun writes
// (ids, counts, limits) stay too.
func sanitizeSQL(query string) string {
	if strings.IndexByte(query, '\'') < 0 {
		return query
	}
	var b strings.Builder
	b.Grow(len(query))
	for i := 0; i < len(query); i++ {
		if query[i] != '\'' {
			b.WriteByte(query[i])
			continue
		}
		// skip to the closing quote; '' is a quote inside the literal
		for i++; i < len(query); i++ {
			if query[i] == '\'' {
				if i+1 < len(query) && query[i+1] == '\'' {
					i++
					continue
				}
				break
			}
		}
		b.WriteByte('?')
	}
	return b.String()
}
