package cli

import (
	"io"
	"log/slog"
	"net/http"
	"os"
	"time"

	"github.com/mattn/go-isatty"

	"github.com/entityapi/entityapi/server"
)

// logFormat is the format the log is written in: the --log-format setting,
// where auto means text lines for a person at a terminal (`make run`) and
// JSON lines for anything else, a log collector most likely.
func logFormat(setting string, terminal bool) string {
	if setting != "auto" {
		return setting
	}
	if terminal {
		return "text"
	}
	return "json"
}

// isTerminal tells whether w is a terminal (the process's standard error,
// not redirected).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && (isatty.IsTerminal(f.Fd()) || isatty.IsCygwinTerminal(f.Fd()))
}

// newLogger builds the process's logger: JSON lines for log collectors, or
// text for a terminal (logFormat).
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
