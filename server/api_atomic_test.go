package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// atomicType is the media type of atomic requests and answers.
const atomicType = `application/vnd.api+json; ext="https://jsonapi.org/ext/atomic"`

var atomicHeaders = map[string]string{"Accept": atomicType, "Content-Type": atomicType}

// atomic sends an atomic request of these operations (JSON, comma-separated).
func (a *api) atomic(ops string) *result {
	a.t.Helper()
	return a.do(http.MethodPost, "/admin/api/operations", atomicHeaders, `{"atomic:operations":[`+ops+`]}`)
}

// count is the number of records of a list address (its first page: the
// tests count fewer than 10).
func (a *api) count(path string) int {
	a.t.Helper()
	r := a.do(http.MethodGet, path, jsonAPI, "").want(a.t, 200)
	list, _ := r.value("data").([]any)
	return len(list)
}

// TestAtomicOperations: records added and linked by lid, updated, related and
// removed in atomic requests, through ref, href and data, and upsert.
func TestAtomicOperations(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		r := a.atomic(`
			{"op":"add","data":{"type":"accounts","lid":"acme","attributes":{"name":"Atomic Acme"}}},
			{"op":"add","data":{"type":"contacts","lid":"ada","attributes":{"firstName":"Ada","lastName":"Lovelace"},
				"relationships":{"accounts":{"data":[{"type":"accounts","lid":"acme"}]}}}},
			{"op":"update","ref":{"type":"accounts","lid":"acme"},"data":{"type":"accounts","lid":"acme","attributes":{"name":"Atomic Acme Inc"}}},
			{"op":"add","data":{"type":"contacts","attributes":{"firstName":"Bob","lastName":"Byte"}}}`).want(t, 200)
		if ct := r.header.Get("Content-Type"); ct != atomicType {
			t.Fatalf("Content-Type %q", ct)
		}
		results, _ := r.value("atomic:results").([]any)
		if len(results) != 4 {
			t.Fatalf("results %s", r.body)
		}
		acme, _ := r.value("atomic:results/0/data/id").(string)
		ada, _ := r.value("atomic:results/1/data/id").(string)
		bob, _ := r.value("atomic:results/3/data/id").(string)
		if got := r.value("atomic:results/1/data/relationships/accounts/data/0/id"); got != acme {
			t.Fatalf("the contact's account %v, want %s\n%s", got, acme, r.body)
		}
		if got := r.value("atomic:results/2/data/attributes/name"); got != "Atomic Acme Inc" {
			t.Fatalf("updated name %v", got)
		}
		a.do(http.MethodGet, "/admin/api/accounts/"+acme, jsonAPI, "").want(t, 200)

		// relationship operations and remove: no data, so 204
		a.atomic(`
			{"op":"add","ref":{"type":"accounts","id":"`+acme+`","relationship":"contacts"},"data":[{"type":"contacts","id":"`+bob+`"}]},
			{"op":"remove","ref":{"type":"accounts","id":"`+acme+`","relationship":"contacts"},"data":[{"type":"contacts","id":"`+ada+`"}]}`).want(t, 204)
		got := a.do(http.MethodGet, "/admin/api/accounts/"+acme+"/relationships/contacts", jsonAPI, "").want(t, 200)
		if list, _ := got.value("data").([]any); len(list) != 1 || got.value("data/0/id") != bob {
			t.Fatalf("contacts after the relationship operations: %s", got.body)
		}
		a.atomic(`{"op":"update","href":"/api/accounts/`+acme+`/relationships/contacts","data":[]},
			{"op":"remove","href":"`+a.base+`/admin/api/contacts/`+ada+`"}`).want(t, 204)
		a.do(http.MethodGet, "/admin/api/contacts/"+ada, jsonAPI, "").want(t, 404)

		// update by data alone, a to-one relationship, and upsert in data.meta
		a.atomic(`{"op":"update","data":{"type":"accounts","id":"`+acme+`","attributes":{"name":"By data"}}},
			{"op":"update","ref":{"type":"accounts","id":"`+acme+`","relationship":"defaultContact"},"data":{"type":"contacts","id":"`+bob+`"}},
			{"op":"add","data":{"type":"accounts","meta":{"upsert":["externalId"]},"attributes":{"name":"By data meta","externalId":"AT-2"}}}`).want(t, 200)
		got = a.do(http.MethodGet, "/admin/api/accounts/"+acme, jsonAPI, "").want(t, 200)
		if got.value("data/attributes/name") != "By data" || got.value("data/relationships/defaultContact/data/id") != bob {
			t.Fatalf("after the update by data: %s", got.body)
		}

		// upsert through meta
		a.atomic(`{"op":"add","data":{"type":"accounts","attributes":{"name":"Upserted","externalId":"AT-1"}},"meta":{"upsert":["externalId"]}}`).want(t, 200)
		u := a.atomic(`{"op":"add","data":{"type":"accounts","attributes":{"name":"Upserted again","externalId":"AT-1"}},"meta":{"upsert":["externalId"]}}`).want(t, 200)
		if n := a.count("/admin/api/accounts?filter[externalId]=AT-1"); n != 1 || u.value("atomic:results/0/data/attributes/name") != "Upserted again" {
			t.Fatalf("upsert: %d records, %s", n, u.body)
		}
	})
}

