// Package telemetry holds what the traced parts of entityapi share about
// OpenTelemetry (issue 19): the name their tracer is asked for, the W3C
// propagation of trace context into HTTP headers and out of them, and the
// one text form in which a span context is kept for work that runs later
// (a batch chunk job; a webhook delivery when there is one).
//
// Tracing is off unless the binary is given a tracer provider (main reads
// the standard OTEL_* variables): the server then holds no tracer at all
// and adds no middleware and no statement hook, so that a request costs
// nothing more than before. Everything here takes that nil-or-real tracer
// and never reads the global one, so that tests can each run their own
// provider side by side.
//
// It depends on the OpenTelemetry API only, not on Gin or storage, so that
// the edge (server), the batch pipeline (server/batch) and a later webhook
// sender can all use it.
package telemetry

import (
	"context"
	"net/http"

	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName names entityapi's tracer (the instrumentation scope of every
// span it records).
const ScopeName = "github.com/entityapi/entityapi"

// Tracer is the tracer of provider, or nil when provider is nil (tracing off).
func Tracer(provider trace.TracerProvider) trace.Tracer {
	if provider == nil {
		return nil
	}
	return provider.Tracer(ScopeName)
}

// propagator reads and writes W3C Trace Context (traceparent, tracestate)
// and W3C Baggage.
var propagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

// Extract returns ctx with the remote span context of an incoming request's
// traceparent (and its baggage), if it carries a valid one.
func Extract(ctx context.Context, h http.Header) context.Context {
	return propagator.Extract(ctx, propagation.HeaderCarrier(h))
}

// Inject writes ctx's span context into an outgoing request's headers as
// traceparent and tracestate. This is the seam for webhook deliveries
// (issue 19), which do not exist yet: a delivery starts a client span
// linked to Stored(event's traceparent) and sends Inject's headers.
func Inject(ctx context.Context, h http.Header) {
	propagator.Inject(ctx, propagation.HeaderCarrier(h))
}

// requestSpanKey keeps the span context of the request a context belongs
// to (WithRequest).
type requestSpanKey struct{}

// WithRequest marks ctx as that of the request whose span is sc, so that
// work the request leaves for later links to the request itself, not to
// whichever child span (the engine's) queued it.
func WithRequest(ctx context.Context, sc trace.SpanContext) context.Context {
	return context.WithValue(ctx, requestSpanKey{}, sc)
}

// RequestTraceparent is the W3C traceparent of the request ctx belongs to
// (WithRequest), else of ctx's own span, to be kept with work that runs
// later (a job's arguments); "" when ctx has neither.
func RequestTraceparent(ctx context.Context) string {
	sc, ok := ctx.Value(requestSpanKey{}).(trace.SpanContext)
	if !ok {
		sc = trace.SpanContextFromContext(ctx)
	}
	if !sc.IsValid() {
		return ""
	}
	carrier := propagation.MapCarrier{}
	propagation.TraceContext{}.Inject(trace.ContextWithSpanContext(context.Background(), sc), carrier)
	return carrier.Get("traceparent")
}

// Stored is the span context a RequestTraceparent value names (marked remote), or
// an invalid one for "" or a malformed value.
func Stored(traceparent string) trace.SpanContext {
	if traceparent == "" {
		return trace.SpanContext{}
	}
	ctx := propagation.TraceContext{}.Extract(context.Background(), propagation.MapCarrier{"traceparent": traceparent})
	return trace.SpanContextFromContext(ctx)
}
