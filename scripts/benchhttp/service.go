package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/entityapi/entityapi/scripts/internal/localserver"
)

const jsonAPI = "application/vnd.api+json"

// build is one entityapi binary under measure: the working tree ("new") or
// the -baseline revision ("old").
type build struct {
	name   string // "service", "baseline" or "service (PgBouncer)" (pooler.go)
	bin    string
	env    []string // added to its environment (-traced: the OTLP exporter's)
	args   []string // added to `serve`'s arguments (the pooled service's --database-pooler)
	pooled bool     // reaches its database through -pooler
}

// buildBinaries builds the working tree and, when rev is set, that git
// revision (exported with git archive into a temporary directory, so no
// worktree of the repository is touched).
func buildBinaries(ctx context.Context, tmp, rev string) ([]build, error) {
	root, err := gitOutput(ctx, "", "rev-parse", "--show-toplevel")
	if err != nil {
		return nil, fmt.Errorf("run from inside the repository: %w", err)
	}
	builds := []build{{name: "service", bin: filepath.Join(tmp, "entityapi")}}
	if err := goBuild(ctx, root, builds[0].bin); err != nil {
		return nil, err
	}
	if rev == "" {
		return builds, nil
	}
	src := filepath.Join(tmp, "baseline-src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return nil, err
	}
	defer os.RemoveAll(src)
	archive := exec.CommandContext(ctx, "git", "-C", root, "archive", "--format=tar", rev)
	untar := exec.CommandContext(ctx, "tar", "-x", "-C", src)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		return nil, err
	}
	untar.Stdin = pipe
	archive.Stderr, untar.Stderr = os.Stderr, os.Stderr
	if err := untar.Start(); err != nil {
		return nil, err
	}
	if err := archive.Run(); err != nil {
		return nil, fmt.Errorf("git archive %s: %w", rev, err)
	}
	if err := untar.Wait(); err != nil {
		return nil, fmt.Errorf("tar of %s: %w", rev, err)
	}
	old := build{name: "baseline", bin: filepath.Join(tmp, "entityapi-baseline")}
	if err := goBuild(ctx, src, old.bin); err != nil {
		return nil, fmt.Errorf("baseline %s: %w", rev, err)
	}
	return append(builds, old), nil
}

func goBuild(ctx context.Context, dir, out string) error {
	if err := localserver.Build(ctx, dir, ".", out); err != nil {
		return fmt.Errorf("go build in %s: %w", dir, err)
	}
	return nil
}

func gitOutput(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	return strings.TrimSpace(string(out)), err
}

// service is a running `entityapi serve`.
type service struct {
	name    string
	base    string // http://127.0.0.1:PORT
	token   string
	dataDir string
	dbURL   string // its --database-url ("" on SQLite: <dataDir>/entityapi.db)
	proc    *localserver.Process
	client  *http.Client
}

// startService starts b's binary on a free loopback port with the demo data,
// waits until it is ready and takes a token.
func startService(ctx context.Context, b build, dir, databaseURL string) (*service, error) {
	addr, err := localserver.FreeAddr()
	if err != nil {
		return nil, err
	}
	s := &service{name: b.name, dataDir: filepath.Join(dir, "data"), dbURL: databaseURL,
		client: &http.Client{Timeout: 10 * time.Minute}}
	args := []string{"serve", "--demo", "--data-dir", s.dataDir, "--addr", addr, "--token-ttl", "86400"}
	if databaseURL != "" {
		args = append(args, "--database-url", databaseURL)
	}
	args = append(args, b.args...)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	// The keyed POST target gives every request a key of its own: more
	// than a caller's default bound in one measurement. A build from
	// before the setting ignores the variable.
	env := append([]string{"ENTITYAPI_IDEMPOTENCY_MAX_KEYS=10000000"}, b.env...)
	if s.proc, err = localserver.Start(b.name, b.bin, args, addr, filepath.Join(dir, "server.log"), env...); err != nil {
		return nil, err
	}
	s.base = s.proc.Base()
	if err := s.proc.AwaitReady(ctx, s.client); err != nil {
		s.stop(true)
		return nil, err
	}
	if s.token, err = localserver.Token(ctx, s.client, s.base); err != nil {
		s.stop(true)
		return nil, err
	}
	return s, nil
}

// sqlitePath is the service's SQLite file.
func (s *service) sqlitePath() string { return filepath.Join(s.dataDir, "entityapi.db") }

// stop ends the service (SIGTERM, then SIGKILL) and shows its log when failed.
func (s *service) stop(failed bool) { s.proc.Stop(failed) }

// do sends req and returns the answer's body and headers; it fails unless the
// status is want.
func (s *service) do(req *http.Request, want int) ([]byte, http.Header, error) {
	res, err := s.client.Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, nil, err
	}
	if res.StatusCode != want {
		return nil, nil, fmt.Errorf("%s %s: status %d (want %d): %.1000s", req.Method, req.URL.RequestURI(), res.StatusCode, want, raw)
	}
	return raw, res.Header, nil
}

// api sends a JSON:API request with the token; body nil for none.
func (s *service) api(ctx context.Context, method, target string, body []byte, want int, headers ...string) ([]byte, http.Header, error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.base+target, r)
	if err != nil {
		return nil, nil, err
	}
	req.Header.Set("Accept", jsonAPI)
	if body != nil {
		req.Header.Set("Content-Type", jsonAPI)
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	return s.do(req, want)
}

// counters is what the service's /metrics tells of its work so far.
type counters struct {
	mallocs    float64
	statements float64 // -1 when the service has no entityapi_db_statements_total
}

// metricMallocs and metricStatements are the /metrics series read per
// measurement: Go's allocation count and (from issue 16 on) the service's
// SQL statement count, summed over its labels.
const (
	metricMallocs    = "go_memstats_mallocs_total"
	metricStatements = "entityapi_db_statements_total"
)

func (s *service) counters(ctx context.Context) (counters, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.base+"/metrics", nil)
	if err != nil {
		return counters{}, err
	}
	raw, _, err := s.do(req, http.StatusOK)
	if err != nil {
		return counters{}, fmt.Errorf("metrics: %w", err)
	}
	return parseCounters(raw)
}

// parseCounters reads the two counters from the Prometheus text format.
func parseCounters(raw []byte) (counters, error) {
	c := counters{mallocs: -1, statements: -1}
	sc := bufio.NewScanner(bytes.NewReader(raw))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		for _, m := range []struct {
			name string
			into *float64
		}{{metricMallocs, &c.mallocs}, {metricStatements, &c.statements}} {
			rest, ok := strings.CutPrefix(line, m.name)
			if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '{') {
				continue
			}
			fields := strings.Fields(rest[strings.LastIndexByte(rest, '}')+1:])
			if len(fields) == 0 {
				return c, fmt.Errorf("metrics: no value in %q", line)
			}
			v, err := strconv.ParseFloat(fields[0], 64)
			if err != nil {
				return c, fmt.Errorf("metrics: %q: %w", line, err)
			}
			*m.into = max(*m.into, 0) + v
		}
	}
	if c.mallocs < 0 {
		return c, fmt.Errorf("metrics: no %s", metricMallocs)
	}
	return c, sc.Err()
}
