package server_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/entityapi/entityapi/openapi"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestPrismReplay is the partners' contract test: Stoplight Prism (pinned in
// scripts/package.json), an outside validator, runs as a validating proxy (`prism proxy
// --errors`) in front of a real server, and every documented operation of both
// applications is replayed through it in both formats, error answers included. Any
// violation Prism reports, in a request or a response, fails the test: a response
// that breaks the document comes back as Prism's 500 (which the contract helper
// refuses), and every violation, an undocumented status too, is a `Violation:` line
// in Prism's log. It runs when PRISM_REPLAY=1 (scripts/prism-replay.sh, called by
// .ci/run), on SQLite: it checks the documents, not the storage. PRISM_LOG names a
// file that receives the Prisms' whole log.
func TestPrismReplay(t *testing.T) {
	t.Parallel()
	if os.Getenv("PRISM_REPLAY") != "1" {
		t.Skip("the Prism replay runs with PRISM_REPLAY=1 (scripts/prism-replay.sh)")
	}
	prism, err := filepath.Abs(filepath.Join("..", "scripts", "node_modules", ".bin", "prism"))
	if err == nil {
		_, err = os.Stat(prism)
	}
	if err != nil {
		t.Fatalf("Prism is not installed (%v): run `cd scripts && npm ci`", err)
	}
	a := newAPI(t, storagetest.Open(t, "sqlite"))
	front, logs, problems := prismFront(t, prism, a.base)
	tokens := map[string]string{}
	through := func(t *testing.T, as string) *api { // the server seen through Prism, failing t
		p := *a
		p.t, p.base, p.tokens, p.as = t, front, tokens, as
		return &p
	}
	t.Run("reads", func(t *testing.T) { everyReadAndRelationshipOperation(t, through(t, "admin")) })
	t.Run("writes", func(t *testing.T) { everyWriteOperation(t, through(t, "admin")) })
	t.Run("others", func(t *testing.T) { prismOtherAnswers(t, through(t, "admin")) })
	t.Run("storefront", func(t *testing.T) { prismStorefront(t, through(t, "storefront")) })
	t.Run("webhooks", func(t *testing.T) { prismWebhooks(t, through(t, "admin")) })

	if missed := notReplayed(t); len(missed) > 0 {
		t.Errorf("operations the replay did not reach: %s", strings.Join(missed, ", "))
	}
	if name := os.Getenv("PRISM_LOG"); name != "" {
		if err := os.WriteFile(name, []byte(logs()), 0o644); err != nil {
			t.Error(err)
		}
	}
	if t.Failed() {
		t.Logf("the last lines of Prism's log:\n%s", tail(logs()))
	}
	violations := problems()
	for _, line := range strings.Split(logs(), "\n") {
		if strings.Contains(line, "Violation:") || strings.Contains(line, "prism/errors#") {
			violations = append(violations, line)
		}
	}
	if len(violations) > 0 {
		if len(violations) > 40 {
			violations = append(violations[:40], "…")
		}
		t.Errorf("Prism reported violations of the documents:\n%s", strings.Join(violations, "\n"))
	}
}

