package server

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestRequestLineAsSlog holds the request line written directly
// (appendRequestLine) to the bytes slog's JSON handler writes for the same
// record: a log collector cannot tell the two apart.
func TestRequestLineAsSlog(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 27, 23, 9, 21, 944500564, time.UTC)
	base := requestLine{method: "GET", route: "/admin/api/regions", app: "backoffice", status: 200,
		durationMS: 1.234, bytes: 3847, requestID: "038c934c6b741c685241705f", clientID: "demo-backoffice", userID: 1}
	for _, tc := range []struct {
		name  string
		at    time.Time
		level slog.Level
		edit  func(*requestLine)
	}{
		{name: "an authenticated user", at: at, level: slog.LevelInfo},
		{name: "a client alone", at: at, level: slog.LevelInfo, edit: func(l *requestLine) { l.userID = 0 }},
		{name: "no caller", at: at, level: slog.LevelWarn, edit: func(l *requestLine) { l.clientID, l.userID = "", 0 }},
		{name: "a server error", at: at, level: slog.LevelError, edit: func(l *requestLine) { l.status = 500 }},
		{name: "a whole second, no fraction", at: at.Truncate(time.Second), level: slog.LevelInfo},
		{name: "another zone", at: at.In(time.FixedZone("x", -5*3600-30*60)), level: slog.LevelInfo},
		{name: "a monotonic reading", at: time.Now(), level: slog.LevelInfo},
		{name: "zero duration and size", at: at, level: slog.LevelInfo, edit: func(l *requestLine) { l.durationMS, l.bytes = 0, 0 }},
		{name: "a millisecond", at: at, level: slog.LevelInfo, edit: func(l *requestLine) { l.durationMS = 0.001 }},
		{name: "a long request", at: at, level: slog.LevelInfo, edit: func(l *requestLine) { l.durationMS = 1234567.891 }},
		{name: "a huge duration", at: at, level: slog.LevelInfo, edit: func(l *requestLine) { l.durationMS = 3e21 }},
		{name: "a tiny duration", at: at, level: slog.LevelInfo, edit: func(l *requestLine) { l.durationMS = 1e-7 }},
		{name: "negative numbers", at: at, level: slog.LevelInfo, edit: func(l *requestLine) { l.userID, l.status = -7, -1 }},
		{name: "a custom level", at: at, level: slog.LevelInfo + 2, edit: nil},
		{name: "strings needing escapes", at: at, level: slog.LevelInfo, edit: func(l *requestLine) {
			l.requestID = "q\"b\\s/<>&\n\r\t\x00\x1f\x7f"
			l.clientID = "é漢字\u2028\u2029🙂"
			l.route = "bad\xff\xfeutf8\xc3"
		}},
		{name: "empty strings", at: at, level: slog.LevelInfo, edit: func(l *requestLine) {
			l.method, l.route, l.app, l.requestID = "", "", "", ""
		}},
		{name: "a year slog refuses", at: time.Date(10001, 1, 1, 0, 0, 0, 0, time.UTC), level: slog.LevelInfo},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := base
			if tc.edit != nil {
				tc.edit(&l)
			}
			var want bytes.Buffer
			rec := slog.NewRecord(tc.at, tc.level, requestMessage, 0)
			l.attrs(&rec)
			if err := slog.NewJSONHandler(&want, nil).Handle(context.Background(), rec); err != nil {
				t.Fatal(err)
			}
			if got := appendRequestLine(nil, tc.at, tc.level, &l); string(got) != want.String() {
				t.Errorf("direct line\n%s\nslog's\n%s", got, want.String())
			}
		})
	}
}

// TestLogRequestPaths: logRequest writes directly through a handler of
// NewJSONLogHandler whose options keep slog's shape, and through slog for
// every other handler, so options that change the line still apply.
func TestLogRequestPaths(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 27, 1, 2, 3, 4, time.UTC)
	line := requestLine{method: "POST", route: "/admin/api/accounts", app: "backoffice", status: 201,
		durationMS: 2.5, bytes: 10, requestID: "r1", clientID: "c", userID: 9}
	plain := func() string {
		var buf bytes.Buffer
		logRequest(context.Background(), slog.New(slog.NewJSONHandler(&buf, nil)), at, slog.LevelInfo, &line)
		return buf.String()
	}()
	for _, tc := range []struct {
		name   string
		logger func(*bytes.Buffer) *slog.Logger
		direct bool
		want   func(string) bool
	}{
		{name: "the binary's handler", direct: true,
			logger: func(b *bytes.Buffer) *slog.Logger { return slog.New(NewJSONLogHandler(b, nil)) },
			want:   func(s string) bool { return s == plain }},
		{name: "ReplaceAttr renames a key", direct: false,
			logger: func(b *bytes.Buffer) *slog.Logger {
				return slog.New(NewJSONLogHandler(b, &slog.HandlerOptions{ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
					if a.Key == "route" {
						a.Key = "path_template"
					}
					return a
				}}))
			},
			want: func(s string) bool { return strings.Contains(s, `"path_template":"/admin/api/accounts"`) }},
		{name: "attributes added by With", direct: false,
			logger: func(b *bytes.Buffer) *slog.Logger { return slog.New(NewJSONLogHandler(b, nil)).With("instance", "a") },
			want:   func(s string) bool { return strings.Contains(s, `"msg":"request","instance":"a","method":"POST"`) }},
		{name: "a text handler", direct: false,
			logger: func(b *bytes.Buffer) *slog.Logger { return slog.New(slog.NewTextHandler(b, nil)) },
			want:   func(s string) bool { return strings.Contains(s, "msg=request method=POST") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			log := tc.logger(&buf)
			h, ok := log.Handler().(*jsonLogHandler)
			if direct := ok && h.direct; direct != tc.direct {
				t.Errorf("direct path %v, want %v", direct, tc.direct)
			}
			logRequest(context.Background(), log, at, slog.LevelInfo, &line)
			if !tc.want(buf.String()) || strings.Count(buf.String(), "\n") != 1 {
				t.Errorf("line %q", buf.String())
			}
		})
	}
}
