package server

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/entityapi/entityapi/server/jsonapi"
)

// Every request writes one log line (observe). Through slog's JSON handler
// that line cost about 4% of a GET of ten regions in process: a Record with
// nine attributes, their Values boxed and walked by the generic handler, a
// float formatted by encoding/json. The request line has a fixed shape, so
// the handler the binary logs JSON through (NewJSONLogHandler) can write it
// directly: the same bytes slog would write (TestRequestLineAsSlog holds
// them equal), appended into a pooled buffer. Strings are quoted by
// jsonapi.AppendString, whose escapes are slog's: encoding/json's without
// the HTML ones, U+2028 and U+2029 escaped, invalid UTF-8 as \ufffd. Every other record, and every
// handler derived by WithAttrs or WithGroup, goes through slog's own.

// requestLine is what the log line of a request says, in its order.
type requestLine struct {
	method, route, app string
	status             int
	durationMS         float64
	bytes              int
	requestID          string
	clientID           string // "" when no client authenticated (then no user either)
	userID             int64  // 0: no user (a client acting alone)
}

// requestMessage is the msg of every request line.
const requestMessage = "request"

// attrs are the line's attributes for a slog.Record, in the line's order.
func (l *requestLine) attrs(rec *slog.Record) {
	rec.AddAttrs(
		slog.String("method", l.method),
		slog.String("route", l.route),
		slog.String("app", l.app),
		slog.Int("status", l.status),
		slog.Float64("duration_ms", l.durationMS),
		slog.Int("bytes", l.bytes),
		slog.String("request_id", l.requestID))
	if l.clientID != "" {
		rec.AddAttrs(slog.String("client_id", l.clientID))
		if l.userID != 0 {
			rec.AddAttrs(slog.Int64("user_id", l.userID))
		}
	}
}

// logRequest writes l at level, stamped t, through log: directly when its
// handler is a jsonLogHandler that may, through slog otherwise.
func logRequest(ctx context.Context, log *slog.Logger, t time.Time, level slog.Level, l *requestLine) {
	if h, ok := log.Handler().(*jsonLogHandler); ok && h.direct {
		h.writeRequest(t, level, l)
		return
	}
	// The record is built here rather than by Logger.LogAttrs, which would
	// also walk the stack for a caller that no handler of ours prints.
	rec := slog.NewRecord(t, level, requestMessage, 0)
	l.attrs(&rec)
	_ = log.Handler().Handle(ctx, rec)
}

// jsonLogHandler is slog's JSON handler that can also write a request line
// without building a Record (see the top of this file).
type jsonLogHandler struct {
	*slog.JSONHandler
	out *lockedWriter
	// direct: the options leave the line's shape alone (no ReplaceAttr, no
	// source), so writeRequest writes what the JSON handler would.
	direct bool
}

// NewJSONLogHandler is slog.NewJSONHandler(w, opts) whose request lines are
// written without slog's generic machinery, byte for byte as slog would.
// Both paths write each line with one Write to w, under one lock.
func NewJSONLogHandler(w io.Writer, opts *slog.HandlerOptions) slog.Handler {
	if opts == nil {
		opts = &slog.HandlerOptions{}
	}
	out := &lockedWriter{w: w}
	return &jsonLogHandler{JSONHandler: slog.NewJSONHandler(out, opts), out: out,
		direct: opts.ReplaceAttr == nil && !opts.AddSource}
}

// lockedWriter serializes the writes of both of jsonLogHandler's paths, as
// slog's handler serializes its own.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (lw *lockedWriter) Write(p []byte) (int, error) {
	lw.mu.Lock()
	defer lw.mu.Unlock()
	return lw.w.Write(p)
}

// lineBuffers hold the lines being formatted; a line is a few hundred bytes.
var lineBuffers = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// writeRequest writes l as slog's JSON handler writes a record of time t,
// level, msg "request" and l.attrs. The caller has checked Enabled.
func (h *jsonLogHandler) writeRequest(t time.Time, level slog.Level, l *requestLine) {
	bp := lineBuffers.Get().(*[]byte)
	b := appendRequestLine((*bp)[:0], t, level, l)
	_, _ = h.out.Write(b)
	*bp = b
	lineBuffers.Put(bp)
}

// appendRequestLine appends the JSON line of l (see writeRequest).
func appendRequestLine(b []byte, t time.Time, level slog.Level, l *requestLine) []byte {
	if y := t.Year(); y < 0 || y >= 10000 {
		// slog writes an error in place of such a time: leave it to slog's
		// own formatting rather than imitate it.
		return appendViaSlog(b, t, level, l)
	}
	b = append(b, `{"time":"`...)
	b = t.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","level":`...)
	b = jsonapi.AppendString(b, level.String())
	b = append(b, `,"msg":"`+requestMessage+`","method":`...)
	b = jsonapi.AppendString(b, l.method)
	b = append(b, `,"route":`...)
	b = jsonapi.AppendString(b, l.route)
	b = append(b, `,"app":`...)
	b = jsonapi.AppendString(b, l.app)
	b = append(b, `,"status":`...)
	b = strconv.AppendInt(b, int64(l.status), 10)
	b = append(b, `,"duration_ms":`...)
	b = appendLogFloat(b, l.durationMS)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, int64(l.bytes), 10)
	b = append(b, `,"request_id":`...)
	b = jsonapi.AppendString(b, l.requestID)
	if l.clientID != "" {
		b = append(b, `,"client_id":`...)
		b = jsonapi.AppendString(b, l.clientID)
		if l.userID != 0 {
			b = append(b, `,"user_id":`...)
			b = strconv.AppendInt(b, l.userID, 10)
		}
	}
	return append(b, "}\n"...)
}

// appendViaSlog appends what slog's own JSON handler writes for the line.
func appendViaSlog(b []byte, t time.Time, level slog.Level, l *requestLine) []byte {
	w := &appendWriter{b: b}
	rec := slog.NewRecord(t, level, requestMessage, 0)
	l.attrs(&rec)
	_ = slog.NewJSONHandler(w, nil).Handle(context.Background(), rec)
	return w.b
}

// appendWriter is an io.Writer appending to b.
type appendWriter struct{ b []byte }

func (w *appendWriter) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}

// appendLogFloat writes f as encoding/json does, which slog's JSON handler
// calls for floats: the shortest decimal, in exponent form only below 1e-6
// or from 1e21 on (then through encoding/json itself, rare for a duration).
func appendLogFloat(b []byte, f float64) []byte {
	if a := math.Abs(f); a == 0 || (a >= 1e-6 && a < 1e21) {
		return strconv.AppendFloat(b, f, 'f', -1, 64)
	}
	raw, err := json.Marshal(f)
	if err != nil { // NaN or an infinity, which slog writes as an error text
		return jsonapi.AppendString(b, "!ERROR:"+err.Error())
	}
	return append(b, raw...)
}
