package server_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

// TestEveryWriteOperation runs the happy path of each documented write operation
// on records of its own type: update and delete one record in both formats,
// delete by filter, and a batch (asynchronous and X-Mode: sync). Error statuses
// are tried elsewhere; without this test some of these operations would have
// their 2xx answers never validated against the document.
func TestEveryWriteOperation(t *testing.T) {
	eachAPI(t, everyWriteOperation)
}

// everyWriteOperation is TestEveryWriteOperation on one server; TestPrismReplay runs
// it again through Prism.
func everyWriteOperation(t *testing.T, a *api) {
	unit := a.created(t, "/admin/api/businessunits", `{"data":{"type":"businessunits","attributes":{"name":"Writes"}}}`)
	owner := a.created(t, "/admin/api/users", `{"data":{"type":"users","attributes":{"username":"writes","email":"writes@example.com","firstName":"W","lastName":"R"},
		"relationships":{"owner":{"data":{"type":"businessunits","id":"`+unit+`"}},"userRoles":{"data":[{"type":"userroles","id":"ROLE_USER"}]}}}}`)
	// records are resource objects of a new record of each writable type; n makes unique values unique.
	records := map[string]func(n int) string{
		"accounts": func(n int) string {
			return fmt.Sprintf(`{"type":"accounts","attributes":{"name":"Write %d"}}`, n)
		},
		"contacts": func(n int) string {
			return fmt.Sprintf(`{"type":"contacts","attributes":{"lastName":"Write %d"},"relationships":{"owner":{"data":{"type":"users","id":"%s"}}}}`, n, owner)
		},
		"businessunits": func(n int) string {
			return fmt.Sprintf(`{"type":"businessunits","attributes":{"name":"Write %d"}}`, n)
		},
		"users": func(n int) string {
			return fmt.Sprintf(`{"type":"users","attributes":{"username":"write%d","email":"write%d@example.com","firstName":"W","lastName":"%d"},
				"relationships":{"owner":{"data":{"type":"businessunits","id":"%s"}},"userRoles":{"data":[{"type":"userroles","id":"ROLE_USER"}]}}}`, n, n, n, unit)
		},
		"weightunits": func(n int) string { return fmt.Sprintf(`{"type":"weightunits","id":"w%d"}`, n) },
		"taxjurisdictions": func(n int) string {
			return fmt.Sprintf(`{"type":"taxjurisdictions","attributes":{"code":"WRITE%d"},"relationships":{"country":{"data":{"type":"countries","id":"US"}}}}`, n)
		},
	}
	n := 0
	create := func(t *testing.T, typ string) string {
		n++
		return a.created(t, "/admin/api/"+typ, `{"data":`+records[typ](n)+`}`)
	}
	tried := map[string]bool{}
	for _, op := range documentedOperations(t) {
		segs := strings.Split(strings.TrimPrefix(op.path, "/admin/api/"), "/")
		typ := segs[0]
		if op.public || records[typ] == nil || (op.method != http.MethodPatch && op.method != http.MethodDelete) || len(segs) > 2 {
			continue
		}
		tried[op.method+" "+strings.Join(segs[:1], "")+fmt.Sprint(len(segs))] = true
		t.Run(op.id, func(t *testing.T) {
			collection := "/admin/api/" + typ
			switch {
			case len(segs) == 2 && op.method == http.MethodPatch:
				id := create(t, typ)
				got := a.do(op.method, collection+"/"+id, jsonAPI, `{"data":{"type":"`+typ+`","id":"`+id+`"}}`).want(t, 200)
				if got.value("data/id") != id {
					t.Errorf("update answered id %v, want %s", got.value("data/id"), id)
				}
				a.do(op.method, collection+"/"+id, plain, `{}`).want(t, 200)
			case len(segs) == 2 && op.method == http.MethodDelete:
				for _, headers := range []map[string]string{jsonAPI, plain} {
					id := create(t, typ)
					a.do(op.method, collection+"/"+id, headers, "").want(t, 204)
					a.do(http.MethodGet, collection+"/"+id, jsonAPI, "").want(t, 404)
				}
			case op.method == http.MethodDelete:
				for _, headers := range []map[string]string{jsonAPI, plain} {
					id := create(t, typ)
					a.do(op.method, collection+"?filter[id]="+id, headers, "").want(t, 204)
					a.do(http.MethodGet, collection+"/"+id, jsonAPI, "").want(t, 404)
				}
			default: // PATCH on the collection: a batch
				n++
				a.do(op.method, collection, jsonAPI, `{"data":[`+records[typ](n)+`]}`).want(t, 202)
				n++
				sync := map[string]string{"Accept": jsonAPI["Accept"], "Content-Type": jsonAPI["Content-Type"], "X-Mode": "sync"}
				a.do(op.method, collection, sync, `{"data":[`+records[typ](n)+`]}`).want(t, 200)
			}
		})
	}
	// Four write operations per type: update, delete, delete by filter, batch.
	if len(tried) != 4*len(records) {
		t.Errorf("tried %d write operations, want %d: %v", len(tried), 4*len(records), tried)
	}
}

// TestBatchClientChosenIDs: a batch creates weight units under the codes the
// client gives (a batch once dropped the id before validating and writing), and
// refuses an item without one.
func TestBatchClientChosenIDs(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		sync := map[string]string{"Accept": jsonAPI["Accept"], "Content-Type": jsonAPI["Content-Type"], "X-Mode": "sync"}
		got := a.do(http.MethodPatch, "/admin/api/weightunits", sync, `{"data":[{"type":"weightunits","id":"lb"},{"type":"weightunits","id":"oz"}]}`).want(t, 200)
		if ids := fmt.Sprint(get(got.doc, "data/0/id"), " ", get(got.doc, "data/1/id")); ids != "lb oz" {
			t.Errorf("batch answered ids %s, want lb oz", ids)
		}
		for _, id := range []string{"lb", "oz"} {
			a.do(http.MethodGet, "/admin/api/weightunits/"+id, jsonAPI, "").want(t, 200)
		}
		bad := a.do(http.MethodPatch, "/admin/api/weightunits", sync, `{"data":[{"type":"weightunits","id":"st"},{"type":"weightunits"}]}`).want(t, 400)
		if p := get(bad.doc, "errors/0/source/pointer"); p != "/data/1/id" {
			t.Errorf("missing id pointer %v, want /data/1/id\n%s", p, bad.body)
		}
		a.do(http.MethodGet, "/admin/api/weightunits/st", jsonAPI, "").want(t, 404)
	})
}
