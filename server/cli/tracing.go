package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.37.0"
	"go.opentelemetry.io/otel/trace"
)

// Traces are off unless the environment names an OTLP collector, the way
// every OpenTelemetry SDK is configured: OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT. The exporter (OTLP over HTTP), the
// resource (OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES) and the sampler
// (OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG) then read the rest of the
// standard variables themselves; nothing here repeats their parsing.
// Without them serve builds no SDK at all, so the server gets no tracer
// provider and its requests pay nothing for tracing (server/tracing.go).

// tracesWanted tells whether getenv asks for traces: an OTLP endpoint, and
// neither OTEL_SDK_DISABLED=true nor OTEL_TRACES_EXPORTER=none.
func tracesWanted(getenv func(string) string) bool {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") ||
		strings.EqualFold(strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER")), "none") {
		return false
	}
	return getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "" || getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") != ""
}

// otlpOverHTTP tells whether an OTLP protocol setting names one of the
// protocols the HTTP exporter speaks (it has no gRPC).
func otlpOverHTTP(protocol string) bool {
	return protocol == "" || protocol == "http/protobuf" || protocol == "http/json"
}

// tracerProvider is the OpenTelemetry SDK's tracer provider exporting to the
// collector the environment names, or nil when it names none (tracesWanted).
// The caller shuts it down, which sends the spans still batched.
func tracerProvider(ctx context.Context, getenv func(string) string) (*sdktrace.TracerProvider, error) {
	if !tracesWanted(getenv) {
		return nil, nil
	}
	for _, key := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		if p := getenv(key); !otlpOverHTTP(p) {
			return nil, fmt.Errorf("%s=%s: entityapi sends traces over OTLP/HTTP only (http/protobuf or http/json)", key, p)
		}
	}
	exporter, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("traces: %w", err)
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(semconv.ServiceName("entityapi"), semconv.ServiceVersion(serviceVersion())),
		resource.WithFromEnv(), // OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES win
		resource.WithTelemetrySDK())
	if err != nil {
		return nil, fmt.Errorf("traces: %w", err)
	}
	return sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter), sdktrace.WithResource(res)), nil
}

// serviceVersion is the version the traces' resource names (see versionText).
func serviceVersion() string {
	if version != "" {
		return version
	}
	if info := buildInfo(); info != nil && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "devel"
}

// tracesFlushWait bounds how long serve waits, when it stops, for the
// collector to take the spans still batched.
const tracesFlushWait = 5 * time.Second

// providerOf is tp as the server's setting: nil (tracing off) for a nil tp,
// not an interface holding a nil pointer.
func providerOf(tp *sdktrace.TracerProvider) trace.TracerProvider {
	if tp == nil {
		return nil
	}
	return tp
}

// flushTraces shuts tp down, sending what it still holds; nil does nothing.
func flushTraces(tp *sdktrace.TracerProvider) error {
	if tp == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), tracesFlushWait)
	defer cancel()
	return tp.Shutdown(ctx)
}