// TestAtomicAllOrNothing: a failure in the last operation, found by the schema
// or by the database, stores none of the operations before it.
func TestAtomicAllOrNothing(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		before := a.count("/admin/api/accounts?filter[name]=Kept")
		r := a.atomic(`
			{"op":"add","data":{"type":"accounts","lid":"a","attributes":{"name":"Kept"}}},
			{"op":"add","data":{"type":"accounts","attributes":{"name":"Kept"}}},
			{"op":"add","data":{"type":"contacts","attributes":{"firstName":"x","lastName":""},
				"relationships":{"accounts":{"data":[{"type":"accounts","lid":"a"}]}}}},
			{"op":"add","data":{"type":"accounts","attributes":{"name":42}}}`).want(t, 400)
		if p := r.value("errors/0/source/pointer"); p != "/atomic:operations/3/data/attributes/name" {
			t.Fatalf("pointer %v\n%s", p, r.body)
		}
		if n := a.count("/admin/api/accounts?filter[name]=Kept"); n != before {
			t.Fatalf("%d accounts stored by a failed atomic request", n-before)
		}
		// a relationship operation naming a record that does not exist
		r = a.atomic(`
			{"op":"add","data":{"type":"accounts","lid":"k","attributes":{"name":"Kept"}}},
			{"op":"add","ref":{"type":"accounts","lid":"k","relationship":"contacts"},"data":[{"type":"contacts","id":"999999"}]}`).want(t, 404)
		if p := r.value("errors/0/source/pointer"); p != "/atomic:operations/1/data/0" {
			t.Fatalf("pointer %v\n%s", p, r.body)
		}
		// a unique clash the database finds (a failed statement, which aborts a
		// PostgreSQL transaction) is the client's 400, and rolls back the rest
		r = a.atomic(`
			{"op":"add","data":{"type":"accounts","attributes":{"name":"Kept","externalId":"AT-U"}}},
			{"op":"add","data":{"type":"accounts","attributes":{"name":"Kept","externalId":"AT-U"}}}`).want(t, 400)
		if p := r.value("errors/0/source/pointer"); p != "/atomic:operations/1/data/attributes/externalId" {
			t.Fatalf("pointer %v\n%s", p, r.body)
		}
		if n := a.count("/admin/api/accounts?filter[name]=Kept"); n != before {
			t.Fatalf("%d accounts stored by a failed atomic request", n-before)
		}
	})
}

