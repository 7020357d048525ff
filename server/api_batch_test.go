package server_test

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage/authstore"
	"github.com/entityapi/entityapi/storage/jobs"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// batchAccounts builds a batch body of n accounts; blank lists the indexes
// whose name is blank.
func batchAccounts(n int, prefix string, blank ...int) string {
	var b strings.Builder
	b.WriteString(`{"data":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		name := fmt.Sprintf("%s %d", prefix, i)
		for _, k := range blank {
			if k == i {
				name = ""
			}
		}
		fmt.Fprintf(&b, `{"type":"accounts","attributes":{"name":%q}}`, name)
	}
	b.WriteString(`]}`)
	return b.String()
}

// awaitOperation polls an operation until it has ended and returns it.
func (a *api) awaitOperation(t *testing.T, id string) *result {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		r := a.do(http.MethodGet, "/admin/api/asyncoperations/"+id, jsonAPI, "").want(t, 200)
		switch get(r.doc, "data/attributes/status") {
		case "success", "failed", "cancelled":
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("operation %s did not end: %s", id, r.body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestBatchItemErrors(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		r := a.do(http.MethodPatch, "/admin/api/accounts", jsonAPI, batchAccounts(250, "Batch", 5, 120, 240)).want(t, 202)
		id, _ := get(r.doc, "data/id").(string)
		checkValues(t, r, map[string]any{
			"data/type": "asyncoperations", "data/attributes/status": "new", "data/attributes/progress": nil,
			"data/attributes/elapsedTime": 0.0, "data/attributes/summary": nil, "data/attributes/entityType": "accounts",
			"data/relationships/organization/data/type": "organizations",
		})
		if got := r.header.Get("Content-Location"); got != a.base+"/admin/api/asyncoperations/"+id {
			t.Fatalf("Content-Location = %q", got)
		}
		done := a.awaitOperation(t, id)
		checkValues(t, done, map[string]any{
			"data/attributes/status": "success", "data/attributes/progress": 100.0,
			"data/attributes/summary/readCount": 250.0, "data/attributes/summary/writeCount": 247.0,
			"data/attributes/summary/errorCount": 3.0, "data/attributes/summary/createCount": 247.0,
			"data/attributes/summary/updateCount": 0.0,
		})
		errs := a.do(http.MethodGet, "/admin/api/asyncoperations/"+id+"/errors", jsonAPI, "").want(t, 200)
		for i, want := range []struct{ id, pointer string }{
			{id + "-1-1", "/data/5/attributes/name"}, {id + "-2-1", "/data/120/attributes/name"}, {id + "-3-1", "/data/240/attributes/name"},
		} {
			checkValues(t, errs, map[string]any{
				fmt.Sprintf("data/%d/id", i): want.id, fmt.Sprintf("data/%d/attributes/source/pointer", i): want.pointer,
				fmt.Sprintf("data/%d/attributes/status", i): 400.0, fmt.Sprintf("data/%d/attributes/title", i): "not blank constraint",
			})
		}
		count := a.do(http.MethodGet, "/admin/api/accounts?page[size]=1", map[string]string{"Accept": "application/vnd.api+json", "X-Include": "totalCount"}, "").want(t, 200)
		if got := count.header.Get("X-Include-Total-Count"); got != "247" {
			t.Fatalf("accounts after the batch: %s, want 247", got)
		}
	})
}

// checkValues compares values of a decoded body.
func checkValues(t *testing.T, r *result, want map[string]any) {
	t.Helper()
	for path, w := range want {
		if got := r.value(path); fmt.Sprint(got) != fmt.Sprint(w) {
			t.Errorf("%s = %v, want %v\n%s", path, got, w, r.body)
		}
	}
}

// stagedOperation publishes an operation of one chunk for a principal without
// enqueueing it, so that it stays new while a test looks at it.
func (a *api) stagedOperation(t *testing.T, owner string) string {
	t.Helper()
	ctx := context.Background()
	org, err := authstore.New(a.store).OrganizationByName(ctx, principalNamed(t, owner).org)
	if err != nil {
		t.Fatal(err)
	}
	user, err := authstore.New(a.store).UserByLogin(ctx, owner)
	if err != nil {
		t.Fatal(err)
	}
	op := &jobs.Operation{OrganizationID: org.ID, OwnerID: &user.ID, EntityType: "accounts"}
	if err := jobs.CreateOperation(ctx, a.store.Conn, op); err != nil {
		t.Fatal(err)
	}
	items := []byte(`[{"index":0,"raw":{"type":"accounts","attributes":{"name":"Staged"}}}]`)
	if err := jobs.StageChunk(ctx, a.store.Conn, &jobs.Chunk{OperationID: op.ID, Number: 1, Items: items}); err != nil {
		t.Fatal(err)
	}
	if err := jobs.PublishOperation(ctx, a.store.Conn, op.ID, 1, nil); err != nil {
		t.Fatal(err)
	}
	return strconv.FormatInt(op.ID, 10)
}

// operationCount counts the operations in the database, visible or not.
func (a *api) operationCount(t *testing.T) int {
	t.Helper()
	n, err := a.store.DB().NewSelect().Table("async_operations").Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return int(n)
}

// eventCount counts the change events recorded so far, numbered or not
// yet (PostgreSQL's outbox).
func (a *api) eventCount(t *testing.T) int {
	t.Helper()
	n, err := a.store.DB().NewSelect().Table("events").Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if a.store.Dialect() == "postgres" {
		m, err := a.store.DB().NewSelect().Table("event_outbox").Count(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		n += m
	}
	return int(n)
}

func TestBatchRefusals(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		one := `{"data":[{"type":"accounts","attributes":{"name":"One"}}]}`
		r := a.do(http.MethodPatch, "/admin/api/accounts", plain, `[{"name":"One"}]`).want(t, 405)
		if got := r.header.Get("Allow"); got != "OPTIONS, GET, HEAD, POST, DELETE" {
			t.Errorf("Allow = %q", got)
		}
		runCases(t, a, []apiCase{
			{name: "malformed JSON", method: http.MethodPatch, path: "/admin/api/accounts", body: `{"data":[{"type":"accounts",`, status: 400},
			{name: "empty data", method: http.MethodPatch, path: "/admin/api/accounts", body: `{"data":[]}`, status: 400, checks: []check{
				{path: "errors/0/title", want: "request data constraint"}, {path: "errors/0/detail", want: "The request data should not be empty."}}},
			{name: "item of another type", method: http.MethodPatch, path: "/admin/api/accounts",
				body: `{"data":[{"type":"contacts","attributes":{"lastName":"X"}}]}`, status: 400, checks: []check{
					{path: "errors/0/source/pointer", want: "/data/0/type"}}},
			{name: "unlinked included item", method: http.MethodPatch, path: "/admin/api/accounts",
				body:   `{"data":[{"type":"accounts","attributes":{"name":"A"}}],"included":[{"type":"contacts","id":"c1","attributes":{"lastName":"X"}}]}`,
				status: 400, checks: []check{{path: "errors/0/source/pointer", want: "/included/0"}}},
			{name: "bad X-Mode", method: http.MethodPatch, path: "/admin/api/accounts", body: one,
				headers: map[string]string{"Accept": "application/vnd.api+json", "Content-Type": "application/vnd.api+json", "X-Mode": "later"},
				status:  400, checks: []check{{path: "errors/0/title", want: "invalid header value exception"},
					{path: "errors/0/detail", want: `The accepted values for the "X-Mode" are "sync" or "async".`},
					{path: "errors/0/source/header", want: "X-Mode"}}},
			{name: "too many items for sync", method: http.MethodPatch, path: "/admin/api/accounts", body: batchAccounts(101, "Sync"),
				headers: syncMode, status: 400, checks: []check{{path: "errors/0/detail", want: "The data limit for the synchronous operation exceeded."}}},
			{name: "access token in the body", method: http.MethodPatch, path: "/admin/api/accounts",
				body:    `{"access_token":"` + a.token("admin") + `","data":[{"type":"accounts","attributes":{"name":"A"}}]}`,
				headers: map[string]string{"Authorization": "", "Accept": "application/vnd.api+json", "Content-Type": "application/vnd.api+json"}, status: 401},
		})
		if n := a.operationCount(t); n != 0 {
			t.Errorf("%d operations exist after refused requests", n)
		}
		a.caller("viewer").do(http.MethodPatch, "/admin/api/accounts", jsonAPI, one).want(t, 403)
		a.caller("manager").do(http.MethodPatch, "/admin/api/users", jsonAPI,
			`{"data":[{"type":"users","attributes":{"username":"u1","email":"u1@example.com"}}]}`).want(t, 403)
		a.caller("manager").do(http.MethodPatch, "/admin/api/accounts", jsonAPI, one).want(t, 202)
	})
}

var syncMode = map[string]string{"Accept": "application/vnd.api+json", "Content-Type": "application/vnd.api+json", "X-Mode": "sync"}

func TestBatchSync(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		r := a.do(http.MethodPatch, "/admin/api/accounts", syncMode, `{"data":[
			{"type":"accounts","id":"acc-1","attributes":{"name":"Sync One"},"relationships":{"contacts":{"data":[{"type":"contacts","id":"c-1"}]}}},
			{"type":"accounts","attributes":{"name":"Sync Two","externalId":"S-2"}}],
			"included":[{"type":"contacts","id":"c-1","attributes":{"firstName":"Ada","lastName":"Sync"}}]}`).want(t, 200)
		checkValues(t, r, map[string]any{
			"data/0/attributes/name": "Sync One", "data/0/meta/dataId": "acc-1", "data/1/attributes/name": "Sync Two",
			"data/1/meta": nil, "included/0/type": "contacts", "included/0/meta/includeId": "c-1",
			"included/0/attributes/lastName": "Sync",
		})
		contact, _ := get(r.doc, "included/0/id").(string)
		if got := get(r.doc, "data/0/relationships/contacts/data/0/id"); got != contact {
			t.Errorf("the account is linked with %v, want the new contact %s", got, contact)
		}
		if n := a.operationCount(t); n != 0 {
			t.Errorf("a synchronous batch answered in time left %d operations", n)
		}

		before := a.do(http.MethodGet, "/admin/api/accounts", map[string]string{"Accept": "application/vnd.api+json", "X-Include": "totalCount"}, "").want(t, 200)
		bad := a.do(http.MethodPatch, "/admin/api/accounts", syncMode, batchAccounts(3, "Atomic", 1)).want(t, 400)
		checkValues(t, bad, map[string]any{"errors/0/title": "not blank constraint", "errors/0/source/pointer": "/data/1/attributes/name"})
		after := a.do(http.MethodGet, "/admin/api/accounts", map[string]string{"Accept": "application/vnd.api+json", "X-Include": "totalCount"}, "").want(t, 200)
		if b, a := before.header.Get("X-Include-Total-Count"), after.header.Get("X-Include-Total-Count"); a != b {
			t.Errorf("an atomic batch with an item error wrote records: %s before, %s after", b, a)
		}

		clash := a.do(http.MethodPatch, "/admin/api/accounts", syncMode, `{"data":[
			{"type":"accounts","attributes":{"name":"X","externalId":"SAME"}},{"type":"accounts","attributes":{"name":"Y","externalId":"SAME"}}]}`).want(t, 400)
		checkValues(t, clash, map[string]any{"errors/0/title": "unique entity constraint", "errors/0/source/pointer": "/data/1/attributes/externalId"})
	})
}

func TestBatchUpdatesUpsertsAndClashes(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		existing := a.created(t, "/admin/api/accounts", `{"data":{"type":"accounts","attributes":{"name":"Old","externalId":"E-1"}}}`)
		r := a.do(http.MethodPatch, "/admin/api/accounts", jsonAPI, `{"data":[
			{"type":"accounts","id":"`+existing+`","meta":{"update":true},"attributes":{"name":"Renamed"}},
			{"type":"accounts","meta":{"upsert":["externalId"]},"attributes":{"name":"Upserted","externalId":"E-1"}},
			{"type":"accounts","meta":{"upsert":["externalId"]},"attributes":{"name":"Upsert new","externalId":"E-2"}},
			{"type":"accounts","attributes":{"name":"Twin A","externalId":"TWIN"}},
			{"type":"accounts","attributes":{"name":"Twin B","externalId":"TWIN"}},
			{"type":"accounts","id":"999999","meta":{"update":true},"attributes":{"name":"Ghost"}},
			{"type":"accounts","meta":{"upsert":true},"id":"5","attributes":{"name":"By id"}}]}`).want(t, 202)
		id, _ := get(r.doc, "data/id").(string)
		done := a.awaitOperation(t, id)
		checkValues(t, done, map[string]any{
			"data/attributes/status": "success", "data/attributes/summary/readCount": 7.0, "data/attributes/summary/writeCount": 4.0,
			"data/attributes/summary/createCount": 2.0, "data/attributes/summary/updateCount": 2.0, "data/attributes/summary/errorCount": 3.0,
		})
		errs := a.do(http.MethodGet, "/admin/api/asyncoperations/"+id+"/errors", jsonAPI, "").want(t, 200)
		checkValues(t, errs, map[string]any{
			"data/0/attributes/source/pointer": "/data/4/attributes/externalId", "data/0/attributes/title": "unique entity constraint",
			"data/1/attributes/source/pointer": "/data/5/id", "data/1/attributes/status": 404.0,
			"data/2/attributes/source/pointer": "/data/6/meta/upsert",
		})
		a.do(http.MethodGet, "/admin/api/accounts/"+existing, jsonAPI, "").want(t, 200)
		got := a.do(http.MethodGet, "/admin/api/accounts/"+existing, jsonAPI, "")
		if name := get(got.doc, "data/attributes/name"); name != "Upserted" {
			t.Errorf("the upserted account is named %v (the update came first, the upsert second)", name)
		}
	})
}

func TestBatchIncludedAsync(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		r := a.do(http.MethodPatch, "/admin/api/contacts", jsonAPI, `{"data":[
			{"type":"contacts","attributes":{"lastName":"Linked"},"relationships":{"accounts":{"data":[{"type":"accounts","id":"new-acc"}]}}},
			{"type":"contacts","attributes":{"lastName":"Broken"},"relationships":{"accounts":{"data":[{"type":"accounts","id":"bad-acc"}]}}}],
			"included":[{"type":"accounts","id":"new-acc","attributes":{"name":"Included Co"}},{"type":"accounts","id":"bad-acc","attributes":{"name":""}}]}`).want(t, 202)
		id, _ := get(r.doc, "data/id").(string)
		done := a.awaitOperation(t, id)
		checkValues(t, done, map[string]any{"data/attributes/summary/writeCount": 1.0, "data/attributes/summary/errorCount": 1.0})
		errs := a.do(http.MethodGet, "/admin/api/asyncoperations/"+id+"/errors", jsonAPI, "").want(t, 200)
		checkValues(t, errs, map[string]any{"data/0/attributes/source/pointer": "/included/1/attributes/name"})
		list := a.do(http.MethodGet, "/admin/api/contacts?filter[lastName]=Linked&include=accounts", jsonAPI, "").want(t, 200)
		checkValues(t, list, map[string]any{"included/0/attributes/name": "Included Co"})
	})
}

func TestOperationAccessAndCancel(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		mine := a.stagedOperation(t, "admin")
		path := "/admin/api/asyncoperations/" + mine
		a.caller("manager").do(http.MethodGet, path, jsonAPI, "").want(t, 403)
		a.caller("viewer").do(http.MethodGet, path, jsonAPI, "").want(t, 403)
		a.caller("elsewhere-admin").do(http.MethodGet, path, jsonAPI, "").want(t, 404)
		a.do(http.MethodGet, "/admin/api/asyncoperations/987654", jsonAPI, "").want(t, 404)
		a.do(http.MethodGet, "/admin/api/asyncoperations", jsonAPI, "").want(t, 404)
		r := a.do(http.MethodGet, path, plain, "").want(t, 200)
		checkValues(t, r, map[string]any{"status": "new", "entityType": "accounts", "progress": nil})

		cancel := `{"data":{"type":"asyncoperations","id":"` + mine + `","attributes":{"status":"cancelled"}}}`
		a.caller("manager").do(http.MethodPatch, path, jsonAPI, cancel).want(t, 403)
		a.do(http.MethodPatch, path, jsonAPI, `{"data":{"type":"asyncoperations","id":"1`+mine+`","attributes":{"status":"cancelled"}}}`).want(t, 409)
		a.do(http.MethodPatch, path, jsonAPI, `{"data":{"type":"asyncoperations","id":"`+mine+`","attributes":{"status":"success"}}}`).want(t, 400)
		done := a.do(http.MethodPatch, path, jsonAPI, cancel).want(t, 200)
		checkValues(t, done, map[string]any{"data/attributes/status": "cancelled", "data/attributes/summary": nil})
		again := a.do(http.MethodPatch, path, plain, `{"status":"cancelled"}`).want(t, 409)
		if again.value("0/title") != "conflict constraint" {
			t.Errorf("a second cancel: %s", again.body)
		}

		managers := a.stagedOperation(t, "manager")
		a.caller("manager").do(http.MethodPatch, "/admin/api/asyncoperations/"+managers, jsonAPI,
			`{"data":{"type":"asyncoperations","id":"`+managers+`","attributes":{"status":"cancelled"}}}`).want(t, 200)
		a.do(http.MethodGet, "/admin/api/asyncoperations/"+managers, jsonAPI, "").want(t, 200) // administrators read every operation
	})
}

func TestOperationErrorsPaging(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		r := a.do(http.MethodPatch, "/admin/api/accounts", jsonAPI, batchAccounts(5, "Page", 0, 1, 2, 3, 4)).want(t, 202)
		id, _ := get(r.doc, "data/id").(string)
		a.awaitOperation(t, id)
		base := "/admin/api/asyncoperations/" + id + "/errors"
		p2 := a.do(http.MethodGet, base+"?page[size]=2&page[number]=2", map[string]string{"Accept": "application/vnd.api+json", "X-Include": "totalCount"}, "").want(t, 200)
		checkValues(t, p2, map[string]any{
			"data/0/id": id + "-1-3", "data/1/id": id + "-1-4", "links/self": a.base + base,
			"links/next": a.base + base + "?page%5Bnumber%5D=3&page%5Bsize%5D=2", "links/prev": a.base + base + "?page%5Bsize%5D=2",
		})
		if p2.header.Get("X-Include-Total-Count") != "5" {
			t.Errorf("X-Include-Total-Count = %q", p2.header.Get("X-Include-Total-Count"))
		}
		plainList := a.do(http.MethodGet, base, plain, "").want(t, 200)
		checkValues(t, plainList, map[string]any{"0/id": id + "-1-1", "0/status": 400.0, "0/source/pointer": "/data/0/attributes/name"})
		a.do(http.MethodGet, base+"?sort=id", jsonAPI, "").want(t, 400)
		a.caller("manager").do(http.MethodGet, base, jsonAPI, "").want(t, 403)
	})
}

// TestBatchSyncTimeout: a synchronous batch that outlives its wait is
// answered 202 and stays atomic: it ends success with every record, or failed
// with nothing written and its errors listed.
func TestBatchSyncTimeout(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			a := newAPIWith(t, storagetest.Open(t, dialect), func(c *server.Config) {
				c.SyncBatchTimeout = time.Nanosecond
				c.MaxBatchBody = 32 << 10
			})
			// The run is held until the request has given up waiting (a 1 ns
			// timeout), so the answer is always the late one, whatever the
			// machine's speed: timing alone once let the run win.
			late := func(body string) string {
				release := make(chan struct{})
				a.srv.HoldSyncBatches(release)
				r := a.do(http.MethodPatch, "/admin/api/accounts", syncMode, body)
				a.srv.HoldSyncBatches(nil)
				close(release)
				r.want(t, 202)
				if r.header.Get("Content-Location") == "" {
					t.Error("no Content-Location")
				}
				id, _ := get(r.doc, "data/id").(string)
				return id
			}
			id := late(batchAccounts(100, "Late"))
			checkValues(t, a.awaitOperation(t, id), map[string]any{
				"data/attributes/status": "success", "data/attributes/summary/writeCount": 100.0, "data/attributes/summary/readCount": 100.0})

			id = late(batchAccounts(100, "Late bad", 7, 30))
			checkValues(t, a.awaitOperation(t, id), map[string]any{"data/attributes/status": "failed", "data/attributes/summary": nil})
			errs := a.do(http.MethodGet, "/admin/api/asyncoperations/"+id+"/errors", jsonAPI, "").want(t, 200)
			checkValues(t, errs, map[string]any{"data/0/id": id + "-1-1", "data/0/attributes/source/pointer": "/data/7/attributes/name",
				"data/1/attributes/source/pointer": "/data/30/attributes/name"})
			list := a.do(http.MethodGet, "/admin/api/accounts?filter[name][starts_with]=Late%20bad", jsonAPI, "").want(t, 200)
			if n := len(list.value("data").([]any)); n != 0 {
				t.Errorf("a failed atomic batch wrote %d records", n)
			}

			big := a.do(http.MethodPatch, "/admin/api/accounts", jsonAPI, batchAccounts(1000, "Too big")).want(t, 413)
			checkValues(t, big, map[string]any{"errors/0/title": "request entity too large http exception"})
			if n := a.operationCount(t); n != 2 {
				t.Errorf("%d operations, want the 2 synchronous ones", n)
			}
		})
	}
}

// TestBatchQueriesPerChunk: a chunk costs the same number of queries whatever
// its number of items, relationships included (they are looked up once per
// related type, and the synchronous answer reads the records back per type),
// and its change events are one statement (issue 19): an INSERT (on
// SQLite, of the chunk's rows' keys read back by it), or a COPY for many on
// PostgreSQL.
func TestBatchQueriesPerChunk(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			store := storagetest.Open(t, dialect)
			counter := &queryCounter{}
			store.AddStatementHook(counter)
			a := newAPIWith(t, store, func(c *server.Config) { c.Jobs.NoWorkers = true })
			account := a.created(t, "/admin/api/accounts", `{"data":{"type":"accounts","attributes":{"name":"Parent"}}}`)
			users := a.do(http.MethodGet, "/admin/api/users?page[size]=1", jsonAPI, "").want(t, 200)
			user, _ := get(users.doc, "data/0/id").(string)
			body := func(n int) string {
				items := make([]string, n)
				for i := range items {
					items[i] = fmt.Sprintf(`{"type":"contacts","attributes":{"lastName":"Q%d"},"relationships":{"owner":{"data":{"type":"users","id":%q}},"accounts":{"data":[{"type":"accounts","id":%q}]}}}`, i, user, account)
				}
				return `{"data":[` + strings.Join(items, ",") + `]}`
			}
			counts := map[int]int{}
			eventsBefore := a.eventCount(t)
			for _, n := range []int{5, 50} {
				queries := counter.during(func() {
					r := a.do(http.MethodPatch, "/admin/api/contacts", syncMode, body(n)).want(t, 200)
					if got := len(r.value("data").([]any)); got != n {
						t.Fatalf("%d records answered, want %d", got, n)
					}
				})
				counts[n] = len(queries)
				events := 0
				for _, q := range queries {
					if strings.Contains(q, `INTO "events"`) || strings.Contains(q, `INTO "event_outbox"`) || strings.HasPrefix(q, "COPY event_outbox") {
						events++
					}
				}
				if events != 1 {
					t.Errorf("a chunk of %d items wrote its change events with %d statements, want 1", n, events)
				}
				if got := a.eventCount(t); got != eventsBefore+n {
					t.Errorf("a chunk of %d items left %d events, want %d", n, got-eventsBefore, n)
				}
				eventsBefore += n
			}
			t.Logf("queries of a synchronous batch: %v", counts)
			if counts[5] != counts[50] {
				t.Errorf("5 items cost %d queries, 50 items %d: a chunk's queries grow with its items", counts[5], counts[50])
			}
		})
	}
}
