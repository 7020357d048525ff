package batch_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/entityapi/entityapi/openapi"
	"github.com/entityapi/entityapi/server/batch"
	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/server/identity"
	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/authstore"
	"github.com/entityapi/entityapi/storage/jobs"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// backoffice is the back office's document, loaded and validated once per
// test binary: nothing changes a loaded document.
var backoffice = sync.OnceValues(func() (*openapi3.T, error) {
	doc, err := openapi3.NewLoader().LoadFromData(openapi.Backoffice)
	if err != nil {
		return nil, err
	}
	return doc, doc.Validate(context.Background())
})

// testBundle is the back office's batch pipeline on a fresh database, its
// queue without workers (a test runs the jobs), with an administrator and a
// manager of organization 1 and an administrator of another organization.
type testBundle struct {
	p       *batch.Pipeline
	e       *engine.Engine
	store   *storage.Store
	admin   *identity.Principal
	manager *identity.Principal
	other   *identity.Principal
}

func setup(t *testing.T, dialect string) *testBundle {
	t.Helper()
	doc, err := backoffice()
	if err != nil {
		t.Fatalf("document: %v", err)
	}
	s := storagetest.Open(t, dialect)
	e, err := engine.New(doc, s, "/admin", engine.Config{})
	if err != nil {
		t.Fatalf("engine.New: %v", err)
	}
	q, err := jobs.NewQueue(s, jobs.Config{NoWorkers: true})
	if err != nil {
		t.Fatalf("queue: %v", err)
	}
	t.Cleanup(func() { _ = q.Stop(context.Background()) })
	ctx := context.Background()
	as := authstore.New(s)
	elsewhere, err := as.CreateOrganization(ctx, "Elsewhere")
	if err != nil {
		t.Fatalf("organization: %v", err)
	}
	roles := map[int64][]string{}
	user := func(org int64, name, role string) *identity.Principal {
		u := &storage.User{OrganizationID: org, Username: name, Email: name + "@test.example",
			FirstName: "Test", LastName: name, Enabled: true}
		if err := as.CreateUser(ctx, u, []string{role}); err != nil {
			t.Fatalf("user %s: %v", name, err)
		}
		roles[u.ID] = []string{role}
		return &identity.Principal{Org: org, UserID: u.ID, ClientID: "test-" + name, Roles: []string{role}}
	}
	b := &testBundle{e: e, store: s, admin: user(1, "admin", "ROLE_ADMINISTRATOR"),
		manager: user(1, "manager", "ROLE_MANAGER"), other: user(elsewhere.ID, "elsewhere", "ROLE_ADMINISTRATOR")}
	b.p = batch.New(e, q, batch.Config{MaxBody: 64 << 10, MaxItem: 16 << 10, SyncTimeout: time.Minute, UploadTimeout: time.Minute,
		OwnerRoles: func(_ context.Context, user int64) ([]string, error) { return roles[user], nil }})
	return b
}

// eachDialect runs fn in parallel subtests, one per database, each on its
// own bundle.
func eachDialect(t *testing.T, fn func(t *testing.T, b *testBundle)) {
	t.Helper()
	for _, d := range storagetest.Dialects() {
		t.Run(d, func(t *testing.T) {
			t.Parallel()
			fn(t, setup(t, d))
		})
	}
}

// request is the engine's request for method on path (under /admin) with
// the query string query, as the edge would hand it over for p.
func (b *testBundle) request(t *testing.T, method, path, query string, f engine.Format, p *identity.Principal) *engine.Request {
	t.Helper()
	rt, params := b.e.Routes().Match(method, "/admin"+path)
	if rt == nil {
		t.Fatalf("no route for %s %s", method, path)
	}
	q, err := url.ParseQuery(query)
	if err != nil {
		t.Fatalf("query %q: %v", query, err)
	}
	return &engine.Request{Ctx: context.Background(), Route: rt, ID: params["id"], Path: "/admin" + path,
		Origin: "http://api.test", Query: q, Format: f, Principal: p}
}

// serve sends a batch of accounts (the data array's items) in mode ("" for
// the default) as p, and returns the recorded answer and Serve's error.
func (b *testBundle) serve(t *testing.T, mode string, f engine.Format, p *identity.Principal, items ...string) (*httptest.ResponseRecorder, error) {
	t.Helper()
	hr := httptest.NewRequest(http.MethodPatch, "/admin/api/accounts", strings.NewReader(`{"data":[`+strings.Join(items, ",")+`]}`))
	if mode != "" {
		hr.Header.Set("X-Mode", mode)
	}
	w := httptest.NewRecorder()
	err := b.p.Serve(w, hr, b.request(t, http.MethodPatch, "/api/accounts", "", f, p), nil)
	return w, err
}

// decode is a JSON body decoded.
func decode(t *testing.T, raw []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("decode %s: %v", raw, err)
	}
	return v
}

// replyBody is a reply's body decoded.
func replyBody(t *testing.T, r *jsonapi.Reply) any {
	t.Helper()
	var buf strings.Builder
	if err := r.Digest(&buf); err != nil {
		t.Fatalf("encode the reply: %v", err)
	}
	return decode(t, []byte(buf.String()))
}

// at follows a path of object keys and array indexes through a decoded
// document; nil when it leads nowhere.
func at(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

// accountNames are the names of organization 1's accounts, sorted.
func (b *testBundle) accountNames(t *testing.T) []any {
	t.Helper()
	reply, err := b.e.List(b.request(t, http.MethodGet, "/api/accounts", "sort=name", engine.Plain, b.admin))
	if err != nil {
		t.Fatalf("list accounts: %v", err)
	}
	var names []any
	list, _ := replyBody(t, reply).([]any)
	for _, a := range list {
		names = append(names, at(a, "name"))
	}
	return names
}

// runJob runs the one chunk job of operation id, as a worker would.
func runJob(t *testing.T, b *testBundle, id string) {
	t.Helper()
	op, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		t.Fatalf("operation id %q: %v", id, err)
	}
	if err := b.p.ProcessChunk(context.Background(), jobs.ChunkJob{Operation: op, Org: 1, Chunk: 1}); err != nil {
		t.Fatalf("ProcessChunk: %v", err)
	}
}
