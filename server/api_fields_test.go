package server_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"
)

// Field-level permissions (issue 33, docs/fields.md). The back office's
// document restricts a user's email and lastLogin to administrators and
// managers (x-readers), and a weight unit's conversionRates to
// administrators' writes (x-writers). These tests go through every read path
// the issue lists, as the roles that may and may not read, and every write
// path, as a role that may not write.

// hiddenEmail is a user's email address whose words are found nowhere else
// in the test database.
const hiddenEmail = "zq7hidden@fieldtest.example"

// fieldUser creates a user with hiddenEmail, changes its email (so that an
// event and an audit record name it), and an account it owns: it returns
// the user's and the account's ids.
func fieldUser(t *testing.T, a *api) (user, account string) {
	t.Helper()
	r := a.do(http.MethodPost, "/admin/api/users", jsonAPI,
		`{"data":{"type":"users","attributes":{"username":"fieldtester","email":"first@fieldtest.example","firstName":"Fiona","lastName":"Fields","password":"Field-Test-Passw0rd"}}}`).want(t, 201)
	user = r.value("data/id").(string)
	a.do(http.MethodPatch, "/admin/api/users/"+user, jsonAPI,
		`{"data":{"type":"users","id":"`+user+`","attributes":{"email":"`+hiddenEmail+`","lastName":"Fieldsworth"}}}`).want(t, 200)
	r = a.do(http.MethodPost, "/admin/api/accounts", jsonAPI,
		`{"data":{"type":"accounts","attributes":{"name":"Owned by Fiona"},"relationships":{"owner":{"data":{"type":"users","id":"`+user+`"}}}}}`).want(t, 201)
	return user, r.value("data/id").(string)
}

// readers are the test principals that read users, with whether they may
// read the restricted fields.
var fieldReaders = map[string]bool{"admin": true, "manager": true, "viewer": false, "integration": false, "auditor": false}

