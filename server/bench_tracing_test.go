package server_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// benchTracedServer is benchServer with traces on as production runs them
// (every request sampled, spans batched to an exporter), the exporter
// dropping them: the cost of recording, not of the collector.
func benchTracedServer(tb testing.TB, dialect string) http.Handler {
	tb.Helper()
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(tracetest.NewNoopExporter()))
	tb.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	store := storagetest.Open(tb, dialect)
	srv, err := server.New(server.Config{BackofficeBase: "/admin", MaxBody: 64 << 10,
		Logger: slog.New(server.NewJSONLogHandler(io.Discard, nil)), TracerProvider: tp}, store)
	if err != nil {
		tb.Fatalf("server.New: %v", err)
	}
	tb.Cleanup(srv.Close)
	createPrincipals(tb, store)
	return withToken(srv, tokenFor(tb, srv, "admin"))
}

// BenchmarkGetOneTraced is BenchmarkGetOne with traces on: beside it, the
// cost of tracing a request (docs/observability.md, "Traces").
func BenchmarkGetOneTraced(b *testing.B) {
	eachDialect(b, func(b *testing.B, dialect string) {
		benchGet(b, benchTracedServer(b, dialect), benchOne, jsonAPIType)
	})
}

// TestTracedRequestAllocations bounds what tracing adds to a request when it
// is on: the GET of allocBounds' first case, measured with and without, may
// cost at most tracedExtraAllocs more allocations (spans of the request,
// validation, engine and its statements, their attributes).
func TestTracedRequestAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	if testing.Short() {
		t.Skip("measures requests")
	}
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			measure := func(h http.Handler) float64 {
				return requestAllocs(getting(benchOne)(t, h))
			}
			off, on := measure(benchServer(t, dialect)), measure(benchTracedServer(t, dialect))
			t.Logf("GET one country: %.0f allocations untraced, %.0f traced", off, on)
			if on-off > tracedExtraAllocs {
				t.Errorf("tracing adds %.0f allocations to a GET, more than %d", on-off, tracedExtraAllocs)
			}
		})
	}
}

// tracedExtraAllocs is the bound of TestTracedRequestAllocations, about 15%
// above what tracing added when it was set (44 on both databases).
const tracedExtraAllocs = 52