// TestAtomicMalformed: bad operations are 4xx error documents pointing into
// the request, and store nothing.
func TestAtomicMalformed(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		add := `{"op":"add","data":{"type":"accounts","lid":"x","attributes":{"name":"Malformed"}}}`
		for _, c := range []struct {
			name, ops string
			status    int
			pointer   string
		}{
			{"missing op", `{"data":{"type":"accounts","attributes":{"name":"n"}}}`, 400, "/atomic:operations/0/op"},
			{"unknown op", `{"op":"upsert","data":{"type":"accounts","attributes":{"name":"n"}}}`, 400, "/atomic:operations/0/op"},
			{"ref and href", add + `,{"op":"remove","ref":{"type":"accounts","id":"1"},"href":"/api/accounts/1"}`, 400, "/atomic:operations/1"},
			{"unknown lid", add + `,{"op":"update","ref":{"type":"accounts","lid":"y"},"data":{"type":"accounts","lid":"y","attributes":{}}}`, 400, "/atomic:operations/1/data/lid"},
			{"unknown lid in ref", add + `,{"op":"remove","ref":{"type":"accounts","lid":"y"}}`, 400, "/atomic:operations/1/ref/lid"},
			{"lid reused", add + `,` + add, 400, "/atomic:operations/1/data/lid"},
			{"lid of another type", add + `,{"op":"remove","ref":{"type":"contacts","lid":"x"}}`, 400, "/atomic:operations/1/ref/lid"},
			{"lid and id", `{"op":"add","data":{"type":"accounts","id":"1","lid":"x","attributes":{"name":"n"}}}`, 400, "/atomic:operations/0/data/lid"},
			{"unknown type", `{"op":"add","data":{"type":"gadgets","attributes":{}}}`, 404, "/atomic:operations/0"},
			{"unknown href", `{"op":"remove","href":"/elsewhere/1"}`, 400, "/atomic:operations/0/href"},
			{"remove a country", `{"op":"remove","href":"/api/countries/US"}`, 405, "/atomic:operations/0"},
			{"remove from a to-one", `{"op":"remove","ref":{"type":"accounts","id":"1","relationship":"owner"},"data":null}`, 403, "/atomic:operations/0"},
			{"update a country", `{"op":"update","href":"/api/countries/US","data":{"type":"countries","id":"US","attributes":{}}}`, 403, "/atomic:operations/0"},
			{"update a read-only relationship", `{"op":"update","ref":{"type":"accounts","id":"1","relationship":"organization"},"data":{"type":"organizations","id":"1"}}`, 403, "/atomic:operations/0"},
			{"unknown relationship", `{"op":"add","ref":{"type":"accounts","id":"1","relationship":"friends"},"data":[]}`, 404, "/atomic:operations/0"},
			{"href with a query", `{"op":"remove","href":"/api/accounts/1?x=1"}`, 400, "/atomic:operations/0/href"},
			{"href of another host", `{"op":"remove","href":"https://elsewhere.example/admin/api/accounts/1"}`, 400, "/atomic:operations/0/href"},
			{"remove with data", `{"op":"remove","ref":{"type":"accounts","id":"1"},"data":{"type":"accounts","id":"1"}}`, 400, "/atomic:operations/0/data"},
			{"update without id", `{"op":"update","data":{"type":"accounts","attributes":{}}}`, 400, "/atomic:operations/0"},
			{"an atomic request in an atomic request", `{"op":"add","data":{"type":"operations","attributes":{}}}`, 400, "/atomic:operations/0"},
			{"a batch", `{"op":"update","href":"/api/accounts","data":[]}`, 400, "/atomic:operations/0"},
			{"cancel an asynchronous operation", `{"op":"update","ref":{"type":"asyncoperations","id":"1"},"data":{"type":"asyncoperations","id":"1"}}`, 400, "/atomic:operations/0"},
			{"extra member", `{"op":"add","data":{"type":"accounts","attributes":{"name":"n"}},"color":"red"}`, 400, ""},
			{"type against ref", `{"op":"update","ref":{"type":"accounts","id":"1"},"data":{"type":"contacts","id":"1","attributes":{}}}`, 409, "/atomic:operations/0/data/type"},
			{"empty operations", ``, 400, ""},
			{"not an array", `{}}`, 400, ""},
		} {
			t.Run(c.name, func(t *testing.T) {
				body := `{"atomic:operations":[` + c.ops + `]}`
				if c.name == "not an array" {
					body = `{"atomic:operations":{}}`
				}
				r := a.do(http.MethodPost, "/admin/api/operations", atomicHeaders, body).want(t, c.status)
				if c.pointer != "" && r.value("errors/0/source/pointer") != c.pointer {
					t.Fatalf("pointer %v, want %s\n%s", r.value("errors/0/source/pointer"), c.pointer, r.body)
				}
			})
		}
		if n := a.count("/admin/api/accounts?filter[name]=Malformed"); n != 0 {
			t.Fatalf("%d accounts stored by refused requests", n)
		}
	})
}

