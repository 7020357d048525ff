package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/entityapi/entityapi/openapi"
	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/server/identity"
	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/authstore"
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

// testBundle is an engine of the back office on a fresh database, with an
// administrator of organization 1 (Main) and one of a second organization.
type testBundle struct {
	e     *engine.Engine
	store *storage.Store
	admin *identity.Principal // ROLE_ADMINISTRATOR of organization 1
	other *identity.Principal // ROLE_ADMINISTRATOR of another organization
}

// setup builds the bundle on a database of dialect.
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
	ctx := context.Background()
	as := authstore.New(s)
	other, err := as.CreateOrganization(ctx, "Elsewhere")
	if err != nil {
		t.Fatalf("organization: %v", err)
	}
	user := func(org int64, name string) *identity.Principal {
		u := &storage.User{OrganizationID: org, Username: name, Email: name + "@test.example",
			FirstName: "Test", LastName: name, Enabled: true}
		if err := as.CreateUser(ctx, u, []string{"ROLE_ADMINISTRATOR"}); err != nil {
			t.Fatalf("user %s: %v", name, err)
		}
		return &identity.Principal{Org: org, UserID: u.ID, ClientID: "test-" + name, Roles: []string{"ROLE_ADMINISTRATOR"}}
	}
	return &testBundle{e: e, store: s, admin: user(1, "admin"), other: user(other.ID, "elsewhere")}
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

// body is the bytes a reply would send.
func body(t *testing.T, r *jsonapi.Reply) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := r.Digest(&buf); err != nil {
		t.Fatalf("encode the reply: %v", err)
	}
	return buf.Bytes()
}

// decoded is a reply's body decoded as JSON.
func decoded(t *testing.T, r *jsonapi.Reply) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(body(t, r), &v); err != nil {
		t.Fatalf("decode %s: %v", body(t, r), err)
	}
	return v
}

// at follows a path of object keys and array indexes ("data", 0, "id")
// through a decoded document; nil when it leads nowhere.
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

// document is a JSON:API request document of one resource object.
func document(t *testing.T, obj string) *jsonapi.Document {
	t.Helper()
	var d jsonapi.Document
	if err := json.Unmarshal([]byte(`{"data":`+obj+`}`), &d); err != nil {
		t.Fatalf("document %s: %v", obj, err)
	}
	return &d
}

// problems is err as the list of problems it must be.
func problems(t *testing.T, err error) problem.List {
	t.Helper()
	list, ok := problem.From(err)
	if !ok {
		t.Fatalf("error %v (%T) is no problem", err, err)
	}
	return list
}

// createAccount creates an account with the attributes attrs for p through the engine and
// returns its id.
func (b *testBundle) createAccount(t *testing.T, p *identity.Principal, attrs string) string {
	t.Helper()
	reply, err := b.e.Create(b.request(t, "POST", "/api/accounts", "", engine.JSONAPI, p),
		document(t, `{"type":"accounts","attributes":`+attrs+`}`), nil)
	if err != nil {
		t.Fatalf("create account %s: %v", attrs, err)
	}
	id, _ := at(decoded(t, reply), "data", "id").(string)
	if id == "" {
		t.Fatalf("create account %s: no id", attrs)
	}
	return id
}
