package server_test

import (
	"net/http"
	"testing"
)

// TestRefusedUpdates: an update JSON:API 1.1 calls unsupported (a PATCH of a
// read-only resource; a PATCH, POST or DELETE a relationship endpoint does not
// take) is a 403 in a JSON:API request, with the Allow header a 405 would
// have; the plain format, and any other method an address lacks, keep
// Oro's 405 (docs/decisions.md §17). Whether a request is JSON:API is what
// decides the format of its errors: a PATCH without a body asking for
// JSON:API in Accept is one, a PATCH without headers is plain.
func TestRefusedUpdates(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		acc := "/admin/api/accounts/" + a.created(t, "/admin/api/accounts", `{"data":{"type":"accounts","attributes":{"name":"Refused"}}}`)
		const readOnly = "OPTIONS, GET, HEAD"
		refused := func(allow, detail string) []check {
			return []check{{path: "header:Allow", want: allow}, {path: "errors/0/status", want: "403"},
				{path: "errors/0/title", want: "action not allowed exception"}, {path: "errors/0/detail", want: detail}}
		}
		notAllowed := func(allow string) []check {
			return []check{{path: "header:Allow", want: allow}, {path: "errors/0/status", want: "405"},
				{path: "errors/0/title", want: "method not allowed http exception"}}
		}
		plainNotAllowed := func(allow string) []check {
			return []check{{path: "header:Allow", want: allow}, {path: "0/title", want: "method not allowed http exception"},
				{path: "header:Content-Type", want: "application/json"}}
		}
		country := `{"data":{"type":"countries","id":"DE","attributes":{"name":"Elsewhere"}}}`
		countryNotUpdatable := "The countries resource cannot be updated through the API; its address allows OPTIONS, GET, HEAD."
		ownerToOne := " (POST and DELETE add and remove members of a to-many relationship; this one is to-one); its address allows OPTIONS, GET, HEAD, PATCH."
		users := `{"data":[{"type":"users","id":"1"}]}`
		runMustCases(t, a, []mustCase{
			// JSON:API updates the address does not support: 403.
			{name: "PATCH of a read-only resource", method: http.MethodPatch, path: "/admin/api/countries/DE", body: country, status: 403,
				checks: refused(readOnly, countryNotUpdatable)},
			{name: "PATCH of a read-only resource without a body, asking for JSON:API", method: http.MethodPatch, path: "/admin/api/countries/DE",
				headers: map[string]string{"Accept": "application/vnd.api+json"}, status: 403, checks: refused(readOnly, countryNotUpdatable)},
			{name: "PATCH of a read-only resource with a JSON:API body and no Accept", method: http.MethodPatch, path: "/admin/api/countries/DE",
				headers: map[string]string{"Content-Type": "application/vnd.api+json"}, body: country, status: 403, checks: refused(readOnly, countryNotUpdatable)},
			{name: "PATCH of a read-only resource without a token", method: http.MethodPatch, path: "/admin/api/countries/DE",
				headers: withHeaders(jsonAPI, "Authorization", ""), body: country, status: 403, checks: refused(readOnly, countryNotUpdatable)},
			{name: "PATCH of a storefront resource", method: http.MethodPatch, path: "/api/countries/DE", body: country, status: 403,
				headers: withHeaders(guest, "Content-Type", "application/vnd.api+json"), checks: refused(readOnly, countryNotUpdatable)},
			{name: "PATCH of a read-only relationship", method: http.MethodPatch, path: acc + "/relationships/organization",
				body: `{"data":{"type":"organizations","id":"1"}}`, status: 403,
				checks: refused(readOnly, "The organization relationship of accounts cannot be changed with PATCH through the API; its address allows OPTIONS, GET, HEAD.")},
			{name: "POST to a read-only to-many relationship", method: http.MethodPost, path: "/admin/api/countries/DE/relationships/regions",
				body: `{"data":[{"type":"regions","id":"DE-BE"}]}`, status: 403,
				checks: refused(readOnly, "The regions relationship of countries cannot be changed with POST through the API; its address allows OPTIONS, GET, HEAD.")},
			{name: "DELETE from a read-only to-many relationship", method: http.MethodDelete, path: "/admin/api/countries/DE/relationships/regions",
				body: `{"data":[{"type":"regions","id":"DE-BE"}]}`, status: 403,
				checks: refused(readOnly, "The regions relationship of countries cannot be changed with DELETE through the API; its address allows OPTIONS, GET, HEAD.")},
			{name: "POST to a to-one relationship", method: http.MethodPost, path: acc + "/relationships/owner", body: users, status: 403,
				checks: refused("OPTIONS, GET, HEAD, PATCH", "The owner relationship of accounts cannot be changed with POST through the API"+ownerToOne)},
			{name: "DELETE from a to-one relationship", method: http.MethodDelete, path: acc + "/relationships/owner", body: users, status: 403,
				checks: refused("OPTIONS, GET, HEAD, PATCH", "The owner relationship of accounts cannot be changed with DELETE through the API"+ownerToOne)},

			// The same requests in the plain format: Oro's 405.
			{name: "plain PATCH of a read-only resource", method: http.MethodPatch, path: "/admin/api/countries/DE", headers: plain,
				body: `{"name":"Elsewhere"}`, status: 405, checks: plainNotAllowed(readOnly)},
			{name: "PATCH without a body or media types is plain", method: http.MethodPatch, path: "/admin/api/countries/DE",
				headers: map[string]string{"Accept": ""}, status: 405, checks: plainNotAllowed(readOnly)},
			{name: "plain PATCH of a read-only relationship", method: http.MethodPatch, path: acc + "/relationships/organization", headers: plain,
				body: `{"data":{"type":"organizations","id":"1"}}`, status: 405, checks: plainNotAllowed(readOnly)},
			{name: "plain POST to a to-one relationship", method: http.MethodPost, path: acc + "/relationships/owner", headers: plain,
				body: users, status: 405, checks: plainNotAllowed("OPTIONS, GET, HEAD, PATCH")},

			// Other methods an address lacks, in JSON:API: 405.
			{name: "POST to a read-only collection", method: http.MethodPost, path: "/admin/api/countries",
				body: `{"data":{"type":"countries","id":"XX"}}`, status: 405, checks: notAllowed(readOnly)},
			{name: "DELETE of a read-only resource", method: http.MethodDelete, path: "/admin/api/countries/DE", status: 405, checks: notAllowed(readOnly)},
			{name: "DELETE of a resource that cannot be deleted", method: http.MethodDelete, path: "/admin/api/organizations/1", status: 405,
				checks: notAllowed("OPTIONS, GET, HEAD, PATCH")},
			{name: "POST to a record", method: http.MethodPost, path: acc, body: `{"data":{"type":"accounts"}}`, status: 405,
				checks: notAllowed("OPTIONS, GET, HEAD, PATCH, DELETE")},
			{name: "PUT of a record", method: http.MethodPut, path: acc, body: `{"data":{"type":"accounts"}}`, status: 405,
				checks: notAllowed("OPTIONS, GET, HEAD, PATCH, DELETE")},
			{name: "PATCH of a subresource", method: http.MethodPatch, path: acc + "/owner", body: `{"data":{"type":"users","id":"1"}}`, status: 405,
				checks: notAllowed(readOnly)},
			{name: "PATCH of a collection without batch", method: http.MethodPatch, path: "/admin/api/countries", body: `{"data":[]}`, status: 405,
				checks: notAllowed(readOnly)},
		})
	})
}
