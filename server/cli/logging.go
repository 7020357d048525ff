package cli

import (
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/entityapi/entityapi/server"
)

// newLogger builds the process's logger: JSON lines by default, for log
// collectors; text (--log-format text) for a terminal. format was checked by
// parse.
func newLogger(w io.Writer, format string, level slog.Level) *slog.Logger {
	opts := &slog.HandlerOptions{Level: level}
	if format == "text" {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(server.NewJSONLogHandler(w, opts))
}

// metricsServer serves GET /metrics alone on --metrics-addr, so that the
// public address need not expose it; scrapes are short, hence the timeouts.
func metricsServer(addr string, h http.Handler) *http.Server {
	return &http.Server{Addr: addr, Handler: h, ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second, IdleTimeout: 120 * time.Second}
}
