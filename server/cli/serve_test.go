package cli

// `entityapi serve` as a newcomer meets it: the banner's addresses answer and
// its token command works pasted into a shell; a busy port is one error line
// and no banner; a shutdown logs no error.

import (
	"bytes"
	"context"
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
	"github.com/entityapi/entityapi/storage/authstore"
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
// it comes after the few start-up lines and stays the last thing written
// until a request comes; every document and page it names answers; the
// lines it offers to paste into a shell, run by bash, set BASE and TOKEN and
// read the regions of Germany with them; the shutdown that follows logs no
// error.
func TestServeBanner(t *testing.T) {
	bash := needCommand(t, "bash", "it runs the banner's lines")
	needCommand(t, "curl", "the banner's lines call it")
	needCommand(t, "sed", "the banner's lines call it")
	addr := freeAddr(t)
	stderr, stop := startServe(t, "--demo", "--addr", addr)
	var out string
	deadline := time.Now().Add(60 * time.Second)
	for {
		out = stderr.String()
		if strings.Contains(out, "\n  back-office API:") && strings.HasSuffix(out, "as a pattern of URLs)\n\n") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no banner within 60 s:\n%s", out)
		}
		time.Sleep(50 * time.Millisecond)
	}
	before, banner, _ := strings.Cut(out, "\n  back-office API:")
	banner = "  back-office API:" + banner
	if lines := strings.Count(before, "\n"); lines > 3 || !strings.Contains(before, "entityapi listening") {
		t.Errorf("%d start-up lines before the banner, want the listening line among at most 3:\n%s", lines, before)
	}
	time.Sleep(time.Second)
	if now := stderr.String(); now != out {
		t.Errorf("lines after the banner, before any request:\n%s", strings.TrimPrefix(now, out))
	}
	for _, want := range []string{"/admin/api/doc", "/admin/api/openapi.yaml", "http://" + addr + "/api/doc", "/api/openapi.yaml", "http://" + addr + "/\n"} {
		if !strings.Contains(banner, want) {
			t.Errorf("the banner does not name %s:\n%s", want, banner)
		}
	}
	for _, u := range bannerURL.FindAllString(banner, -1) {
		if strings.HasSuffix(u, "/countries") || strings.HasSuffix(u, "/api") {
			continue // need a token; BASE is no page
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
	// The lines, as a person copies them: after "paste into a shell ...:",
	// up to the note on curl -g.
	_, lines, ok := strings.Cut(banner, "paste into a shell (a token of demo-backoffice):\n")
	lines, _, _ = strings.Cut(lines, "  (curl -g")
	if !ok || !strings.Contains(lines, "export TOKEN=") {
		t.Fatalf("no lines to paste in the banner:\n%s", banner)
	}
	script := "set -eo pipefail\n" + lines + `printf '\n%s %s\n' "$BASE" "$TOKEN"`
	if out, err := exec.Command(bash, "-n", "-c", script).CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v\n%s\n%s", err, out, lines)
	}
	got, err := exec.Command(bash, "-c", script).Output()
	if err != nil {
		t.Fatalf("the banner's lines: %v\n%s\nprinted %q", err, lines, got)
	}
	regions, last, _ := strings.Cut(strings.TrimSuffix(string(got), "\n"), "\n")
	base, token, _ := strings.Cut(last, " ")
	if base != "http://"+addr+"/admin/api" || strings.Count(token, ".") != 2 {
		t.Errorf("BASE %q, TOKEN %q: want the back office and a JWT", base, token)
	}
	if !strings.Contains(regions, `"DE-`) {
		t.Errorf("the banner's example printed %q, want the regions of Germany", regions)
	}
	if err := stop(); err != nil {
		t.Errorf("serve returned %v after its context ended", err)
	}
	if log := stderr.String(); strings.Contains(log, "level=ERROR") {
		t.Errorf("the shutdown logged an error:\n%s", log)
	}
}

// TestBannerContent: what the banner says with and without --demo, other
// bases and a public URL: the addresses, every demo client of the demo data
// with the rule of their secrets, and the BASE (and in demo mode TOKEN)
// lines to paste.
func TestBannerContent(t *testing.T) {
	for _, tt := range []struct {
		name string
		args []string
		want []string
		not  []string
	}{
		{"demo", []string{"--demo"}, []string{
			"back-office API:  http://127.0.0.1:8080/admin/api/countries\n",
			"storefront API:   http://127.0.0.1:8080/api/countries (guests welcome)\n",
			"both docs pages:  http://127.0.0.1:8080/\n",
			"\n    export BASE=http://127.0.0.1:8080/admin/api\n",
			"\n    export TOKEN=$(curl ",
			`"client_id":"demo-backoffice","client_secret":"demo-backoffice-secret"`,
			`curl -g -H "Authorization: Bearer $TOKEN" "$BASE/regions?filter[country]=DE&page[size]=3"`,
		}, nil},
		{"no demo", nil, []string{"\n    export BASE=http://127.0.0.1:8080/admin/api\n", "entityapi client create"},
			[]string{"demo-", "export TOKEN"}},
		{"other bases behind a public URL", []string{"--public-url", "https://api.example.com/v1/", "--backoffice-base", "/bo",
			"--storefront-base", "/shop"}, []string{
			"https://api.example.com/v1/bo/api/doc\n", "https://api.example.com/v1/shop/api/openapi.yaml\n",
			"both docs pages:  https://api.example.com/v1/\n", "\n    export BASE=https://api.example.com/v1/bo/api\n",
		}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := parseWith("serve", tt.args, nil)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			writeBanner(&b, bannerBase(cfg.publicURL, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}), cfg)
			banner := b.String()
			want := tt.want
			if cfg.demo {
				if !strings.Contains(banner, `the secret of each is its id followed by "-secret"`) {
					t.Errorf("the banner does not say what the secrets are")
				}
				for _, c := range authstore.DemoClients() {
					want = append(want, "\n    "+c.ID+" ")
					if c.Secret != c.ID+"-secret" {
						t.Errorf("demo client %s: secret %q, not what the banner says", c.ID, c.Secret)
					}
				}
			}
			for _, w := range want {
				if !strings.Contains(banner, w) {
					t.Errorf("the banner lacks %q", w)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(banner, n) {
					t.Errorf("the banner has %q", n)
				}
			}
			if t.Failed() {
				t.Logf("the banner:\n%s", banner)
			}
		})
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
