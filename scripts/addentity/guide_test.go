package addentity

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/entityapi/entityapi/openapi/openapitest"
	"github.com/entityapi/entityapi/scripts/internal/localserver"
)

// guide is the section of ARCHITECTURE.md this test follows.
const guide = "## Adding an entity"

// The files the guide writes: one of each kind, the whole of what adding an
// entity takes.
var (
	specFile      = regexp.MustCompile(`^openapi/(backoffice|storefront)/([a-z]+)\.yaml$`)
	modelFile     = regexp.MustCompile(`^storage/[a-z_]+\.go$`)
	migrationFile = regexp.MustCompile(`^storage/migrations/([0-9]{4})_[a-z0-9_]+\.tx\.up\.sql$`)
)

// TestGuideAddsAnEntity follows the guide in a scratch copy of the repository's
// tracked files: it writes the guide's three files, runs its sh blocks (make
// generate, make build), starts the built binary on SQLite with the demo data and
// creates (with the documented example), reads, lists and deletes a record of
// the new type with the demo administrator's token, validating every answer
// against the document the server serves. It takes 30 to 60 s here (the scratch
// copy builds the whole module from the build cache), so make test-short
// (go test -short) leaves it out; make test, which CI runs, always runs it.
func TestGuideAddsAnEntity(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: this test builds the whole module in a scratch copy; make test runs it")
	}
	began := time.Now()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(root, "ARCHITECTURE.md"))
	if err != nil {
		t.Fatal(err)
	}
	todo, err := steps(string(md), guide)
	if err != nil {
		t.Fatal(err)
	}
	scratch := t.TempDir()
	copyTracked(t, root, scratch)
	app, typ := checkFiles(t, todo, scratch)

	// The steps build the whole module: 30-60 s on a quiet machine, but
	// 4m55s was seen in CI beside the other packages' tests on two
	// processors, past the five minutes this test once gave the steps and
	// the server together. The bounds only catch a hang: the steps get
	// their own, the server its own once they are done.
	build, cancelBuild := context.WithTimeout(context.Background(), 20*time.Minute)
	defer cancelBuild()
	for _, s := range todo {
		if s.File != "" {
			write(t, filepath.Join(scratch, s.File), []byte(s.Text), 0o644)
			continue
		}
		run(build, t, scratch, s.Text)
	}
	t.Logf("files written, generated and built in %s", time.Since(began).Round(time.Second))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	bin := filepath.Join(scratch, "bin", "entityapi")
	addr, err := localserver.FreeAddr()
	if err != nil {
		t.Fatal(err)
	}
	srv, err := localserver.Start("server", bin, []string{"serve", "--demo", "--addr", addr,
		"--data-dir", filepath.Join(scratch, "data")}, addr, filepath.Join(scratch, "server.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { srv.Stop(t.Failed()) }()
	if err := srv.AwaitReady(ctx, http.DefaultClient); err != nil {
		t.Fatal(err)
	}
	token, err := localserver.Token(ctx, http.DefaultClient, srv.Base())
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(ctx, t, srv.Base(), prefix(app), token)
	roundTrip(t, c, typ)
	t.Logf("the guide's entity %s served in %s", typ, time.Since(began).Round(time.Second))
}

// checkFiles holds the guide to its promise: a document, a model and a
// migration, each new, the migration numbered next. It returns the document's
// application and resource type (its file name).
func checkFiles(t *testing.T, todo []step, scratch string) (app, typ string) {
	t.Helper()
	var spec, model, migration []string
	for _, s := range todo {
		if s.File == "" {
			continue
		}
		if _, err := os.Stat(filepath.Join(scratch, s.File)); err == nil {
			t.Fatalf("the guide writes %s, which the repository already has: give the example another name", s.File)
		}
		switch {
		case specFile.MatchString(s.File):
			spec = specFile.FindStringSubmatch(s.File)
		case modelFile.MatchString(s.File):
			model = []string{s.File}
		case migrationFile.MatchString(s.File):
			migration = migrationFile.FindStringSubmatch(s.File)
		default:
			t.Fatalf("the guide writes %s, which is none of a document, a model or a migration", s.File)
		}
	}
	if spec == nil || model == nil || migration == nil {
		t.Fatalf("the guide must write a document, a model and a migration; it writes %q, %q and %q", spec, model, migration)
	}
	existing, err := filepath.Glob(filepath.Join(scratch, "storage", "migrations", "*.sql"))
	if err != nil {
		t.Fatal(err)
	}
	last := filepath.Base(slices.Max(existing))[:4]
	if migration[1] <= last {
		t.Fatalf("the guide's migration %s is not numbered after the last one, %s: renumber it in ARCHITECTURE.md", migration[0], last)
	}
	return spec[1], spec[2]
}

// prefix is the base path of an application's API.
func prefix(app string) string {
	if app == "backoffice" {
		return "/admin"
	}
	return ""
}

// roundTrip creates a record of typ from the create operation's documented
// example, reads it, finds it in the list and deletes it.
func roundTrip(t *testing.T, c *client, typ string) {
	t.Helper()
	collection := c.prefix + "/api/" + typ
	body := c.example(http.MethodPost, "/api/"+typ)
	created := c.do(http.MethodPost, collection, body, http.StatusCreated)
	id, _ := created["data"].(map[string]any)["id"].(string)
	if id == "" {
		t.Fatalf("POST %s answered no id: %v", collection, created)
	}
	var sent struct {
		Data struct {
			Attributes map[string]any `json:"attributes"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &sent); err != nil {
		t.Fatal(err)
	}
	got := c.do(http.MethodGet, collection+"/"+id, nil, http.StatusOK)
	attrs, _ := got["data"].(map[string]any)["attributes"].(map[string]any)
	for name, want := range sent.Data.Attributes {
		if fmt.Sprint(attrs[name]) != fmt.Sprint(want) {
			t.Errorf("GET %s/%s: %s = %v, sent %v", collection, id, name, attrs[name], want)
		}
	}
	list := c.do(http.MethodGet, collection, nil, http.StatusOK)
	items, _ := list["data"].([]any)
	if len(items) != 1 || items[0].(map[string]any)["id"] != id {
		t.Errorf("GET %s: want the one record %s, got %v", collection, id, list["data"])
	}
	c.do(http.MethodDelete, collection+"/"+id, nil, http.StatusNoContent)
	c.do(http.MethodGet, collection+"/"+id, nil, http.StatusNotFound)
}

// client calls one application of the scratch server with a token and holds
// every answer to the document that server serves.
type client struct {
	t      *testing.T
	ctx    context.Context
	base   string
	prefix string
	token  string
	doc    *openapi3.T
	router routers.Router
}

func newClient(ctx context.Context, t *testing.T, base, prefix, token string) *client {
	t.Helper()
	c := &client{t: t, ctx: ctx, base: base, prefix: prefix, token: token}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+prefix+"/api/openapi.json", nil)
	if err != nil {
		t.Fatal(err)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != http.StatusOK {
		t.Fatalf("the served document: %d %v", res.StatusCode, err)
	}
	if c.doc, err = openapi3.NewLoader().LoadFromData(raw); err != nil {
		t.Fatal(err)
	}
	if c.router, err = gorillamux.NewRouter(c.doc); err != nil {
		t.Fatal(err)
	}
	return c
}

// example is the JSON:API request example of an operation of the served document.
func (c *client) example(method, path string) []byte {
	c.t.Helper()
	item := c.doc.Paths.Find(path)
	if item == nil || item.GetOperation(method) == nil || item.GetOperation(method).RequestBody == nil {
		c.t.Fatalf("the served document has no %s %s with a body", method, path)
	}
	mt := item.GetOperation(method).RequestBody.Value.Content.Get("application/vnd.api+json")
	if mt == nil || mt.Example == nil {
		c.t.Fatalf("%s %s has no JSON:API request example", method, path)
	}
	raw, err := json.Marshal(mt.Example)
	if err != nil {
		c.t.Fatal(err)
	}
	return raw
}

// do sends a JSON:API request, wants status and validates the answer against
// the served document (status, headers, body); it returns the body decoded.
func (c *client) do(method, path string, body []byte, status int) map[string]any {
	c.t.Helper()
	req, err := http.NewRequestWithContext(c.ctx, method, c.base+path, bytes.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Accept", "application/vnd.api+json")
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/vnd.api+json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	if res.StatusCode != status {
		c.t.Fatalf("%s %s: %d, want %d\n%s", method, path, res.StatusCode, status, raw)
	}
	route, params, err := c.router.FindRoute(req)
	if err != nil {
		c.t.Fatalf("%s %s is not an operation of the served document: %v", method, path, err)
	}
	if err := openapitest.CheckResponse(c.ctx, route, params, req, body, res, raw); err != nil {
		c.t.Fatalf("%s %s: the answer breaks the served document: %v\n%s", method, path, err, raw)
	}
	var doc map[string]any
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &doc); err != nil {
			c.t.Fatalf("%s %s: %v\n%s", method, path, err, raw)
		}
	}
	return doc
}

// copyTracked copies the files of root that git tracks or would (untracked
// files not ignored), as the working tree has them (uncommitted changes
// included, deleted files left out), into dir: in a clean clone, the commit.
func copyTracked(t *testing.T, root, dir string) {
	t.Helper()
	out, err := exec.Command("git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard").Output()
	if err != nil {
		t.Fatalf("git ls-files: %v", err)
	}
	for _, name := range strings.Split(strings.TrimRight(string(out), "\x00"), "\x00") {
		src := filepath.Join(root, name)
		info, err := os.Lstat(src)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		raw, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(dir, name), raw, info.Mode().Perm())
	}
}

// write writes file, making its folder first.
func write(t *testing.T, file string, data []byte, perm os.FileMode) {
	t.Helper()
	err := os.MkdirAll(filepath.Dir(file), 0o755)
	if err == nil {
		err = os.WriteFile(file, data, perm)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// run runs a sh block of the guide in dir with bash, stopping at the first
// failing command. The build flags stay the caller's: the dependencies then come
// from the build cache the repository's own builds filled (-trimpath would share
// the scratch copy's packages between runs but compile every dependency once
// more, minutes on a cold cache); the module's own packages are compiled again,
// as their directory is part of their cache key.
func run(ctx context.Context, t *testing.T, dir, script string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, "bash", "-euo", "pipefail", "-c", script)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("the guide's commands failed: %v\n%s\n%s", err, script, out)
	}
}
