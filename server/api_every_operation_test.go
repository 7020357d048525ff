package server_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestEveryReadAndRelationshipOperation calls each GET operation of the public
// document on a record of its type (both formats where the operation has them)
// and writes back every writable relationship unchanged, so no documented
// endpoint goes untried.
func TestEveryReadAndRelationshipOperation(t *testing.T) {
	eachAPI(t, everyReadAndRelationshipOperation)
}

// everyReadAndRelationshipOperation is TestEveryReadAndRelationshipOperation on one
// server; TestPrismReplay runs it again through Prism.
func everyReadAndRelationshipOperation(t *testing.T, a *api) {
	ids := map[string]string{"countries": "US", "regions": "US-NY", "userroles": "ROLE_USER", "organizations": "1", "weightunits": "kg"}
	a.created(t, "/admin/api/weightunits", `{"data":{"type":"weightunits","id":"kg"}}`)
	ids["businessunits"] = a.created(t, "/admin/api/businessunits", `{"data":{"type":"businessunits","attributes":{"name":"Unit"}}}`)
	ids["users"] = a.created(t, "/admin/api/users", `{"data":{"type":"users","attributes":{"username":"every","email":"every@example.com","firstName":"E","lastName":"V"},
		"relationships":{"owner":{"data":{"type":"businessunits","id":"`+ids["businessunits"]+`"}},"userRoles":{"data":[{"type":"userroles","id":"ROLE_USER"}]}}}}`)
	ids["contacts"] = a.created(t, "/admin/api/contacts", `{"data":{"type":"contacts","attributes":{"lastName":"Every"},
		"relationships":{"owner":{"data":{"type":"users","id":"`+ids["users"]+`"}},"assignedTo":{"data":{"type":"users","id":"`+ids["users"]+`"}}}}}`)
	ids["accounts"] = a.created(t, "/admin/api/accounts", `{"data":{"type":"accounts","attributes":{"name":"Every"},
		"relationships":{"owner":{"data":{"type":"users","id":"`+ids["users"]+`"}},"contacts":{"data":[{"type":"contacts","id":"`+ids["contacts"]+`"}]},
		"defaultContact":{"data":{"type":"contacts","id":"`+ids["contacts"]+`"}}}}}`)
	ids["taxjurisdictions"] = a.created(t, "/admin/api/taxjurisdictions", `{"data":{"type":"taxjurisdictions","attributes":{"code":"EVERY"},
		"relationships":{"country":{"data":{"type":"countries","id":"US"}},"region":{"data":{"type":"regions","id":"US-NY"}}}}}`)
	batch := a.do(http.MethodPatch, "/admin/api/accounts", jsonAPI, `{"data":[{"type":"accounts","attributes":{"name":"Every batch"}}]}`).want(t, 202)
	ids["asyncoperations"], _ = get(batch.doc, "data/id").(string)
	ids["events"], _ = (&feed{a: a}).next(t, 1)[0]["id"].(string) // the writes above left some
	ids["audits"], _ = (&auditTrail{a: a}).next(t)[0]["id"].(string)
	for _, op := range documentedOperations(t) {
		segs := strings.Split(strings.TrimPrefix(op.path, "/admin/api/"), "/")
		if op.public || len(segs) < 2 {
			continue
		}
		if ids[segs[0]] == "" {
			ids[segs[0]] = exampleRecord(t, a, segs[0])
		}
		segs[1] = ids[segs[0]]
		path := "/admin/api/" + strings.Join(segs, "/")
		relationship := len(segs) == 4 && segs[2] == "relationships"
		t.Run(op.id, func(t *testing.T) {
			switch {
			case op.method == http.MethodGet:
				a.do(op.method, path, jsonAPI, "").want(t, 200)
				if !relationship {
					a.do(op.method, path, plain, "").want(t, 200)
				}
			case relationship && op.method == http.MethodPatch:
				current := a.do(http.MethodGet, path, jsonAPI, "").want(t, 200)
				a.do(op.method, path, jsonAPI, `{"data":`+dataOf(current)+`}`).want(t, 204)
			case relationship && op.method == http.MethodPost:
				current := a.do(http.MethodGet, path, jsonAPI, "").want(t, 200)
				a.do(op.method, path, jsonAPI, `{"data":`+dataOf(current)+`}`).want(t, 204)
			case relationship && op.method == http.MethodDelete:
				a.do(op.method, path, jsonAPI, `{"data":[]}`).want(t, 204)
			}
		})
	}
}

// exampleRecord creates a record of typ through the back office from the
// JSON:API example of its documented create operation and returns its id: the
// record of a type the tests' own tables do not list (an entity added since), so
// that the operations on its records are tried too.
func exampleRecord(t *testing.T, a *api, typ string) string {
	t.Helper()
	item := backofficeDocument(t).Paths.Find("/api/" + typ)
	if item == nil || item.Post == nil || item.Post.RequestBody == nil ||
		item.Post.RequestBody.Value.Content.Get(jsonAPI["Content-Type"]) == nil {
		t.Fatalf("no record of %s to try its operations on: list one in the test", typ)
	}
	example := item.Post.RequestBody.Value.Content.Get(jsonAPI["Content-Type"]).Example
	raw, err := json.Marshal(example)
	if err != nil || example == nil {
		t.Fatalf("the create operation of %s has no JSON:API example to make a record from (%v)", typ, err)
	}
	return a.created(t, "/admin/api/"+typ, string(raw))
}

// dataOf is a relationship answer's data as identifiers only (links dropped).
func dataOf(r *result) string {
	switch d := r.doc["data"].(type) {
	case nil:
		return "null"
	case map[string]any:
		return `{"type":"` + d["type"].(string) + `","id":"` + d["id"].(string) + `"}`
	case []any:
		parts := make([]string, len(d))
		for i, x := range d {
			m := x.(map[string]any)
			parts[i] = `{"type":"` + m["type"].(string) + `","id":"` + m["id"].(string) + `"}`
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return "null"
}
