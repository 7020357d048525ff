package batch_test

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/server/problem"
)

// TestAsyncBatchIsStagedThenWrittenByItsJob: an asynchronous batch is
// answered 202 with a new operation and its address, its items staged and
// nothing written; its chunk job, run as the operation's owner, writes the
// sound items, records the other's problem as an error of the operation,
// and ends it in success with its counts.
func TestAsyncBatchIsStagedThenWrittenByItsJob(t *testing.T) {
	t.Parallel()
	eachDialect(t, func(t *testing.T, b *testBundle) {
		w, err := b.serve(t, "", engine.JSONAPI, b.admin,
			`{"type":"accounts","attributes":{"name":"Async A"}}`,
			`{"type":"accounts","attributes":{"externalId":"no name"}}`,
			`{"type":"accounts","attributes":{"name":"Async B"}}`)
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
		doc := decode(t, w.Body.Bytes())
		id, _ := at(doc, "data", "id").(string)
		if w.Code != http.StatusAccepted || at(doc, "data", "type") != "asyncoperations" || id == "" {
			t.Fatalf("answer %d %s, want 202 with an operation", w.Code, w.Body)
		}
		if loc := w.Header().Get("Content-Location"); loc != "http://api.test/admin/api/asyncoperations/"+id {
			t.Errorf("Content-Location %q", loc)
		}
		if s, typ := at(doc, "data", "attributes", "status"), at(doc, "data", "attributes", "entityType"); s != "new" || typ != "accounts" {
			t.Errorf("operation status %v of %v, want new of accounts", s, typ)
		}
		if at(doc, "data", "relationships", "owner", "data", "id") != strconv.FormatInt(b.admin.UserID, 10) {
			t.Errorf("owner %v, want the administrator", at(doc, "data", "relationships", "owner"))
		}
		if names := b.accountNames(t); len(names) != 0 {
			t.Errorf("accounts before the job ran: %v", names)
		}
		runJob(t, b, id)
		if names := b.accountNames(t); !slices.Equal(names, []any{"Async A", "Async B"}) {
			t.Errorf("accounts after the job: %v, want Async A and Async B", names)
		}
		reply, err := b.p.GetOperation(b.request(t, http.MethodGet, "/api/asyncoperations/"+id, "", engine.JSONAPI, b.admin))
		if err != nil {
			t.Fatalf("GetOperation: %v", err)
		}
		doc = replyBody(t, reply)
		attrs := at(doc, "data", "attributes")
		if at(attrs, "status") != "success" || at(attrs, "progress") != 100.0 {
			t.Errorf("operation after its job: %v, want success at 100", attrs)
		}
		for name, want := range map[string]float64{"readCount": 3, "writeCount": 2, "errorCount": 1, "createCount": 2, "updateCount": 0} {
			if v := at(attrs, "summary", name); v != want {
				t.Errorf("summary.%s %v, want %v", name, v, want)
			}
		}

		r := b.request(t, http.MethodGet, "/api/asyncoperations/"+id+"/errors", "", engine.JSONAPI, b.admin)
		r.XInclude = []string{"totalCount"}
		reply, err = b.p.OperationErrors(r)
		if err != nil {
			t.Fatalf("OperationErrors: %v", err)
		}
		if n := reply.Header.Get("X-Include-Total-Count"); n != "1" {
			t.Errorf("X-Include-Total-Count %q, want 1", n)
		}
		doc = replyBody(t, reply)
		if at(doc, "data", 0, "type") != "asyncoperationerrors" || at(doc, "data", 0, "id") != id+"-1-1" {
			t.Errorf("errors %v, want %s-1-1", at(doc, "data"), id)
		}
		if p := at(doc, "data", 0, "attributes", "source", "pointer"); p != "/data/1/attributes/name" {
			t.Errorf("the error points at %v, want /data/1/attributes/name", p)
		}
		if s := at(doc, "data", 0, "attributes", "status"); s != 400.0 {
			t.Errorf("the error's status %v, want 400", s)
		}
		if at(doc, "data", 1) != nil {
			t.Errorf("more than one error: %v", at(doc, "data"))
		}

		plain, err := b.p.OperationErrors(b.request(t, http.MethodGet, "/api/asyncoperations/"+id+"/errors", "", engine.Plain, b.admin))
		if err != nil {
			t.Fatalf("OperationErrors as plain: %v", err)
		}
		list, ok := replyBody(t, plain).([]any)
		if !ok || len(list) != 1 || at(list[0], "id") != id+"-1-1" || at(list[0], "title") == nil {
			t.Errorf("plain errors %v, want one object with its id and title", list)
		}
	})
}

