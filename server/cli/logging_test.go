package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLogAndMetricsSettings checks the flags of issue 9: formats and levels
// are validated with a message naming the flag, and --metrics-addr may not be
// --addr.
func TestLogAndMetricsSettings(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		env     map[string]string
		wantErr string
		check   func(t *testing.T, c *config)
	}{
		{name: "defaults", check: func(t *testing.T, c *config) {
			if c.logFormat != "auto" || c.logLevel != slog.LevelInfo || c.metricsAddr != "" {
				t.Errorf("format %q, level %v, metrics %q", c.logFormat, c.logLevel, c.metricsAddr)
			}
		}},
		{name: "flags", args: []string{"--log-format", "text", "--log-level", "debug", "--metrics-addr", "127.0.0.1:9090"}, check: func(t *testing.T, c *config) {
			if c.logFormat != "text" || c.logLevel != slog.LevelDebug || c.metricsAddr != "127.0.0.1:9090" {
				t.Errorf("format %q, level %v, metrics %q", c.logFormat, c.logLevel, c.metricsAddr)
			}
		}},
		{name: "environment", env: map[string]string{"ENTITYAPI_LOG_FORMAT": "text", "ENTITYAPI_LOG_LEVEL": "warn", "ENTITYAPI_METRICS_ADDR": ":9090"},
			check: func(t *testing.T, c *config) {
				if c.logFormat != "text" || c.logLevel != slog.LevelWarn || c.metricsAddr != ":9090" {
					t.Errorf("format %q, level %v, metrics %q", c.logFormat, c.logLevel, c.metricsAddr)
				}
			}},
		{name: "unknown format", args: []string{"--log-format", "xml"}, wantErr: "--log-format"},
		{name: "unknown level", args: []string{"--log-level", "loud"}, wantErr: "--log-level"},
		{name: "metrics on the main address", args: []string{"--addr", "127.0.0.1:8080", "--metrics-addr", "127.0.0.1:8080"}, wantErr: "--metrics-addr"},
		{name: "profiles on the metrics address", args: []string{"--addr", "127.0.0.1:8080", "--metrics-addr", "127.0.0.1:9090", "--debug-addr", "127.0.0.1:9090"}, wantErr: "--debug-addr"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseWith("serve", tc.args, tc.env)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want one naming %s", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tc.check(t, c)
		})
	}
}

// TestLogFormats writes one record in each format.
func TestLogFormats(t *testing.T) {
	var buf bytes.Buffer
	newLogger(&buf, "json", slog.LevelInfo).Info("hello", "n", 1)
	newLogger(&buf, "json", slog.LevelInfo).Debug("hidden below the level")
	var rec map[string]any
	if err := json.Unmarshal(buf.Bytes(), &rec); err != nil || rec["msg"] != "hello" {
		t.Errorf("json: %q (%v)", buf.String(), err)
	}
	buf.Reset()
	newLogger(&buf, "text", slog.LevelInfo).Info("hello", "n", 1)
	if got := buf.String(); !strings.Contains(got, "msg=hello n=1") {
		t.Errorf("text: %q", got)
	}
}

// TestLogFormatChoice: --log-format auto (the default) writes text lines to
// a terminal and JSON lines to anything else; text and json are kept
// whatever standard error is.
func TestLogFormatChoice(t *testing.T) {
	for _, tt := range []struct {
		setting  string
		terminal bool
		want     string
	}{
		{"auto", true, "text"},
		{"auto", false, "json"},
		{"text", false, "text"},
		{"json", true, "json"},
	} {
		if got := logFormat(tt.setting, tt.terminal); got != tt.want {
			t.Errorf("logFormat(%q, terminal %v) = %q, want %q", tt.setting, tt.terminal, got, tt.want)
		}
	}
	file, err := os.Create(filepath.Join(t.TempDir(), "log"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	if isTerminal(&bytes.Buffer{}) || isTerminal(file) {
		t.Error("a buffer or a file taken for a terminal")
	}
	// The master side of a pseudo-terminal is a terminal too.
	if pty, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0); err == nil {
		defer pty.Close()
		if !isTerminal(pty) {
			t.Error("a pseudo-terminal not taken for a terminal")
		}
	} else {
		t.Logf("no pseudo-terminal here (%v): the terminal case is logFormat's alone", err)
	}
}

// TestLogFormatSetting runs `entityapi migrate` with standard error in a
// buffer, no terminal: JSON lines by default, text lines when the flag or
// the variable asks for them.
func TestLogFormatSetting(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		env  string // ENTITYAPI_LOG_FORMAT
		text bool
	}{
		{name: "auto, no terminal"},
		{name: "the flag", args: []string{"--log-format", "text"}, text: true},
		{name: "the variable", env: "text", text: true},
		{name: "the flag over the variable", args: []string{"--log-format", "json"}, env: "text"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.env != "" {
				t.Setenv("ENTITYAPI_LOG_FORMAT", tt.env)
			}
			var stderr bytes.Buffer
			args := append([]string{"migrate", "--data-dir", t.TempDir()}, tt.args...)
			if err := run(context.Background(), args, io.Discard, &stderr); err != nil {
				t.Fatal(err)
			}
			line := stderr.String()
			var rec map[string]any
			isJSON := json.Unmarshal([]byte(line), &rec) == nil && rec["msg"] == "migrations applied"
			isText := strings.HasPrefix(line, "time=") && strings.Contains(line, `msg="migrations applied"`)
			if isJSON == tt.text || isText != tt.text {
				t.Errorf("want text lines: %v; got %q", tt.text, line)
			}
		})
	}
}

// TestMetricsAddr runs `entityapi serve --metrics-addr` in process: /metrics
// answers there and is 404 on the main address, which still serves the API.
func TestMetricsAddr(t *testing.T) {
	addr, metricsAddr := freeAddr(t), freeAddr(t)
	serveInProcess(t, "--addr", addr, "--metrics-addr", metricsAddr)
	get := func(url string) (int, string) { return getRetrying(t, url) }
	if status, _ := get("http://" + addr + "/healthz"); status != http.StatusOK {
		t.Fatalf("/healthz on --addr: %d", status)
	}
	if status, _ := get("http://" + addr + "/metrics"); status != http.StatusNotFound {
		t.Errorf("/metrics on --addr: %d, want 404", status)
	}
	status, body := get("http://" + metricsAddr + "/metrics")
	if status != http.StatusOK || !strings.Contains(body, `entityapi_http_requests_total{app="none",method="GET",route="/healthz",status="200"} 1`) {
		t.Errorf("/metrics on --metrics-addr: %d\n%s", status, body)
	}
}

// serveInProcess runs `entityapi serve` with args on a fresh SQLite
// database until the test ends.
func serveInProcess(t *testing.T, args ...string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	args = append([]string{"serve", "--log-level", "error", "--database-url", "sqlite:" + filepath.Join(t.TempDir(), "entityapi.db"), "--workers", "1"}, args...)
	go func() { done <- run(ctx, args, os.Stdout, os.Stderr) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
}

// getRetrying GETs url until the server listening there answers (20 s at
// most): the status and the body.
func getRetrying(t *testing.T, url string) (int, string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		res, err := http.Get(url)
		if err == nil {
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			return res.StatusCode, string(body)
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s: %v", url, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
