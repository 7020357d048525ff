package cli

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

func TestTracesWanted(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want bool
	}{
		{nil, false},
		{map[string]string{"OTEL_SERVICE_NAME": "api"}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"}, true},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_SDK_DISABLED": "true"}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_TRACES_EXPORTER": "none"}, false},
	} {
		if got := tracesWanted(func(k string) string { return tc.env[k] }); got != tc.want {
			t.Errorf("tracesWanted(%v) = %v, want %v", tc.env, got, tc.want)
		}
	}
}

// TestTracerProviderExportsOverOTLPHTTP: with OTEL_EXPORTER_OTLP_ENDPOINT
// set, the provider sends its spans to the collector over OTLP/HTTP
// (protobuf POSTs to /v1/traces) when it is flushed, with the service name
// of OTEL_SERVICE_NAME; without it there is no provider at all.
func TestTracerProviderExportsOverOTLPHTTP(t *testing.T) {
	var (
		mu     sync.Mutex
		bodies []string
		paths  []string
	)
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		bodies = append(bodies, string(b))
		paths = append(paths, r.Method+" "+r.URL.Path+" "+r.Header.Get("Content-Type"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer collector.Close()

	if tp, err := tracerProvider(context.Background(), func(string) string { return "" }); tp != nil || err != nil {
		t.Fatalf("without OTEL variables: provider %v, error %v; want none", tp, err)
	}
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	t.Setenv("OTEL_SERVICE_NAME", "entityapi-under-test")
	tp, err := tracerProvider(context.Background(), func(k string) string {
		return map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": collector.URL}[k]
	})
	if err != nil || tp == nil {
		t.Fatalf("with OTEL_EXPORTER_OTLP_ENDPOINT: provider %v, error %v", tp, err)
	}
	_, span := providerOf(tp).Tracer("test").Start(context.Background(), "exported-span")
	span.End()
	if err := flushTraces(tp); err != nil {
		t.Fatalf("flush: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(paths) != 1 || paths[0] != "POST /v1/traces application/x-protobuf" {
		t.Fatalf("the collector received %v, want one POST /v1/traces of protobuf", paths)
	}
	for _, want := range []string{"exported-span", "entityapi-under-test"} {
		if !strings.Contains(bodies[0], want) {
			t.Errorf("the exported spans do not name %q", want)
		}
	}
}

func TestTracerProviderRefusesGRPC(t *testing.T) {
	tp, err := tracerProvider(context.Background(), func(k string) string {
		return map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_EXPORTER_OTLP_PROTOCOL": "http/json"}[k]
	})
	if err != nil || tp == nil {
		t.Fatalf("OTEL_EXPORTER_OTLP_PROTOCOL=http/json: provider %v, error %v; want one", tp, err)
	}
	_ = flushTraces(tp)
	_, err = tracerProvider(context.Background(), func(k string) string {
		return map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}[k]
	})
	if err == nil || !strings.Contains(err.Error(), "OTLP/HTTP") {
		t.Fatalf("OTEL_EXPORTER_OTLP_PROTOCOL=grpc: error %v, want a refusal naming OTLP/HTTP", err)
	}
}