// TestSyncBatchWritesAllOrNothing: a synchronous batch answers the records
// it wrote, each with the client's id in meta.dataId; one item at fault
// writes nothing and returns the item's problem at its pointer.
func TestSyncBatchWritesAllOrNothing(t *testing.T) {
	t.Parallel()
	eachDialect(t, func(t *testing.T, b *testBundle) {
		w, err := b.serve(t, "sync", engine.JSONAPI, b.manager,
			`{"type":"accounts","id":"a","attributes":{"name":"Sync A"}}`,
			`{"type":"accounts","id":"b","attributes":{"name":"Sync B"}}`)
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
		doc := decode(t, w.Body.Bytes())
		if w.Code != http.StatusOK || at(doc, "data", 0, "meta", "dataId") != "a" || at(doc, "data", 1, "attributes", "name") != "Sync B" {
			t.Errorf("answer %d %s, want 200 with both records", w.Code, w.Body)
		}
		_, err = b.serve(t, "sync", engine.JSONAPI, b.manager,
			`{"type":"accounts","id":"c","attributes":{"name":"Sync C"}}`,
			`{"type":"accounts","id":"d","attributes":{"name":"Sync D","color":"red"}}`)
		list, ok := problem.From(err)
		if !ok || len(list) != 1 || list[0].Pointer != "/data/1/attributes" || list[0].Kind != problem.Invalid {
			t.Errorf("a batch with an item at fault: %v, want one problem at /data/1/attributes", err)
		}
		if names := b.accountNames(t); !slices.Equal(names, []any{"Sync A", "Sync B"}) {
			t.Errorf("accounts %v, want those of the first batch only", names)
		}
	})
}

// TestServeRefuses: what Serve refuses before it stages anything, with the
// problem the edge answers.
func TestServeRefuses(t *testing.T) {
	t.Parallel()
	eachDialect(t, func(t *testing.T, b *testBundle) {
		viewer := *b.manager
		viewer.Roles = []string{"ROLE_USER"}
		big := fmt.Sprintf(`{"type":"accounts","attributes":{"name":"%0*d"}}`, 70<<10, 0)
		tests := []struct {
			name   string
			mode   string
			format engine.Format
			viewer bool
			items  []string
			kind   problem.Kind
			title  string
		}{
			{"the plain format", "", engine.Plain, false, nil, problem.MethodNotAllowed, "method not allowed http exception"},
			{"an unknown X-Mode", "later", engine.JSONAPI, false, nil, problem.Invalid, "invalid header value exception"},
			{"a caller who may not write accounts", "", engine.JSONAPI, true, nil, problem.Denied, "access denied exception"},
			{"a body over the limit", "", engine.JSONAPI, false, []string{big}, problem.TooLarge, "request entity too large http exception"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				p := b.admin
				if tc.viewer {
					p = &viewer
				}
				w, err := b.serve(t, tc.mode, tc.format, p, tc.items...)
				list, ok := problem.From(err)
				if !ok || list[0].Kind != tc.kind || list[0].Title != tc.title {
					t.Fatalf("Serve: %v, want %s", err, tc.title)
				}
				if tc.format == engine.Plain {
					if allow := w.Header().Get("Allow"); allow != "OPTIONS, GET, HEAD, POST, DELETE" {
						t.Errorf("Allow %q, want the collection's methods but PATCH", allow)
					}
				}
			})
		}
		if names := b.accountNames(t); len(names) != 0 {
			t.Errorf("accounts after refused batches: %v", names)
		}
	})
}
