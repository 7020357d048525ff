package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// The browser test of the docs pages (issue 8): headless Chromium loads each page
// from a running server, every operation of the document must be listed, "Try it
// out" must reach the server with the token given to Authorize, and the page must
// make no request to another host. UPDATE_SCREENSHOTS=1 writes docs/screenshots/.

// browserPath finds Chromium: $CHROMIUM, else chromium or chromium-browser on
// PATH. Without one the test is skipped, except in CI (CI=true), where it fails.
func browserPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "docs pages: no Chromium on PATH, the browser test does not run (apt-get install -y chromium, or set CHROMIUM to its path)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + "; CI=true: a missing browser fails")
	}
	t.Skip(msg)
	return ""
}

// pageEvents is what one page did, recorded from the browser's events.
type pageEvents struct {
	mu       sync.Mutex
	requests []string // method and URL of every request the page made
	problems []string // failed loads, error statuses, exceptions, console errors
}

func (s *pageEvents) add(list *[]string, format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	*list = append(*list, fmt.Sprintf(format, args...))
}

// snapshot copies what was recorded so far.
func (s *pageEvents) snapshot() (requests, problems []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests), slices.Clone(s.problems)
}

func (s *pageEvents) record(ev any) {
	switch e := ev.(type) {
	case *network.EventRequestWillBeSent:
		s.add(&s.requests, "%s %s", e.Request.Method, e.Request.URL)
	case *network.EventWebSocketCreated:
		s.add(&s.requests, "WEBSOCKET %s", e.URL)
	case *network.EventResponseReceived:
		if e.Response.Status >= 400 {
			s.add(&s.problems, "%d from %s", e.Response.Status, e.Response.URL)
		}
	case *network.EventLoadingFailed:
		if !e.Canceled {
			s.add(&s.problems, "loading failed: %s %s", e.ErrorText, e.BlockedReason)
		}
	case *runtime.EventExceptionThrown:
		d := e.ExceptionDetails
		text := d.Text
		if d.Exception != nil {
			text += " " + d.Exception.Description
		}
		s.add(&s.problems, "exception: %s (%s:%d)", text, d.URL, d.LineNumber)
	case *runtime.EventConsoleAPICalled:
		if e.Type == runtime.ConsoleAPICalledTypeError || e.Type == runtime.ConsoleAPICalledTypeAssert {
			var args []string
			for _, a := range e.Args {
				args = append(args, string(a.Value)+a.Description)
			}
			s.add(&s.problems, "console.%s: %s", e.Type, strings.Join(args, " "))
		}
	case *cdplog.EventEntryAdded:
		if e.Entry.Level == cdplog.EntryLevelError {
			s.add(&s.problems, "%s error: %s %s", e.Entry.Source, e.Entry.Text, e.Entry.URL)
		}
	}
}

// docsServer is a real server over HTTP, as newAPI builds it, that also notes the
// header of every request. With UPDATE_SCREENSHOTS it
// listens on 127.0.0.1:8080 when that port is free, the address of `make run`,
// which the page shows.
type docsServer struct {
	base string
	mu   sync.Mutex
	seen map[string]http.Header // "GET /path" -> the last request's header
}

func startDocsServer(t *testing.T, store *storage.Store) *docsServer {
	t.Helper()
	cfg := server.Config{BackofficeBase: "/admin", MaxBody: 64 << 10,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Jobs:   jobs.Config{Workers: 1, PollEvery: 100 * time.Millisecond, RescueAfter: 5 * time.Second}}
	srv, err := server.New(cfg, store)
	if err != nil {
		t.Fatalf("server.New: %v", err)
	}
	t.Cleanup(srv.Close)
	createPrincipals(t, store)
	ds := &docsServer{seen: map[string]http.Header{}}
	hs := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ds.mu.Lock()
		ds.seen[r.Method+" "+r.URL.Path] = r.Header.Clone()
		ds.mu.Unlock()
		srv.ServeHTTP(w, r)
	}))
	if os.Getenv("UPDATE_SCREENSHOTS") != "" {
		if l, err := net.Listen("tcp", "127.0.0.1:8080"); err == nil {
			hs.Listener.Close()
			hs.Listener = l
		}
	}
	hs.Start()
	t.Cleanup(hs.Close)
	ds.base = hs.URL
	return ds
}

