package cli

// `entityapi serve` as a newcomer meets it: the banner's addresses answer and
// its token command works pasted into a shell; a busy port is one error line
// and no banner; a shutdown logs no error.

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/entityapi/entityapi/server/cli/batchclient"
)

// startServe runs `entityapi serve` in process with args on a fresh SQLite
// database; stop cancels its context (as SIGTERM does) and returns what run
// returned.
func startServe(t *testing.T, args ...string) (stderr *syncBuffer, stop func() error) {
	t.Helper()
	stderr = &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	args = append([]string{"serve", "--log-format", "text", "--workers", "1",
		"--database-url", "sqlite:" + filepath.Join(t.TempDir(), "entityapi.db")}, args...)
	go func() { done <- run(ctx, args, &bytes.Buffer{}, stderr) }()
	var once sync.Once
	var err error
	stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case err = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("serve did not return 30 s after its context ended")
			}
		})
		return err
	}
	t.Cleanup(func() { _ = stop() })
	return stderr, stop
}

// bannerURL finds the addresses the banner names.
var bannerURL = regexp.MustCompile(`http://[^\s']+`)

// TestServeBanner starts `serve --demo` and reads its banner as a newcomer:
// every document and docs page it names answers, the token command pasted
// into bash gets a token, and the shutdown that follows logs no error.
func TestServeBanner(t *testing.T) {
	bash := needCommand(t, "bash", "it runs the banner's command")
	needCommand(t, "curl", "the banner's command calls it")
	addr := freeAddr(t)
	stderr, stop := startServe(t, "--demo", "--addr", addr)
	var banner string
	deadline := time.Now().Add(60 * time.Second)
	for {
		out := stderr.String()
		if i := strings.Index(out, "\n  back-office API:"); i >= 0 && strings.Contains(out[i:], "/oauth2-token\n\n") {
			banner = out[i:]
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no banner within 60 s:\n%s", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, want := range []string{"/admin/api/doc", "/admin/api/openapi.yaml", "http://" + addr + "/api/doc", "/api/openapi.yaml"} {
		if !strings.Contains(banner, want) {
			t.Errorf("the banner does not name %s:\n%s", want, banner)
		}
	}
	for _, u := range bannerURL.FindAllString(banner, -1) {
		if strings.HasSuffix(u, "/countries") || strings.HasSuffix(u, "/oauth2-token") {
			continue // need a token, or a POST
		}
		res, err := http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusOK {
			t.Errorf("GET %s (named by the banner): %d", u, res.StatusCode)
		}
	}
	// The command, as a person copies it: the lines after "get a token:".
	_, command, ok := strings.Cut(banner, "  get a token:\n")
	command, _, _ = strings.Cut(command, "\n\n")
	if !ok || !strings.Contains(command, "curl") {
		t.Fatalf("no token command in the banner:\n%s", banner)
	}
	if out, err := exec.Command(bash, "-n", "-c", command).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v\n%s\n%s", err, out, command)
	}
	out, err := exec.Command(bash, "-c", command).Output()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err != nil || json.Unmarshal(out, &tok) != nil || tok.AccessToken == "" {
		t.Fatalf("the token command: %v\n%s\nprinted %q", err, command, out)
	}
	if err := stop(); err != nil {
		t.Errorf("serve returned %v after its context ended", err)
	}
	if log := stderr.String(); strings.Contains(log, "level=ERROR") {
		t.Errorf("the shutdown logged an error:\n%s", log)
	}
}

// TestServeBusyPort: a taken --addr or --metrics-addr is one error line,
// before any banner.
func TestServeBusyPort(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"--addr", []string{"--addr", busy.Addr().String()}, "--addr or ENTITYAPI_ADDR chooses another"},
		{"--metrics-addr", []string{"--addr", freeAddr(t), "--metrics-addr", busy.Addr().String()}, "--metrics-addr or ENTITYAPI_METRICS_ADDR chooses another"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			args := append([]string{"serve", "--demo", "--log-format", "text", "--workers", "1",
				"--database-url", "sqlite:" + filepath.Join(t.TempDir(), "entityapi.db")}, tt.args...)
			err := run(context.Background(), args, &bytes.Buffer{}, &stderr)
			if err == nil {
				t.Fatal("serve on a busy address returned no error")
			}
			msg := err.Error()
			if !strings.Contains(msg, busy.Addr().String()+": the address is already in use") || !strings.Contains(msg, tt.want) || strings.Contains(msg, "\n") {
				t.Errorf("error %q, want one line naming the address and %q", msg, tt.want)
			}
			if batchclient.ExitCode(err) != 1 {
				t.Errorf("exit code %d, want 1", batchclient.ExitCode(err))
			}
			if out := stderr.String(); strings.Contains(out, "listening") || strings.Contains(out, "API:") {
				t.Errorf("announced although it failed:\n%s", out)
			}
		})
	}
}

// TestServeShutdownLogsNoError stops serve the way SIGTERM does (its context
// ends) as soon as it answers, within the first seconds when River's leader
// starts its maintenance (a stop then logged `ERROR ... context canceled`):
// the shutdown is clean and logs no error.
func TestServeShutdownLogsNoError(t *testing.T) {
	addr := freeAddr(t)
	stderr, stop := startServe(t, "--addr", addr)
	deadline := time.Now().Add(60 * time.Second)
	for {
		res, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			res.Body.Close()
			if res.StatusCode == http.StatusOK {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("not ready within 60 s:\n%s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(time.Second)
	if err := stop(); err != nil {
		t.Errorf("serve returned %v after its context ended", err)
	}
	log := stderr.String()
	if strings.Contains(log, "level=ERROR") || !strings.Contains(log, "shutting down") {
		t.Errorf("the shutdown logged an error, or did not happen:\n%s", log)
	}
}