// TestAtomicAccess: each operation has the roles of its own route, and another
// organization's records do not exist for it.
func TestAtomicAccess(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		// a manager may add accounts but not users: 403, and the account is not stored
		r := a.caller("manager").atomic(`
			{"op":"add","data":{"type":"accounts","attributes":{"name":"Denied Co"}}},
			{"op":"add","data":{"type":"users","attributes":{"username":"denied"}}}`).want(t, 403)
		if p := r.value("errors/0/source/pointer"); p != "/atomic:operations/1" {
			t.Fatalf("pointer %v\n%s", p, r.body)
		}
		a.caller("viewer").atomic(`{"op":"add","data":{"type":"accounts","attributes":{"name":"Denied Co"}}}`).want(t, 403)
		if n := a.count("/admin/api/accounts?filter[name]=Denied%20Co"); n != 0 {
			t.Fatalf("%d accounts stored by refused requests", n)
		}
		// another organization's record is not found
		other := a.caller("elsewhere-admin").do(http.MethodPost, "/admin/api/accounts", jsonAPI,
			`{"data":{"type":"accounts","attributes":{"name":"Theirs"}}}`).want(t, 201)
		id, _ := other.value("data/id").(string)
		a.atomic(`{"op":"update","ref":{"type":"accounts","id":"`+id+`"},"data":{"type":"accounts","id":"`+id+`","attributes":{"name":"Mine"}}}`).want(t, 404)
		a.atomic(`{"op":"remove","ref":{"type":"accounts","id":"`+id+`"}}`).want(t, 404)
		a.caller("elsewhere-admin").do(http.MethodGet, "/admin/api/accounts/"+id, jsonAPI, "").want(t, 200)
	})
}

// TestAtomicMediaTypes: the extension media type is required on
// /admin/api/operations and still refused everywhere else.
func TestAtomicMediaTypes(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		body := `{"atomic:operations":[{"op":"add","data":{"type":"accounts","attributes":{"name":"Media"}}}]}`
		for _, c := range []struct {
			name       string
			accept, ct string
			status     int
		}{
			{"ext both ways", atomicType, atomicType, 200},
			{"accept without parameters", "application/vnd.api+json", atomicType, 200},
			{"ext without a space", atomicType, `application/vnd.api+json;ext="https://jsonapi.org/ext/atomic"`, 200},
			{"no accept", "", atomicType, 200},
			{"accept wildcard", "*/*", atomicType, 200},
			{"content type without ext", atomicType, "application/vnd.api+json", 415},
			{"content type with another ext", atomicType, `application/vnd.api+json; ext="https://example.com/ext"`, 415},
			{"content type with another parameter", atomicType, atomicType + `; charset=utf-8`, 415},
			{"plain content type", atomicType, "application/json", 415},
			{"accept with another ext", `application/vnd.api+json; ext="https://example.com/ext"`, atomicType, 406},
			{"plain accept", "application/json", atomicType, 406},
		} {
			t.Run(c.name, func(t *testing.T) {
				r := a.do(http.MethodPost, "/admin/api/operations", map[string]string{"Accept": c.accept, "Content-Type": c.ct}, body).want(t, c.status)
				if c.status >= 400 && r.header.Get("Content-Type") != "application/vnd.api+json" {
					t.Fatalf("error Content-Type %q", r.header.Get("Content-Type"))
				}
			})
		}
		// the extension is refused everywhere else, as before
		a.do(http.MethodPost, "/admin/api/accounts", map[string]string{"Accept": "application/vnd.api+json", "Content-Type": atomicType},
			`{"data":{"type":"accounts","attributes":{"name":"x"}}}`).want(t, 415)
		a.do(http.MethodGet, "/admin/api/accounts", map[string]string{"Accept": atomicType}, "").want(t, 406)
	})
}

// TestAtomicLimit: --max-atomic-operations and --max-body bound a request.
func TestAtomicLimit(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			a := newAPIWith(t, storagetest.Open(t, dialect), func(c *server.Config) { c.MaxAtomicOperations = 3 })
			op := `{"op":"add","data":{"type":"accounts","attributes":{"name":"Limited"}}}`
			r := a.atomic(strings.Repeat(op+",", 3)+op).want(t, 413)
			if p := r.value("errors/0/source/pointer"); p != "/atomic:operations" {
				t.Fatalf("pointer %v\n%s", p, r.body)
			}
			// the body is bounded by --max-body (64 KiB in the tests) as any other
			long := `{"op":"add","data":{"type":"accounts","attributes":{"name":"` + strings.Repeat("x", 70<<10) + `"}}}`
			a.atomic(long).want(t, 413)
			a.atomic(strings.Repeat(op+",", 2)+op).want(t, 200)
			if n := a.count("/admin/api/accounts?filter[name]=Limited"); n != 3 {
				t.Fatalf("%d accounts, want 3", n)
			}
		})
	}
}