// header returns the header of the last request to path (nil: none came).
func (ds *docsServer) header(method, path string) http.Header {
	ds.mu.Lock()
	defer ds.mu.Unlock()
	return ds.seen[method+" "+path]
}

// documentOperations lists the element ids Swagger UI gives the operations of a
// document ("operations-<tag>-<operationId>", one per tag) and the tags' sections.
func documentOperations(t *testing.T, address string) (ops, tags []string) {
	t.Helper()
	res, body := fetchDocs(t, http.MethodGet, address, nil)
	if res.StatusCode != 200 {
		t.Fatalf("GET %s: %d", address, res.StatusCode)
	}
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(body, &doc); err != nil {
		t.Fatal(err)
	}
	tagSet := map[string]bool{}
	for path, item := range doc.Paths {
		for method, raw := range item {
			if !slices.Contains([]string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}, method) {
				continue
			}
			var op struct {
				OperationID string   `json:"operationId"`
				Tags        []string `json:"tags"`
			}
			if err := json.Unmarshal(raw, &op); err != nil {
				t.Fatal(err)
			}
			if op.OperationID == "" {
				t.Fatalf("%s %s %s: no operationId", address, method, path)
			}
			if len(op.Tags) == 0 {
				op.Tags = []string{"default"}
			}
			for _, tag := range op.Tags {
				ops = append(ops, "operations-"+tag+"-"+op.OperationID)
				tagSet[tag] = true
			}
		}
	}
	for tag := range tagSet {
		tags = append(tags, "operations-tag-"+tag)
	}
	sort.Strings(ops)
	sort.Strings(tags)
	return ops, tags
}

// insertText inserts text at the focus as one input event, as a paste does.
func insertText(text string) chromedp.Action[chromedp.Void] {
	return func(ctx context.Context, tt *chromedp.Target) (chromedp.Void, error) {
		_, err := cdp.Call(ctx, tt, input.InsertText, input.InsertTextParams{Text: text})
		return chromedp.Void{}, err
	}
}