// notReplayed lists the documented operations that no validated response covered
// (the contract helper counts them), so that the replay cannot shrink unnoticed. The
// token operations are left out: the harness fetches the tokens through Prism, but
// outside the contract helper.
func notReplayed(t *testing.T) []string {
	k, err := contractOnce()
	if err != nil {
		t.Fatal(err)
	}
	ops, err := contractOperations()
	if err != nil {
		t.Fatal(err)
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	var missed []string
	for _, op := range ops {
		covered := strings.HasSuffix(op, ":createToken")
		for key := range k.covered {
			covered = covered || strings.HasPrefix(key, op+" ")
		}
		if !covered {
			missed = append(missed, op)
		}
	}
	return missed
}

// prismOtherAnswers replays what the read and write tests leave out: the lists, the
// organization's update, and the documented error answers the server gives to valid
// requests: 400 for a sort on no field, 401 for a malformed token, 404 for an unknown
// record, 403 for a role that may not write, 409 for a duplicate; and a plain-format
// create.
// prismWebhooks replays the webhook operations the generic loops do not
// reach (webhooks are served outside the generic engine, and the write
// loop knows only the engine's types): a change, a test message and a
// delete, in both formats.
func prismWebhooks(t *testing.T, a *api) {
	for _, headers := range []map[string]string{jsonAPI, plain} {
		body := func(jsonapi, plainBody string) string {
			if headers["Accept"] == mediaJSONAPI {
				return jsonapi
			}
			return plainBody
		}
		id, _ := createWebhook(t, a, "https://hooks.example.com/replay", `["accounts.created"]`)
		a.do(http.MethodPatch, "/admin/api/webhooks/"+id, headers,
			body(`{"data":{"type":"webhooks","id":"`+id+`","attributes":{"enabled":false}}}`, `{"enabled":false}`)).want(t, http.StatusOK)
		a.do(http.MethodPost, "/admin/api/webhooks/"+id+"/deliveries", headers,
			body(`{"data":{"type":"webhookdeliveries"}}`, `{}`)).want(t, http.StatusAccepted)
		a.do(http.MethodDelete, "/admin/api/webhooks/"+id, headers, "").want(t, http.StatusNoContent)
	}
}

func prismOtherAnswers(t *testing.T, a *api) {
	for _, op := range documentedOperations(t) {
		segs := strings.Split(strings.TrimPrefix(op.path, "/admin/api/"), "/")
		if op.public || op.method != http.MethodGet {
			continue
		}
		formats := []map[string]string{jsonAPI, plain}
		if strings.Contains(op.path, "/relationships/") {
			formats = formats[:1] // JSON:API only
		}
		for _, headers := range formats {
			bad := map[string]string{"Accept": headers["Accept"], "Authorization": "Bearer not-a-jwt"}
			if segs[0] == "search" {
				// The search takes a required filter[searchText], and its sort
				// is an enum Prism checks itself: a bad type is the service's 400.
				a.do(op.method, op.path+"?filter[searchText]=acme", bad, "").want(t, http.StatusUnauthorized)
				a.do(op.method, op.path+"?filter[searchText]=acme&page[size]=2", headers, "").want(t, http.StatusOK)
				a.do(op.method, op.path+"?filter[searchText]=acme&filter[entities]=countries", headers, "").want(t, http.StatusBadRequest)
				continue
			}
			a.do(op.method, op.path, bad, "").want(t, http.StatusUnauthorized)
			switch {
			case len(segs) == 1:
				a.do(op.method, op.path+"?page[size]=2", headers, "").want(t, http.StatusOK)
				a.do(op.method, op.path+"?sort=noSuchField", headers, "").want(t, http.StatusBadRequest)
			case len(segs) == 2 && segs[1] == "1" && segs[0] != "organizations":
				a.do(op.method, "/admin/api/"+segs[0]+"/999999", headers, "").want(t, http.StatusNotFound)
			}
		}
	}
	for _, headers := range []map[string]string{jsonAPI, plain} {
		body := func(jsonapi, plainBody string) string {
			if headers["Accept"] == mediaJSONAPI {
				return jsonapi
			}
			return plainBody
		}
		a.do(http.MethodPatch, "/admin/api/organizations/1", headers, body(`{"data":{"type":"organizations","id":"1"}}`, `{}`)).want(t, http.StatusOK)
		a.do(http.MethodPatch, "/admin/api/accounts/999999", headers, body(`{"data":{"type":"accounts","id":"999999"}}`, `{}`)).want(t, http.StatusNotFound)
		a.do(http.MethodPatch, "/admin/api/asyncoperations/999999", headers,
			body(`{"data":{"type":"asyncoperations","id":"999999","attributes":{"status":"cancelled"}}}`, `{"status":"cancelled"}`)).want(t, http.StatusNotFound)
		a.do(http.MethodDelete, "/admin/api/accounts/999999", headers, "").want(t, http.StatusNotFound)
		a.do(http.MethodGet, "/admin/api/countries/ZZ", headers, "").want(t, http.StatusNotFound)
	}
	a.do(http.MethodPost, "/admin/api/accounts", plain, `{"name":"Plain, no owner"}`).want(t, http.StatusCreated)
	a.do(http.MethodPost, "/admin/api/weightunits", jsonAPI, `{"data":{"type":"weightunits","id":"dup"}}`).want(t, http.StatusCreated)
	a.do(http.MethodPost, "/admin/api/weightunits", jsonAPI, `{"data":{"type":"weightunits","id":"dup"}}`).want(t, http.StatusConflict)
	a.do(http.MethodPost, "/admin/api/weightunits", plain, `{"id":"dup"}`).want(t, http.StatusConflict)
	viewer := a.caller("viewer")
	viewer.do(http.MethodPost, "/admin/api/accounts", jsonAPI, `{"data":{"type":"accounts","attributes":{"name":"No"}}}`).want(t, http.StatusForbidden)
	viewer.do(http.MethodPost, "/admin/api/accounts", plain, `{"name":"No"}`).want(t, http.StatusForbidden)
	// an atomic request (its own media type): results, no result with data, an error
	a.atomic(`{"op":"add","data":{"type":"accounts","lid":"p","attributes":{"name":"Prism atomic"}}},
		{"op":"update","ref":{"type":"accounts","lid":"p"},"data":{"type":"accounts","lid":"p","attributes":{"name":"Prism atomic 2"}}}`).want(t, http.StatusOK)
	a.atomic(`{"op":"remove","ref":{"type":"weightunits","id":"dup"}}`).want(t, http.StatusNoContent)
	a.atomic(`{"op":"add","data":{"type":"accounts","attributes":{"name":""}}}`).want(t, http.StatusBadRequest)
}

// prismStorefront replays every storefront operation on its example record in both
// formats (relationship endpoints in JSON:API only), and an unknown country.
func prismStorefront(t *testing.T, a *api) {
	for path, item := range loadDoc(t, openapi.Storefront).Paths.Map() {
		if item.Get == nil || item.Get.Security != nil && len(*item.Get.Security) == 0 {
			continue
		}
		address := path
		for _, p := range append(item.Parameters, item.Get.Parameters...) {
			if p.Value.In == "path" {
				address = strings.ReplaceAll(address, "{"+p.Value.Name+"}", fmt.Sprint(p.Value.Example))
			}
		}
		if path == "/api/search" {
			address += "?filter[searchText]=germany" // the search's text is required
		}
		a.do(http.MethodGet, address, jsonAPI, "").want(t, http.StatusOK)
		if !strings.Contains(path, "/relationships/") {
			a.do(http.MethodGet, address, plain, "").want(t, http.StatusOK)
		}
	}
	for _, headers := range []map[string]string{jsonAPI, plain} {
		a.do(http.MethodGet, "/api/countries/ZZ", headers, "").want(t, http.StatusNotFound)
	}
}

// prismFront starts one Prism per application and format in front of target, and a
// front door that hands each request to the right one: /admin is the back office,
// anything else the storefront; a JSON:API Accept or Content-Type the JSON:API
// copy, anything else the plain one. logs returns what the Prisms printed so far, and
// problems the answers Prism made itself (application/problem+json: its 500 that
// lists a response's violations, its 422 for a request that breaks the document).
func prismFront(t *testing.T, prism, target string) (front string, logs func() string, problems func() []string) {
	t.Helper()
	dir := t.TempDir()
	var mu sync.Mutex
	var out bytes.Buffer
	var made []string
	proxies := map[string]*httputil.ReverseProxy{}
	for _, app := range []struct {
		name, base string
		raw        []byte
	}{{"backoffice", "/admin", openapi.Backoffice}, {"storefront", "/", openapi.Storefront}} {
		for _, format := range []string{mediaJSONAPI, mediaPlain} {
			doc := prismDocument(t, app.name, app.raw, app.base, format, dir)
			port := freePort(t)
			cmd := exec.Command(prism, "proxy", doc, target, "--errors", "--host", "127.0.0.1", "--port", port)
			cmd.Env = append(os.Environ(), "NO_COLOR=1", "FORCE_COLOR=0")
			cmd.Stdout = &lockedWriter{mu: &mu, w: &out}
			cmd.Stderr = cmd.Stdout
			cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
			if err := cmd.Start(); err != nil {
				t.Fatalf("prism: %v", err)
			}
			t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
			waitListening(t, "127.0.0.1:"+port, func() string { mu.Lock(); defer mu.Unlock(); return out.String() })
			u, _ := url.Parse("http://127.0.0.1:" + port)
			proxy := httputil.NewSingleHostReverseProxy(u)
			proxy.ModifyResponse = func(res *http.Response) error {
				if !strings.HasPrefix(res.Header.Get("Content-Type"), "application/problem+json") {
					return nil
				}
				body, err := io.ReadAll(res.Body)
				_ = res.Body.Close()
				res.Body = io.NopCloser(bytes.NewReader(body))
				mu.Lock()
				defer mu.Unlock()
				made = append(made, fmt.Sprintf("%s %s: Prism answered %d: %s", res.Request.Method, res.Request.URL.RequestURI(), res.StatusCode, body))
				return err
			}
			proxies[app.name+" "+format] = proxy
		}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		app, format := "storefront", mediaPlain
		if strings.HasPrefix(r.URL.Path, "/admin/") {
			app = "backoffice"
		}
		if strings.Contains(r.Header.Get("Accept"), mediaJSONAPI) || strings.Contains(r.Header.Get("Content-Type"), mediaJSONAPI) {
			format = mediaJSONAPI
		}
		proxies[app+" "+format].ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, func() string { mu.Lock(); defer mu.Unlock(); return out.String() },
		func() []string { mu.Lock(); defer mu.Unlock(); return append([]string(nil), made...) }
}

// freePort is a TCP port on 127.0.0.1 that was free a moment ago.
func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
}

// waitListening waits (at most a minute) until addr accepts connections.
func waitListening(t *testing.T, addr string, logs func() string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for ctx.Err() == nil {
		if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			_ = c.Close()
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("prism did not start on %s:\n%s", addr, tail(logs()))
}

// tail is the last lines of a log.
func tail(s string) string {
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(s))
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) > 30 {
		lines = lines[len(lines)-30:]
	}
	return strings.Join(lines, "\n")
}

// lockedWriter lets the Prism processes write to one buffer.
type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
