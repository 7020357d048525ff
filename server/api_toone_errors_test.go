package server_test

import (
	"net/http"
	"testing"
)

// TestToOneDataErrors: since 1.0.1 a to-one relationship's data is anyOf [identifier,
// JsonNull] in the documents; a value that is not null and breaks the identifier is
// still reported as the identifier's own violation, at its own pointer, never as
// kin-openapi's "doesn't match any schema from anyOf"; null still clears it.
func TestToOneDataErrors(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		id := a.created(t, "/admin/api/accounts", `{"data":{"type":"accounts","attributes":{"name":"To-one errors"}}}`)
		account := "/admin/api/accounts/" + id
		inResource := func(data string) string {
			return `{"data":{"type":"accounts","id":"` + id + `","relationships":{"owner":{"data":` + data + `}}}}`
		}
		sync := map[string]string{"Accept": jsonAPI["Accept"], "Content-Type": jsonAPI["Content-Type"], "X-Mode": "sync"}
		runCases(t, a, []apiCase{
			{name: "resource: no id", method: http.MethodPatch, path: account, body: inResource(`{"type":"users"}`), status: 400, checks: []check{
				{path: "errors/0/title", want: "not blank constraint"}, {path: "errors/0/source/pointer", want: "/data/relationships/owner/data/id"}, {path: "errors/1", absent: true}}},
			{name: "resource: not an object", method: http.MethodPatch, path: account, body: inResource(`"5"`), status: 400, checks: []check{
				{path: "errors/0/title", want: "type constraint"}, {path: "errors/0/source/pointer", want: "/data/relationships/owner/data"}, {path: "errors/1", absent: true}}},
			{name: "resource: wrong type", method: http.MethodPatch, path: account, body: inResource(`{"type":"contacts","id":"1"}`), status: 400, checks: []check{
				{path: "errors/0/title", want: "choice constraint"}, {path: "errors/0/source/pointer", want: "/data/relationships/owner/data/type"}, {path: "errors/1", absent: true}}},
			{name: "resource: null clears", method: http.MethodPatch, path: account, body: inResource(`null`), status: 200, checks: []check{
				{path: "data/relationships/owner/data", want: nil}}},
			{name: "endpoint: no id", method: http.MethodPatch, path: account + "/relationships/owner", body: `{"data":{"type":"users"}}`, status: 400, checks: []check{
				{path: "errors/0/detail", want: "The 'id' property is required."}, {path: "errors/0/source/pointer", want: "/data/id"}, {path: "errors/1", absent: true}}},
			{name: "endpoint: extra member", method: http.MethodPatch, path: account + "/relationships/owner", body: `{"data":{"type":"users","id":"1","x":1}}`, status: 400, checks: []check{
				{path: "errors/0/detail", want: "The 'x' property is not allowed here."}, {path: "errors/1", absent: true}}},
			{name: "endpoint: null clears", method: http.MethodPatch, path: account + "/relationships/owner", body: `{"data":null}`, status: 204},
			{name: "batch item: no id", method: http.MethodPatch, path: "/admin/api/accounts", headers: sync,
				body: `{"data":[{"type":"accounts","attributes":{"name":"B"},"relationships":{"owner":{"data":{"type":"users"}}}}]}`, status: 400, checks: []check{
					{path: "errors/0/title", want: "not blank constraint"}, {path: "errors/0/source/pointer", want: "/data/0/relationships/owner/data/id"}}},
		})
	})
}
