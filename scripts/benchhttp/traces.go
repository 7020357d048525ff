package main

import (
	"io"
	"net"
	"net/http"
	"sync/atomic"
	"time"
)

// traceSink stands in for an OpenTelemetry collector under -traced: it
// accepts the service's OTLP/HTTP exports on the loopback and discards
// them, answering as a collector does (200, an empty protobuf response),
// so that the table shows what tracing costs the service itself (the
// spans made, encoded and sent), not what a collector costs.
type traceSink struct {
	srv      *http.Server
	addr     string
	received atomic.Int64
}

// startTraceSink listens on a free loopback port.
func startTraceSink() (*traceSink, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &traceSink{addr: ln.Addr().String()}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

func (s *traceSink) serve(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" {
		http.NotFound(w, r)
		return
	}
	s.received.Add(1)
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.WriteHeader(http.StatusOK)
}

// env is what the service needs to export to the sink, every request
// sampled.
func (s *traceSink) env() []string {
	return []string{"OTEL_EXPORTER_OTLP_ENDPOINT=http://" + s.addr, "OTEL_TRACES_SAMPLER=always_on"}
}

// exports counts the exports received so far.
func (s *traceSink) exports() int { return int(s.received.Load()) }

func (s *traceSink) close() { _ = s.srv.Close() }
