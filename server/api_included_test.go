package server_test

import (
	"net/http"
	"testing"
)

// TestRelatedRecordsInOneRequest covers oro-behaviour §15: included records
// created with temporary ids or changed with meta.update, linked with the
// primary record, all in one transaction.
func TestRelatedRecordsInOneRequest(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		existing := a.created(t, "/admin/api/contacts", `{"data":{"type":"contacts","attributes":{"lastName":"Old"}}}`)
		r := a.do(http.MethodPost, "/admin/api/accounts", jsonAPI, `{"data":{"type":"accounts","attributes":{"name":"Wayne"},
			"relationships":{"contacts":{"data":[{"type":"contacts","id":"c-new"},{"type":"contacts","id":"`+existing+`"}]},
			"defaultContact":{"data":{"type":"contacts","id":"c-new"}}}},
			"included":[{"type":"contacts","id":"c-new","attributes":{"firstName":"Bruce","lastName":"Wayne"},
				"relationships":{"reportsTo":{"data":{"type":"contacts","id":"`+existing+`"}}}},
			{"type":"contacts","id":"`+existing+`","meta":{"update":true},"attributes":{"jobTitle":"Butler"}}]}`).want(t, 201)
		newID, _ := get(r.doc, "included/0/id").(string)
		if newID == "" || newID == "c-new" {
			t.Fatalf("the new contact has no real id: %s", r.body)
		}
		for _, c := range []check{
			{path: "included/0/meta/includeId", want: "c-new"}, {path: "included/0/attributes/firstName", want: "Bruce"},
			{path: "included/1/meta/includeId", want: existing}, {path: "included/1/attributes/jobTitle", want: "Butler"},
			{path: "data/relationships/defaultContact/data/id", want: newID},
			{path: "data/relationships/contacts/data/0/id", want: existing}, {path: "data/relationships/contacts/data/1/id", want: newID},
		} {
			c.verify(t, r)
		}
		acc, _ := get(r.doc, "data/id").(string)
		runCases(t, a, []apiCase{
			{name: "new contact reports to the existing one", path: "/admin/api/contacts/" + newID, status: 200, checks: []check{
				{path: "data/relationships/reportsTo/data/id", want: existing}, {path: "data/relationships/accounts/data/0/id", want: acc}}},
			{name: "unlinked included record", method: http.MethodPost, path: "/admin/api/accounts",
				body: `{"data":{"type":"accounts","attributes":{"name":"Lonely"}},
				"included":[{"type":"contacts","id":"x","attributes":{"lastName":"Alone"}}]}`, status: 400, checks: []check{
					{path: "errors/0/title", want: "request data constraint"}, {path: "errors/0/source/pointer", want: "/included/0"}}},
			{name: "duplicate included record", method: http.MethodPost, path: "/admin/api/accounts",
				body: `{"data":{"type":"accounts","attributes":{"name":"Twins"},"relationships":{"contacts":{"data":[{"type":"contacts","id":"x"}]}}},
				"included":[{"type":"contacts","id":"x","attributes":{"lastName":"A"}},{"type":"contacts","id":"x","attributes":{"lastName":"B"}}]}`,
				status: 400, checks: []check{{path: "errors/0/source/pointer", want: "/included/1"}}},
			{name: "invalid included record", method: http.MethodPost, path: "/admin/api/accounts",
				body: `{"data":{"type":"accounts","attributes":{"name":"Bad"},"relationships":{"contacts":{"data":[{"type":"contacts","id":"x"}]}}},
				"included":[{"type":"contacts","id":"x","attributes":{"gender":"other","lastName":"Z"}}]}`,
				status: 400, checks: []check{{path: "errors/0/title", want: "choice constraint"}, {path: "errors/0/source/pointer", want: "/included/0/attributes/gender"}}},
			{name: "included record breaking a rule", method: http.MethodPost, path: "/admin/api/accounts",
				body: `{"data":{"type":"accounts","attributes":{"name":"Bad"},"relationships":{"contacts":{"data":[{"type":"contacts","id":"x"}]}}},
				"included":[{"type":"contacts","id":"x","attributes":{"jobTitle":"Nobody"}}]}`,
				status: 400, checks: []check{{path: "errors/0/source/pointer", want: "/included/0"}}},
			{name: "included record of a read-only type", method: http.MethodPost, path: "/admin/api/taxjurisdictions",
				body: `{"data":{"type":"taxjurisdictions","attributes":{"code":"Z1"},"relationships":{"country":{"data":{"type":"countries","id":"ZZ"}}}},
				"included":[{"type":"countries","id":"ZZ","attributes":{"name":"Zedland"}}]}`, status: 400, checks: []check{
					{path: "errors/0/detail", want: `The "create" action is not allowed for countries.`}}},
			{name: "updating a record that does not exist", method: http.MethodPatch, path: "/admin/api/accounts/" + acc,
				body: `{"data":{"type":"accounts","id":"` + acc + `","relationships":{"defaultContact":{"data":{"type":"contacts","id":"999999"}}}},
				"included":[{"type":"contacts","id":"999999","meta":{"update":true},"attributes":{"lastName":"Ghost"}}]}`, status: 404,
				checks: []check{{path: "errors/0/source/pointer", want: "/included/0/id"}}},
			{name: "nothing of the failed requests was written", path: "/admin/api/accounts?filter[name]=Lonely,Twins,Bad",
				headers: map[string]string{"Accept": "application/vnd.api+json", "X-Include": "totalCount"}, status: 200,
				checks: []check{{path: "header:X-Include-Total-Count", want: "0"}}},
		})
	})
}
