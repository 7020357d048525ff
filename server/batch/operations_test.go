package batch_test

import (
	"net/http"
	"testing"

	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/server/identity"
	"github.com/entityapi/entityapi/server/problem"
)

// TestOperationAccess: an operation is its owner's and the organization's
// administrators': another user of the organization is refused (403, the
// detail saying who may), another organization does not see it (404), and
// an address that names no operation is a 404. The owner cancels a new
// operation; a finished one cannot be cancelled (409). The plain format
// shows the operation flat, its owner and organization inline.
func TestOperationAccess(t *testing.T) {
	t.Parallel()
	eachDialect(t, func(t *testing.T, b *testBundle) {
		w, err := b.serve(t, "", engine.JSONAPI, b.manager, `{"type":"accounts","attributes":{"name":"Pending"}}`)
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
		id, _ := at(decode(t, w.Body.Bytes()), "data", "id").(string)
		path := "/api/asyncoperations/" + id

		reply, err := b.p.GetOperation(b.request(t, http.MethodGet, path, "", engine.Plain, b.admin))
		if err != nil {
			t.Fatalf("GetOperation by an administrator: %v", err)
		}
		doc := replyBody(t, reply)
		if at(doc, "id") == nil || at(doc, "status") != "new" || at(doc, "organization") != 1.0 || at(doc, "owner") != float64(b.manager.UserID) {
			t.Errorf("the plain operation %v, want new, of organization 1 and the manager", doc)
		}

		// A user of the organization who is not the owner, without the
		// administrator's role.
		stranger := *b.manager
		stranger.UserID = b.admin.UserID
		readers := []struct {
			name   string
			path   string
			caller *identity.Principal
			kind   problem.Kind
			detail string
		}{
			{"another user of the organization", path, &stranger, problem.Denied,
				"No access to this operation: only its owner and the organization's administrators may read it."},
			{"another organization", path, b.other, problem.NotFoundKind, "An entity with the requested identifier does not exist."},
			{"an id that is no number", "/api/asyncoperations/x", b.admin, problem.NotFoundKind, "An entity with the requested identifier does not exist."},
		}
		for _, tc := range readers {
			t.Run(tc.name, func(t *testing.T) {
				_, err := b.p.GetOperation(b.request(t, http.MethodGet, tc.path, "", engine.JSONAPI, tc.caller))
				list, ok := problem.From(err)
				if !ok || list[0].Kind != tc.kind || list[0].Detail != tc.detail {
					t.Errorf("GetOperation: %v, want %q", err, tc.detail)
				}
			})
		}
		_, err = b.p.CancelOperation(b.request(t, http.MethodPatch, path, "", engine.JSONAPI, &stranger))
		if list, ok := problem.From(err); !ok || list[0].Kind != problem.Denied ||
			list[0].Detail != "No access to this operation: only its owner and the organization's administrators may cancel it." {
			t.Errorf("a cancel by another user: %v, want denied", err)
		}

		cancelled, err := b.p.CancelOperation(b.request(t, http.MethodPatch, path, "", engine.JSONAPI, b.manager))
		if err != nil {
			t.Fatalf("CancelOperation by its owner: %v", err)
		}
		if s := at(replyBody(t, cancelled), "data", "attributes", "status"); s != "cancelled" {
			t.Errorf("status after the cancel %v, want cancelled", s)
		}
		_, err = b.p.CancelOperation(b.request(t, http.MethodPatch, path, "", engine.JSONAPI, b.manager))
		if list, ok := problem.From(err); !ok || list[0].Kind != problem.ConflictKind {
			t.Errorf("a second cancel: %v, want a conflict", err)
		}
	})
}

// TestOperationErrorsPages: the errors of an operation come a page at a
// time with links to the next, and the list refuses parameters it does not
// take.
func TestOperationErrorsPages(t *testing.T) {
	t.Parallel()
	eachDialect(t, func(t *testing.T, b *testBundle) {
		w, err := b.serve(t, "", engine.JSONAPI, b.admin,
			`{"type":"accounts","attributes":{"color":"red"}}`,
			`{"type":"accounts","attributes":{"color":"blue"}}`,
			`{"type":"accounts","attributes":{"color":"green"}}`)
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
		id, _ := at(decode(t, w.Body.Bytes()), "data", "id").(string)
		runJob(t, b, id)
		path := "/api/asyncoperations/" + id + "/errors"
		reply, err := b.p.OperationErrors(b.request(t, http.MethodGet, path, "page[size]=2", engine.JSONAPI, b.admin))
		if err != nil {
			t.Fatalf("OperationErrors: %v", err)
		}
		doc := replyBody(t, reply)
		if at(doc, "data", 1) == nil || at(doc, "data", 2) != nil {
			t.Errorf("a page of 2: %v", at(doc, "data"))
		}
		if next := at(doc, "links", "next"); next == nil {
			t.Errorf("no next link: %v", at(doc, "links"))
		}
		reply, err = b.p.OperationErrors(b.request(t, http.MethodGet, path, "page[size]=2&page[number]=2", engine.JSONAPI, b.admin))
		if err != nil {
			t.Fatalf("OperationErrors, page 2: %v", err)
		}
		doc = replyBody(t, reply)
		if at(doc, "data", 0) == nil || at(doc, "data", 1) != nil || at(doc, "links", "next") != nil {
			t.Errorf("the last page: %v", doc)
		}
		// A parameter the operation does not declare (sort, page[after]) is
		// refused before the pipeline, by the check (server/check/query.go;
		// TestCursorErrors covers it over HTTP); a bad page is the pipeline's.
		_, err = b.p.OperationErrors(b.request(t, http.MethodGet, path, "page[size]=0", engine.JSONAPI, b.admin))
		if list, ok := problem.From(err); !ok || list[0].Parameter != "page[size]" {
			t.Errorf("a page of size 0: %v, want a problem of its parameter", err)
		}
	})
}
