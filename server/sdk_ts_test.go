package server_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestSDKTypeScript compiles the TypeScript round trip (scripts/sdk-ts/roundtrip.mts:
// openapi-fetch over the types in gen/sdk/ts/) with the pinned tsc under --strict and runs
// it with node against a server on every test database. Its requests go through
// contractProxy, so the responses a TypeScript client receives are validated against
// the public documents and counted like the Go tests' ones. Without node or
// scripts/node_modules the test is skipped, except in CI (CI=true), where it fails.
func TestSDKTypeScript(t *testing.T) {
	node, tsc := typeScriptTools(t)
	out := t.TempDir()
	start := time.Now()
	compile := exec.Command(tsc, "-p", filepath.Join("..", "scripts", "sdk-ts"), "--outDir", out)
	if msg, err := compile.CombinedOutput(); err != nil {
		t.Fatalf("tsc --strict: %v\n%s", err, msg)
	}
	t.Logf("tsc: %v", time.Since(start).Round(10*time.Millisecond))
	// Node resolves openapi-fetch from the compiled program's folder upwards.
	modules, err := filepath.Abs(filepath.Join("..", "scripts", "node_modules"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(modules, filepath.Join(out, "node_modules")); err != nil {
		t.Fatal(err)
	}
	program := filepath.Join(out, "scripts", "sdk-ts", "roundtrip.mjs")
	k, err := contractOnce()
	if err != nil {
		t.Fatalf("loading the contract: %v", err)
	}

	eachAPI(t, func(t *testing.T, a *api) {
		proxy, failures := contractProxy(t, k, a.base)
		p := principalNamed(t, "admin")
		run := exec.Command(node, program)
		run.Env = append(os.Environ(), "ENTITYAPI_URL="+proxy, "ENTITYAPI_CLIENT_ID="+p.client, "ENTITYAPI_CLIENT_SECRET="+p.client+"-secret")
		msg, err := run.CombinedOutput()
		if err != nil {
			t.Fatalf("node roundtrip.mjs: %v\n%s", err, msg)
		}
		if steps := strings.Count(string(msg), "ok  "); steps != 10 {
			t.Errorf("the round trip reported %d steps, want 10:\n%s", steps, msg)
		}
		if f := failures(); len(f) > 0 {
			t.Errorf("the TypeScript client received %d responses that break the contract:\n%s", len(f), strings.Join(f, "\n"))
		}
	})
}

// TestSDKContractProxy makes sure the proxy of the TypeScript round trip does fail it: a
// response that breaks the document is recorded, one that keeps it is not.
func TestSDKContractProxy(t *testing.T) {
	t.Parallel()
	fake := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/vnd.api+json")
		w.Header().Set("X-Request-ID", "fake") // every answer must carry one (contract_test.go)
		if r.URL.Path == "/admin/api/countries/DE" {
			_, _ = w.Write([]byte(`{"data":{"type":"countries"}}`)) // no id
			return
		}
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"errors":[{"status":"404","title":"not found http exception"}],"meta":{"requestId":"fake"}}`))
	}))
	defer fake.Close()
	shared, err := contractOnce()
	if err != nil {
		t.Fatalf("loading the contract: %v", err)
	}
	// A contract of its own: the fake server's answers must not count in make test's figures.
	k := &contract{routers: shared.routers, jsonapi: shared.jsonapi, covered: map[string]int{}}
	proxy, failures := contractProxy(t, k, fake.URL)
	for _, path := range []string{"/admin/api/countries/DE", "/admin/api/countries/XX"} {
		req, _ := http.NewRequest(http.MethodGet, proxy+path, nil)
		req.Header.Set("Accept", "application/vnd.api+json")
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_ = res.Body.Close()
	}
	if f := failures(); len(f) != 1 || !strings.Contains(f[0], "/admin/api/countries/DE") {
		t.Fatalf("failures %q, want one for /admin/api/countries/DE", f)
	}
	if k.checked != 1 {
		t.Fatalf("%d responses validated, want 1 (the 404)", k.checked)
	}
}

// typeScriptTools finds node on PATH and the pinned tsc in scripts/node_modules.
func typeScriptTools(t *testing.T) (node, tsc string) {
	t.Helper()
	node, err := exec.LookPath("node")
	tsc = filepath.Join("..", "scripts", "node_modules", ".bin", "tsc")
	if err == nil {
		_, err = os.Stat(tsc)
	}
	if err != nil {
		msg := fmt.Sprintf("TypeScript SDK: node or the pinned tsc is missing (%v), the round trip does not run (install Node 20 and run `cd scripts && npm ci`)", err)
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + "; CI=true: a missing toolchain fails")
		}
		t.Skip(msg)
	}
	return node, tsc
}

// contractProxy forwards requests to target and validates each response against the
// public documents on its way back, for clients that are not written in Go. It keeps the
// Host header, so the links in the answers point at the proxy. failures lists what broke
// the contract so far.
func contractProxy(t *testing.T, k *contract, target string) (url string, failures func() []string) {
	rec := &recordingTB{TB: t}
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		out, err := http.NewRequestWithContext(r.Context(), r.Method, target+r.URL.RequestURI(), bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		out.Header, out.Host = r.Header.Clone(), r.Host
		res, err := http.DefaultTransport.RoundTrip(out)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		raw, err := io.ReadAll(res.Body)
		_ = res.Body.Close()
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		rec.check(k, out, body, res, raw)
		for key, values := range res.Header {
			w.Header()[key] = values
		}
		w.WriteHeader(res.StatusCode)
		_, _ = w.Write(raw)
	}))
	t.Cleanup(proxy.Close)
	return proxy.URL, rec.all
}

// recordingTB lets the contract helper run outside the test's goroutine: its Fatalf
// ends the one check (with a checkFailure panic) instead of the test, and check records it.
type recordingTB struct {
	testing.TB
	mu       sync.Mutex
	failures []string
}

// checkFailure is what Fatalf panics with.
type checkFailure string

func (r *recordingTB) Helper() {}

func (r *recordingTB) Fatalf(format string, args ...any) {
	panic(checkFailure(fmt.Sprintf(format, args...)))
}

// check runs one contract check and records its failure, naming the request.
func (r *recordingTB) check(k *contract, req *http.Request, reqBody []byte, res *http.Response, body []byte) {
	defer func() {
		p := recover()
		if p == nil {
			return
		}
		msg, ok := p.(checkFailure)
		if !ok {
			panic(p)
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		r.failures = append(r.failures, fmt.Sprintf("%s %s: %s", req.Method, req.URL.RequestURI(), msg))
	}()
	k.check(r, req, reqBody, res, body)
}

func (r *recordingTB) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.failures...)
}