func TestFieldPermissionsOnEveryReadPath(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		user, account := fieldUser(t, a)
		for who, sees := range fieldReaders {
			c := a.caller(who)
			t.Run(who, func(t *testing.T) {
				shown := func(where string, attrs any) {
					t.Helper()
					m, ok := attrs.(map[string]any)
					if !ok {
						t.Fatalf("%s: no attributes: %v", where, attrs)
					}
					for _, field := range []string{"email", "lastLogin"} {
						if _, has := m[field]; has != sees {
							t.Errorf("%s: %s shown %v, want %v: %v", where, field, has, sees, m)
						}
					}
					if m["username"] != "fieldtester" {
						t.Errorf("%s: the other fields are not all there: %v", where, m)
					}
				}
				r := c.do(http.MethodGet, "/admin/api/users/"+user, jsonAPI, "").want(t, 200)
				shown("document", r.value("data/attributes"))
				r = c.do(http.MethodGet, "/admin/api/users?filter[id]="+user, jsonAPI, "").want(t, 200)
				shown("list", r.value("data/0/attributes"))
				r = c.do(http.MethodGet, "/admin/api/users/"+user, plain, "").want(t, 200)
				shown("plain document", r.doc)
				r = c.do(http.MethodGet, "/admin/api/users?filter[id]="+user, plain, "").want(t, 200)
				shown("plain list", r.value("0"))
				r = c.do(http.MethodGet, "/admin/api/accounts/"+account+"?include=owner", jsonAPI, "").want(t, 200)
				shown("included", r.value("included/0/attributes"))
				r = c.do(http.MethodGet, "/admin/api/accounts/"+account+"/owner", jsonAPI, "").want(t, 200)
				shown("related", r.value("data/attributes"))
				r = c.do(http.MethodGet, "/admin/api/search?filter[searchText]=fieldtester&include=entity", jsonAPI, "").want(t, 200)
				shown("search included", r.value("included/0/attributes"))

				// Asked for, or asked about, the fields answer as fields
				// that do not exist: the same status and words.
				for _, q := range []struct{ path, unknown string }{
					{"/admin/api/users?fields[users]=email", "/admin/api/users?fields[users]=noSuchField"},
					{"/admin/api/accounts?include=owner&fields[users]=username,lastLogin", "/admin/api/accounts?include=owner&fields[users]=username,noSuchField"},
					{"/admin/api/users?filter[email]=" + url.QueryEscape(hiddenEmail), "/admin/api/users?filter[noSuchField]=x"},
					{"/admin/api/users?filter[email][starts_with]=zq7", "/admin/api/users?filter[noSuchField][starts_with]=zq7"},
					{"/admin/api/users?sort=email", "/admin/api/users?sort=noSuchField"},
					{"/admin/api/users?filter[aggregations]=lastLogin%20max", "/admin/api/users?filter[aggregations]=noSuchField%20max"},
					{"/admin/api/accounts?filter[owner.email]=" + url.QueryEscape(hiddenEmail), "/admin/api/accounts?filter[owner.noSuchField]=x"},
					{"/admin/api/accounts?sort=owner.email", "/admin/api/accounts?sort=owner.noSuchField"},
				} {
					got := c.do(http.MethodGet, q.path, jsonAPI, "")
					if sees {
						got.want(t, 200)
						continue
					}
					unknown := c.do(http.MethodGet, q.unknown, jsonAPI, "").want(t, 400)
					got.want(t, 400)
					norm := func(r *result, field string) string {
						errs, _ := r.value("errors").([]any)
						for _, e := range errs {
							delete(e.(map[string]any), "meta")
						}
						return strings.ReplaceAll(mustJSON(errs), field, "FIELD")
					}
					field := "email"
					if strings.Contains(q.path, "lastLogin") {
						field = "lastLogin"
					}
					if norm(got, field) != norm(unknown, "noSuchField") {
						t.Errorf("%s answers otherwise than a field that does not exist:\n%s\n%s", q.path, got.body, unknown.body)
					}
				}

				// A search finds the words of the fields the caller reads,
				// and only those.
				for _, path := range []string{"/admin/api/users?filter[searchText]=zq7hidden", "/admin/api/search?filter[searchText]=zq7hidden"} {
					r := c.do(http.MethodGet, path, jsonAPI, "").want(t, 200)
					if found := len(r.value("data").([]any)) > 0; found != sees {
						t.Errorf("%s: found %v, want %v: %s", path, found, sees, r.body)
					}
				}
				r = c.do(http.MethodGet, "/admin/api/users?filter[searchText]=fieldtester%20Fieldsworth", jsonAPI, "").want(t, 200)
				if len(r.value("data").([]any)) != 1 {
					t.Errorf("a search of the fields every role reads: %s", r.body)
				}
				r = c.do(http.MethodGet, "/admin/api/search?filter[searchText]=Fieldsworth&filter[entities]=users", jsonAPI, "").want(t, 200)
				if r.value("data/0/attributes/title") != "Fiona Fieldsworth" {
					t.Errorf("search title: %s", r.body)
				}

				// Aggregations of the fields the caller reads still answer.
				r = c.do(http.MethodGet, "/admin/api/users?filter[aggregations]=loginCount%20max", jsonAPI, "").want(t, 200)
				if r.value("meta/aggregatedData/loginCountMax") == nil && !strings.Contains(string(r.body), "loginCountMax") {
					t.Errorf("an aggregation of a field every role reads: %s", r.body)
				}
			})
		}

		t.Run("two views are two representations", func(t *testing.T) {
			manager := a.caller("manager").do(http.MethodGet, "/admin/api/users/"+user, jsonAPI, "").want(t, 200)
			viewer := a.caller("viewer").do(http.MethodGet, "/admin/api/users/"+user, jsonAPI, "").want(t, 200)
			if manager.header.Get("ETag") == viewer.header.Get("ETag") {
				t.Errorf("a manager's and a viewer's document of a user have one ETag, %s", manager.header.Get("ETag"))
			}
			a.caller("viewer").do(http.MethodGet, "/admin/api/users/"+user, map[string]string{"Accept": jsonAPI["Accept"], "If-None-Match": manager.header.Get("ETag")}, "").want(t, 200)
		})

		t.Run("change events", func(t *testing.T) {
			path := "/admin/api/events?filter[resourceType]=users&filter[resourceId]=" + user + "&filter[action]=updated"
			// PostgreSQL numbers an event once no older transaction of the
			// server runs (another test database's may hold it a moment).
			for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
				if r := a.do(http.MethodGet, path, jsonAPI, "").want(t, 200); len(r.value("data").([]any)) > 0 {
					break
				}
			}
			for who, sees := range map[string]bool{"admin": true, "integration": false} {
				for _, headers := range []map[string]string{jsonAPI, plain} {
					r := a.caller(who).do(http.MethodGet, path, headers, "").want(t, 200)
					changed := r.value("data/0/attributes/changedAttributes")
					if headers["Accept"] == plain["Accept"] {
						changed = r.value("0/changedAttributes")
					}
					names, _ := changed.([]any)
					if slices.Contains(names, any("email")) != sees || !slices.Contains(names, any("lastName")) {
						t.Errorf("%s reads the event's changed attributes %v", who, changed)
					}
				}
			}
		})

		t.Run("audit values", func(t *testing.T) {
			path := "/admin/api/audits?filter[objectClass]=users&filter[objectId]=" + user + "&filter[action]=update"
			for who, sees := range map[string]bool{"admin": true, "auditor": false} {
				for _, headers := range []map[string]string{jsonAPI, plain} {
					r := a.caller(who).do(http.MethodGet, path, headers, "").want(t, 200)
					if strings.Contains(string(r.body), hiddenEmail) != sees || strings.Contains(string(r.body), `"email"`) != sees {
						t.Errorf("%s reads the audit of an email change: %s", who, r.body)
					}
					if !strings.Contains(string(r.body), "Fieldsworth") {
						t.Errorf("%s does not read the audit of the fields it may read: %s", who, r.body)
					}
				}
			}
		})
	})
}