func TestDocsPagesInBrowser(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: this test drives headless Chromium; make test runs it")
	}
	chromium := browserPath(t)
	start := time.Now()
	// The pages do not depend on the database: one is enough (PostgreSQL when
	// the suite runs on it).
	dialects := storagetest.Dialects()
	ds := startDocsServer(t, storagetest.Open(t, dialects[len(dialects)-1]))
	origin, err := url.Parse(ds.base)
	if err != nil {
		t.Fatal(err)
	}

	// Bounds, not timings: on a loaded two-CPU CI machine Swagger UI took
	// 15 s to render the back office's operations and a Try-it-out step
	// more than 10 s (a clean-clone run failed so), where it takes a
	// second alone.
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromium),
		chromedp.NoSandbox, // CI runs as root
		chromedp.DisableGPU,
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("force-device-scale-factor", "1"),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	defer cancelAlloc()
	browserCtx, cancelBrowser := chromedp.NewContext(allocCtx)
	defer cancelBrowser()
	if err := chromedp.Do(browserCtx); err != nil { // starts the browser
		t.Fatalf("starting %s: %v", chromium, err)
	}
	t.Logf("browser started in %v", time.Since(start).Round(time.Millisecond))

	// The one operation "Try it out" runs on each page, and its token's client.
	tryIt := map[string]struct{ op, id, path, principal string }{
		"backoffice": {"operations-countries-getCountry", "DE", "/admin/api/countries/DE", "admin"},
		"storefront": {"operations-countries-getCountry", "DE", "/api/countries/DE", "storefront"},
	}
	tokens := &api{t: t, base: ds.base, tokens: map[string]string{}}

	for _, p := range docsPages {
		t.Run(p.app, func(t *testing.T) {
			pageStart := time.Now()
			wantOps, wantTags := documentOperations(t, ds.base+p.document)
			tab, closeTab := chromedp.NewContext(browserCtx)
			defer closeTab()
			s := &pageEvents{}
			if err := chromedp.Listen(tab, s.record); err != nil {
				t.Fatal(err)
			}
			// Content-Security-Policy violations, seen from the page.
			watch := `window.__violations = []; document.addEventListener('securitypolicyviolation',
				e => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));`
			addScript := func(ctx context.Context, tt *chromedp.Target) (chromedp.Void, error) {
				_, err := cdp.Call(ctx, tt, page.AddScriptToEvaluateOnNewDocument, page.AddScriptToEvaluateOnNewDocumentParams{Source: watch})
				return chromedp.Void{}, err
			}
			if err := chromedp.Do(tab,
				addScript,
				chromedp.EmulateViewport(1280, 900),
				chromedp.Navigate(ds.base+p.page),
			); err != nil {
				t.Fatalf("loading %s: %v", p.page, err)
			}
			// Swagger UI renders the operations once it has the document.
			count := fmt.Sprintf(`document.querySelectorAll('#swagger-ui .opblock').length >= %d`, len(wantOps))
			if _, err := chromedp.Run(tab, chromedp.Poll[chromedp.Void](count, chromedp.WithPollingTimeout(60*time.Second))); err != nil {
				n, _ := chromedp.Run(tab, chromedp.Evaluate[int](`document.querySelectorAll('#swagger-ui .opblock').length`))
				_, problems := s.snapshot()
				t.Fatalf("%s: %d operations rendered, want %d: %v\nproblems: %v", p.page, n, len(wantOps), err, problems)
			}
			gotOps, err := chromedp.Run(tab, chromedp.Evaluate[[]string](
				`Array.from(document.querySelectorAll('#swagger-ui .opblock')).map(e => e.id).sort()`))
			if err != nil {
				t.Fatal(err)
			}
			gotTags, err := chromedp.Run(tab, chromedp.Evaluate[[]string](
				`Array.from(document.querySelectorAll('#swagger-ui h3.opblock-tag')).map(e => e.id).sort()`))
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(gotOps, wantOps) {
				t.Errorf("%s lists other operations than %s:\n got %v\nwant %v", p.page, p.document, gotOps, wantOps)
			}
			if !slices.Equal(gotTags, wantTags) {
				t.Errorf("%s lists other resources (tags) than %s:\n got %v\nwant %v", p.page, p.document, gotTags, wantTags)
			}
			t.Logf("%s: %d operations in %d tag sections rendered in %v", p.page, len(gotOps), len(gotTags), time.Since(pageStart).Round(time.Millisecond))

			if os.Getenv("UPDATE_SCREENSHOTS") != "" {
				// The operations, from the servers and Authorize bar down.
				scroll := `window.scrollTo(0, document.querySelector('#swagger-ui .scheme-container').getBoundingClientRect().top + window.scrollY)`
				if err := chromedp.Do(tab, chromedp.Evaluate[chromedp.Void](scroll)); err != nil {
					t.Fatal(err)
				}
				png, err := chromedp.Run(tab, chromedp.CaptureScreenshot())
				if err != nil {
					t.Fatal(err)
				}
				out := filepath.Join("..", "docs", "screenshots", p.app+"-doc.png")
				if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(out, png, 0o644); err != nil {
					t.Fatal(err)
				}
				t.Logf("wrote %s (%d bytes)", out, len(png))
				if err := chromedp.Do(tab, chromedp.Evaluate[chromedp.Void](`window.scrollTo(0, 0)`)); err != nil {
					t.Fatal(err)
				}
			}

			// Authorize with a token, then "Try it out" on one operation.
			try := tryIt[p.app]
			token := tokens.token(try.principal)
			op := "#" + try.op
			steps := []struct {
				name string
				do   chromedp.Action[chromedp.Void]
			}{
				{"open Authorize", chromedp.Click(chromedp.CSS(`#swagger-ui .auth-wrapper button.authorize`))},
				{"focus the token field", chromedp.Focus(chromedp.CSS(`.dialog-ux .modal-ux input[type=text]`))},
				{"paste the token", insertText(token)}, // as a paste: one input event, not 3 key events a character
				{"authorize", chromedp.Click(chromedp.CSS(`.dialog-ux .modal-ux button.authorize[type=submit]`))},
				{"close the dialog", chromedp.Click(chromedp.CSS(`.dialog-ux .modal-ux button.btn-done`))},
				{"wait for the dialog to close", chromedp.WaitNotPresent(chromedp.CSS(`.dialog-ux`))},
				{"open the operation", chromedp.Click(chromedp.CSS(op + ` .opblock-summary-control`))},
				{"Try it out", chromedp.Click(chromedp.CSS(op + ` button.try-out__btn`))},
				// Try it out fills in the document's examples; the id is typed over.
				{"select the id", chromedp.Evaluate[chromedp.Void](`document.querySelector('` + op + ` tr[data-param-name="id"] input').select()`)},
				{"type the id", chromedp.SendKeys(chromedp.CSS(op+` tr[data-param-name="id"] input`), try.id)},
				{"Execute", chromedp.Click(chromedp.CSS(op + ` button.execute`))},
				{"wait for the response", chromedp.WaitVisible(chromedp.CSS(op + ` .live-responses-table tbody .response-col_status`))},
			}
			for _, step := range steps {
				stepCtx, cancel := context.WithTimeout(tab, 45*time.Second)
				err := chromedp.Do(stepCtx, step.do)
				cancel()
				if err != nil {
					// What the form holds: the parameters and Swagger UI's validation errors.
					form, _ := chromedp.Run(tab, chromedp.Evaluate[string](`Array.from(document.querySelectorAll('`+op+` tr[data-param-name]'))
						.map(tr => tr.dataset.paramName + '=' + ((tr.querySelector('input, select, textarea') || {}).value || ''))
						.concat(Array.from(document.querySelectorAll('`+op+` .validation-errors li')).map(li => li.textContent)).join('\\n')`))
					_, problems := s.snapshot()
					t.Fatalf("%s: Try it out: %s: %v\nproblems: %v\n%s", p.page, step.name, err, problems, form)
				}
			}
			status, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS(op+` .live-responses-table tbody .response-col_status`)))
			if err != nil {
				t.Fatal(err)
			}
			if strings.TrimSpace(status) != "200" {
				body, _ := chromedp.Run(tab, chromedp.Text(chromedp.CSS(op+` .live-responses-table tbody .response-col_description`)))
				curl, _ := chromedp.Run(tab, chromedp.Text(chromedp.CSS(op+` .curl-command`)))
				t.Errorf("%s: Try it out on %s answered %q, want 200\n%s\n%s", p.page, try.path, status, curl, body)
			}
			if h := ds.header(http.MethodGet, try.path); h == nil {
				t.Errorf("%s: Try it out: GET %s did not reach the server", p.page, try.path)
			} else if got := h.Get("Authorization"); got != "Bearer "+token {
				t.Errorf("%s: Try it out: GET %s came with Authorization %q, want the token given to Authorize", p.page, try.path, got)
			} else if got := h.Get("Accept"); got != "application/vnd.api+json" {
				t.Errorf("%s: Try it out: GET %s came with Accept %q, want JSON:API", p.page, try.path, got)
			}

			violations, err := chromedp.Run(tab, chromedp.Evaluate[[]string](`window.__violations`))
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range violations {
				t.Errorf("%s: Content-Security-Policy violation: %s", p.page, v)
			}
			requests, problems := s.snapshot()
			for _, problem := range problems {
				t.Errorf("%s: %s", p.page, problem)
			}
			// Every request went to this server (data: URLs are Swagger UI's icons).
			outside := 0
			for _, req := range requests {
				method, address, _ := strings.Cut(req, " ")
				u, err := url.Parse(address)
				if err == nil && (u.Scheme == "data" || u.Scheme == "blob") && method != "WEBSOCKET" {
					continue
				}
				if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host != origin.Host {
					t.Errorf("%s: request to another host than the server (%s): %s", p.page, origin.Host, req)
					outside++
				}
			}
			if len(requests) < 5 {
				t.Errorf("%s: only %d requests recorded: %v", p.page, len(requests), requests)
			}
			t.Logf("%s: %d requests, %d to another host; page checked in %v", p.page, len(requests), outside, time.Since(pageStart).Round(time.Millisecond))
		})
	}
	t.Logf("browser test took %v", time.Since(start).Round(time.Millisecond))
}