func TestFieldPermissionsOnEveryWritePath(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		a.do(http.MethodPost, "/admin/api/weightunits", jsonAPI,
			`{"data":{"type":"weightunits","id":"fieldkg","attributes":{"conversionRates":{"g":1000}}}}`).want(t, 201)
		manager := a.caller("manager")
		rates := func() string {
			t.Helper()
			r := a.do(http.MethodGet, "/admin/api/weightunits/fieldkg", jsonAPI, "").want(t, 200)
			return mustJSON(r.value("data/attributes/conversionRates"))
		}
		before := rates()
		denied := func(r *result, pointer string) {
			t.Helper()
			r.want(t, 403)
			got := r.value("errors/0/source/pointer")
			if r.doc == nil { // the plain format: a list of errors, each naming its field
				got = r.value("0/source")
			}
			if got != pointer {
				t.Errorf("the 403 points at %v, want %s: %s", got, pointer, r.body)
			}
		}
		for _, c := range []struct {
			name, method, path string
			headers            map[string]string
			body, pointer      string
		}{
			{"create", http.MethodPost, "/admin/api/weightunits", jsonAPI,
				`{"data":{"type":"weightunits","id":"fieldnew","attributes":{"conversionRates":{"kg":0.001}}}}`, "/data/attributes/conversionRates"},
			{"update", http.MethodPatch, "/admin/api/weightunits/fieldkg", jsonAPI,
				`{"data":{"type":"weightunits","id":"fieldkg","attributes":{"conversionRates":{"g":1}}}}`, "/data/attributes/conversionRates"},
			{"plain update", http.MethodPatch, "/admin/api/weightunits/fieldkg", plain, `{"conversionRates":{"g":1}}`, "conversionRates"},
			{"upsert", http.MethodPost, "/admin/api/weightunits", jsonAPI,
				`{"data":{"type":"weightunits","id":"fieldkg","attributes":{"conversionRates":{"g":1}},"meta":{"upsert":true}}}`, "/data/attributes/conversionRates"},
			{"atomic", http.MethodPost, "/admin/api/operations", atomicHeaders,
				`{"atomic:operations":[{"op":"add","data":{"type":"weightunits","id":"fieldatomic","attributes":{}}},` +
					`{"op":"update","data":{"type":"weightunits","id":"fieldkg","attributes":{"conversionRates":{"g":1}}}}]}`,
				"/atomic:operations/1/data/attributes/conversionRates"},
			{"sync batch", http.MethodPatch, "/admin/api/weightunits",
				map[string]string{"Accept": jsonAPI["Accept"], "Content-Type": jsonAPI["Content-Type"], "X-Mode": "sync"},
				`{"data":[{"type":"weightunits","id":"fieldbatch","attributes":{}},{"type":"weightunits","id":"fieldkg","attributes":{"conversionRates":{"g":1}},"meta":{"update":true}}]}`,
				"/data/1/attributes/conversionRates"},
		} {
			t.Run(c.name, func(t *testing.T) {
				r := manager.do(c.method, c.path, c.headers, c.body)
				if c.name == "sync batch" && r.status == 400 {
					// A synchronous batch answers its items' problems with
					// the batch's status; each still points at its item.
					if !strings.Contains(string(r.body), c.pointer) || !strings.Contains(string(r.body), "access denied") {
						t.Errorf("the batch does not refuse the field: %s", r.body)
					}
				} else {
					denied(r, c.pointer)
				}
				if got := rates(); got != before {
					t.Errorf("the refused write changed the rates: %s, were %s", got, before)
				}
				for _, id := range []string{"fieldnew", "fieldatomic", "fieldbatch"} {
					a.do(http.MethodGet, "/admin/api/weightunits/"+id, jsonAPI, "").want(t, 404)
				}
			})
		}
		t.Run("async batch", func(t *testing.T) {
			// The job writes as the batch's sender: the item that sets the
			// rates is refused with its pointer, the other is written.
			r := manager.do(http.MethodPatch, "/admin/api/weightunits", jsonAPI,
				`{"data":[{"type":"weightunits","id":"fieldasync","attributes":{}},{"type":"weightunits","id":"fieldkg","attributes":{"conversionRates":{"g":1}},"meta":{"update":true}}]}`).want(t, 202)
			id := r.value("data/id").(string)
			done := manager.awaitOperation(t, id)
			if get(done.doc, "data/attributes/summary/errorCount") != 1.0 {
				t.Errorf("the batch's summary: %s", done.body)
			}
			errs := manager.do(http.MethodGet, "/admin/api/asyncoperations/"+id+"/errors", jsonAPI, "").want(t, 200)
			if errs.value("data/0/attributes/source/pointer") != "/data/1/attributes/conversionRates" || errs.value("data/0/attributes/status") != 403.0 {
				t.Errorf("the batch's error: %s", errs.body)
			}
			if got := rates(); got != before {
				t.Errorf("the refused item changed the rates: %s, were %s", got, before)
			}
			a.do(http.MethodGet, "/admin/api/weightunits/fieldasync", jsonAPI, "").want(t, 200)
		})
		t.Run("what the manager may write", func(t *testing.T) {
			manager.do(http.MethodPost, "/admin/api/weightunits", jsonAPI, `{"data":{"type":"weightunits","id":"fieldok","attributes":{}}}`).want(t, 201)
			a.do(http.MethodPatch, "/admin/api/weightunits/fieldok", jsonAPI,
				`{"data":{"type":"weightunits","id":"fieldok","attributes":{"conversionRates":{"g":2}}}}`).want(t, 200)
			r := manager.do(http.MethodGet, "/admin/api/weightunits/fieldok", jsonAPI, "").want(t, 200)
			if mustJSON(r.value("data/attributes/conversionRates")) != `{"g":2}` {
				t.Errorf("a manager reads the rates it may not write: %s", r.body)
			}
		})
	})
}

func TestServedDocumentNamesFieldReaders(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		r := a.caller("viewer").do(http.MethodGet, "/admin/api/openapi.json", map[string]string{"Accept": "application/json"}, "").want(t, 200)
		attrs := get(r.doc, "components/schemas/UserAttributes/properties")
		for _, field := range []string{"email", "lastLogin"} {
			readers, _ := get(attrs, field+"/x-readers").([]any)
			if !slices.Equal(readers, []any{"ROLE_ADMINISTRATOR", "ROLE_MANAGER"}) {
				t.Errorf("the served document's users.%s names the readers %v", field, readers)
			}
			if desc, _ := get(attrs, field+"/description").(string); !strings.Contains(desc, "Administrators and managers only") {
				t.Errorf("the served document's users.%s does not say who reads it: %q", field, desc)
			}
		}
		writers, _ := get(r.doc, "components/schemas/WeightUnitAttributes/properties/conversionRates/x-writers").([]any)
		if !slices.Equal(writers, []any{"ROLE_ADMINISTRATOR"}) {
			t.Errorf("the served document's weightunits.conversionRates names the writers %v", writers)
		}
	})
}
