package server_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// wantAudit is an audit record a write should leave. fields are the
// changes it must name, by field: [2]any{old, new} for a value, secret for
// a field whose values are withheld, collection for a to-many
// relationship; only, when set, says they are all it names.
type wantAudit struct {
	typ, action, id string
	fields          map[string]any
	only            bool
}

// secret marks a field whose change an audit names without its values.
type secretField struct{}

var withheld = secretField{}

// collection is the change of a to-many relationship.
type collection struct{ added, removed []string }

// auditTrail reads the audit records of a server as an auditor would:
// those written since the last read.
type auditTrail struct {
	a    *api
	last int64
}

// next reads the audit records after the last one seen.
func (f *auditTrail) next(t *testing.T) []map[string]any {
	t.Helper()
	var got []map[string]any
	path := "/admin/api/audits?page[size]=100&filter[id][gt]=" + strconv.FormatInt(f.last, 10)
	r := f.a.do(http.MethodGet, path, jsonAPI, "").want(t, 200)
	list, _ := r.value("data").([]any)
	for _, v := range list {
		rec := v.(map[string]any)
		got = append(got, rec)
		id, _ := strconv.ParseInt(rec["id"].(string), 10, 64)
		f.last = max(f.last, id)
	}
	return got
}

// expect reads the audit records of the writes since the last read and
// compares them with want, in any order (the triggers of one statement
// fire in an order each database picks), and checks that each names the
// caller and a request.
func (f *auditTrail) expect(t *testing.T, want []wantAudit) {
	t.Helper()
	got := f.next(t)
	if len(got) != len(want) {
		t.Fatalf("%d audit records, want %d: %s", len(got), len(want), mustJSON(got))
	}
	used := make([]bool, len(got))
	for _, w := range want {
		found := false
		for i, rec := range got {
			if !used[i] && auditMatches(rec["attributes"].(map[string]any), w) == "" {
				used[i], found = true, true
				break
			}
		}
		if !found {
			var why []string
			for _, rec := range got {
				why = append(why, auditMatches(rec["attributes"].(map[string]any), w))
			}
			t.Errorf("no audit record is %s %s %s %v:\n%s\ngot %s", w.typ, w.action, w.id, w.fields, strings.Join(why, "\n"), mustJSON(got))
		}
	}
	for _, rec := range got {
		attrs := rec["attributes"].(map[string]any)
		if attrs["userId"] == nil || attrs["clientId"] != "test-admin" || attrs["transactionId"] == nil || attrs["transactionId"] == "" {
			t.Errorf("audit record %v names user %v, client %v, request %v: want the caller's", rec["id"], attrs["userId"], attrs["clientId"], attrs["transactionId"])
		}
		if _, err := time.Parse(time.RFC3339, fmt.Sprint(attrs["loggedAt"])); err != nil {
			t.Errorf("audit record %v: loggedAt %v", rec["id"], attrs["loggedAt"])
		}
	}
}

// auditMatches says why the record's attributes are not w ("" when they are).
func auditMatches(attrs map[string]any, w wantAudit) string {
	if attrs["objectClass"] != w.typ || attrs["action"] != w.action || (w.id != "" && attrs["objectId"] != w.id) {
		return fmt.Sprintf("%v %v %v", attrs["objectClass"], attrs["action"], attrs["objectId"])
	}
	fields := map[string]map[string]any{}
	for _, f := range attrs["fields"].([]any) {
		m := f.(map[string]any)
		fields[m["field"].(string)] = m
	}
	if w.only && len(fields) != len(w.fields) {
		return fmt.Sprintf("fields %v, want only %v", attrs["fields"], w.fields)
	}
	for name, want := range w.fields {
		f, ok := fields[name]
		if !ok {
			return "no field " + name
		}
		switch v := want.(type) {
		case [2]any:
			if !reflect.DeepEqual(f["oldValue"], v[0]) || !reflect.DeepEqual(f["newValue"], v[1]) || f["dataType"] == "secret" {
				return fmt.Sprintf("%s %v -> %v, want %v -> %v", name, f["oldValue"], f["newValue"], v[0], v[1])
			}
		case secretField:
			if f["dataType"] != "secret" || f["oldValue"] != nil || f["newValue"] != nil {
				return fmt.Sprintf("%s shows %v", name, f)
			}
		case collection:
			if f["dataType"] != "collection" || !sameStrings(f["added"], v.added) || !sameStrings(f["removed"], v.removed) {
				return fmt.Sprintf("%s %v", name, f)
			}
		}
	}
	return ""
}

func sameStrings(v any, want []string) bool {
	list, _ := v.([]any)
	got := make([]string, len(list))
	for i, x := range list {
		got[i], _ = x.(string)
	}
	return slices.Equal(got, want) || (len(got) == 0 && len(want) == 0)
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestAuditOnEveryWritePath drives each way a record can change over HTTP
// and reads the audit records it left: who, which record, what, each
// field's old and new value. Writes that fail or roll back leave none,
// which the marker write after them shows (its record comes alone).
func TestAuditOnEveryWritePath(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		f := &auditTrail{a: a}
		f.next(t)
		marker := func(t *testing.T) []wantAudit {
			id := a.createAccount(t, "Marker")
			return []wantAudit{{typ: "accounts", action: "create", id: id, fields: map[string]any{"name": [2]any{nil, "Marker"}}}}
		}
		cases := []struct {
			name  string
			write func(t *testing.T) []wantAudit
		}{
			{"create", func(t *testing.T) []wantAudit {
				id := a.createAccount(t, "Created")
				return []wantAudit{{typ: "accounts", action: "create", id: id, fields: map[string]any{"name": [2]any{nil, "Created"}}}}
			}},
			{"update", func(t *testing.T) []wantAudit {
				id := a.createAccount(t, "Before")
				a.do(http.MethodPatch, "/admin/api/accounts/"+id, jsonAPI,
					`{"data":{"type":"accounts","id":"`+id+`","attributes":{"name":"After","externalId":"U-1"}}}`).want(t, 200)
				return []wantAudit{{typ: "accounts", action: "create", id: id},
					{typ: "accounts", action: "update", id: id, only: true,
						fields: map[string]any{"name": [2]any{"Before", "After"}, "externalId": [2]any{nil, "U-1"}}}}
			}},
			{"update that changes nothing", func(t *testing.T) []wantAudit {
				id := a.createAccount(t, "Same")
				a.do(http.MethodPatch, "/admin/api/accounts/"+id, plain, `{"name":"Same"}`).want(t, 200)
				return []wantAudit{{typ: "accounts", action: "create", id: id}}
			}},
			{"delete", func(t *testing.T) []wantAudit {
				id := a.createAccount(t, "Doomed")
				a.do(http.MethodDelete, "/admin/api/accounts/"+id, jsonAPI, "").want(t, 204)
				return []wantAudit{{typ: "accounts", action: "create", id: id},
					{typ: "accounts", action: "remove", id: id, fields: map[string]any{"name": [2]any{"Doomed", nil}}}}
			}},
			{"a record whose id the client gives", func(t *testing.T) []wantAudit {
				a.do(http.MethodPost, "/admin/api/weightunits", jsonAPI,
					`{"data":{"type":"weightunits","id":"aud","attributes":{"conversionRates":{"kg":1}}}}`).want(t, 201)
				a.do(http.MethodDelete, "/admin/api/weightunits/aud", jsonAPI, "").want(t, 204)
				return []wantAudit{{typ: "weightunits", action: "create", id: "aud", only: true,
					fields: map[string]any{"conversionRates": [2]any{nil, map[string]any{"kg": float64(1)}}}},
					{typ: "weightunits", action: "remove", id: "aud"}}
			}},
			{"delete of a missing record", func(t *testing.T) []wantAudit {
				a.do(http.MethodDelete, "/admin/api/accounts/999999", jsonAPI, "").want(t, 404)
				return marker(t)
			}},
			{"delete by filter", func(t *testing.T) []wantAudit {
				one, two := a.createAccount(t, "Filtered"), a.createAccount(t, "Filtered")
				a.do(http.MethodDelete, "/admin/api/accounts?filter[name]=Filtered", jsonAPI, "").want(t, 204)
				return []wantAudit{{typ: "accounts", action: "create", id: one}, {typ: "accounts", action: "create", id: two},
					{typ: "accounts", action: "remove", id: one}, {typ: "accounts", action: "remove", id: two}}
			}},
			{"to-many relationship endpoint", func(t *testing.T) []wantAudit {
				id := a.createAccount(t, "Related")
				r := a.do(http.MethodPost, "/admin/api/contacts", jsonAPI,
					`{"data":{"type":"contacts","attributes":{"firstName":"Ada","lastName":"Rel"}}}`).want(t, 201)
				contact := r.value("data/id").(string)
				a.do(http.MethodPost, "/admin/api/accounts/"+id+"/relationships/contacts", jsonAPI,
					`{"data":[{"type":"contacts","id":"`+contact+`"}]}`).want(t, 204)
				a.do(http.MethodDelete, "/admin/api/accounts/"+id+"/relationships/contacts", jsonAPI,
					`{"data":[{"type":"contacts","id":"`+contact+`"}]}`).want(t, 204)
				return []wantAudit{{typ: "accounts", action: "create", id: id},
					{typ: "contacts", action: "create", id: contact,
						fields: map[string]any{"firstName": [2]any{nil, "Ada"}, "lastName": [2]any{nil, "Rel"}}},
					{typ: "accounts", action: "update", id: id, only: true, fields: map[string]any{"contacts": collection{added: []string{contact}}}},
					{typ: "contacts", action: "update", id: contact, only: true, fields: map[string]any{"accounts": collection{added: []string{id}}}},
					{typ: "accounts", action: "update", id: id, only: true, fields: map[string]any{"contacts": collection{removed: []string{contact}}}},
					{typ: "contacts", action: "update", id: contact, only: true, fields: map[string]any{"accounts": collection{removed: []string{id}}}}}
			}},
			{"to-one relationship endpoint", func(t *testing.T) []wantAudit {
				id, other := a.createAccount(t, "Referred"), a.createAccount(t, "Referrer")
				a.do(http.MethodPatch, "/admin/api/accounts/"+id+"/relationships/referredBy", jsonAPI,
					`{"data":{"type":"accounts","id":"`+other+`"}}`).want(t, 204)
				return []wantAudit{{typ: "accounts", action: "create", id: id}, {typ: "accounts", action: "create", id: other},
					{typ: "accounts", action: "update", id: id, only: true, fields: map[string]any{"referredBy": [2]any{nil, other}}}}
			}},
			{"upsert", func(t *testing.T) []wantAudit {
				body := func(name string) string {
					return `{"data":{"type":"accounts","meta":{"upsert":["externalId"]},"attributes":{"name":"` + name + `","externalId":"UP-A"}}}`
				}
				r := a.do(http.MethodPost, "/admin/api/accounts", jsonAPI, body("Upserted")).want(t, 201)
				id := r.value("data/id").(string)
				a.do(http.MethodPost, "/admin/api/accounts", jsonAPI, body("Upserted again")).want(t, 200)
				return []wantAudit{{typ: "accounts", action: "create", id: id},
					{typ: "accounts", action: "update", id: id, only: true, fields: map[string]any{"name": [2]any{"Upserted", "Upserted again"}}}}
			}},
			{"included records", func(t *testing.T) []wantAudit {
				r := a.do(http.MethodPost, "/admin/api/accounts", jsonAPI, `{"data":{"type":"accounts","attributes":{"name":"With contact"},
					"relationships":{"contacts":{"data":[{"type":"contacts","id":"c1"}]}}},
					"included":[{"type":"contacts","id":"c1","attributes":{"firstName":"Inc","lastName":"Luded"}}]}`).want(t, 201)
				id := r.value("data/id").(string)
				contact := r.value("included/0/id").(string)
				return []wantAudit{{typ: "accounts", action: "create", id: id}, {typ: "contacts", action: "create", id: contact},
					{typ: "accounts", action: "update", id: id, fields: map[string]any{"contacts": collection{added: []string{contact}}}},
					{typ: "contacts", action: "update", id: contact, fields: map[string]any{"accounts": collection{added: []string{id}}}}}
			}},
			{"a user's password", func(t *testing.T) []wantAudit {
				r := a.do(http.MethodPost, "/admin/api/users", jsonAPI,
					`{"data":{"type":"users","attributes":{"username":"audited","email":"audited@example.com","firstName":"Au","lastName":"Dited","password":"S3cret-Passw0rd!"}}}`).want(t, 201)
				id := r.value("data/id").(string)
				a.do(http.MethodPatch, "/admin/api/users/"+id, jsonAPI,
					`{"data":{"type":"users","id":"`+id+`","attributes":{"enabled":false}}}`).want(t, 200)
				return []wantAudit{{typ: "users", action: "create", id: id,
					fields: map[string]any{"username": [2]any{nil, "audited"}, "enabled": [2]any{nil, true}, "password": withheld}},
					{typ: "users", action: "update", id: id, only: true, fields: map[string]any{"enabled": [2]any{true, false}}}}
			}},
			{"a webhook (served by hand, no entity of the documents)", func(t *testing.T) []wantAudit {
				id, _ := createWebhook(t, a, "https://hooks.example.com/audited", `["accounts.created"]`)
				a.do(http.MethodPatch, "/admin/api/webhooks/"+id, jsonAPI,
					`{"data":{"type":"webhooks","id":"`+id+`","attributes":{"url":"https://elsewhere.example.com/x"}}}`).want(t, 200)
				a.do(http.MethodPatch, "/admin/api/webhooks/"+id, jsonAPI,
					`{"data":{"type":"webhooks","id":"`+id+`","meta":{"rotateSecret":true}}}`).want(t, 200)
				a.do(http.MethodDelete, "/admin/api/webhooks/"+id, jsonAPI, "").want(t, 204)
				return []wantAudit{{typ: "webhooks", action: "create", id: id, only: true, fields: map[string]any{
					"url": [2]any{nil, "https://hooks.example.com/audited"}, "eventTypes": [2]any{nil, []any{"accounts.created"}},
					"enabled": [2]any{nil, true}, "secret": withheld}},
					{typ: "webhooks", action: "update", id: id, only: true,
						fields: map[string]any{"url": [2]any{"https://hooks.example.com/audited", "https://elsewhere.example.com/x"}}},
					{typ: "webhooks", action: "update", id: id, only: true, fields: map[string]any{"secret": withheld}},
					{typ: "webhooks", action: "remove", id: id, fields: map[string]any{"url": [2]any{"https://elsewhere.example.com/x", nil}}}}
			}},
			{"unique clash", func(t *testing.T) []wantAudit {
				id := a.do(http.MethodPost, "/admin/api/accounts", jsonAPI,
					`{"data":{"type":"accounts","attributes":{"name":"Unique","externalId":"UNIQ-A"}}}`).want(t, 201).value("data/id").(string)
				a.do(http.MethodPost, "/admin/api/accounts", jsonAPI,
					`{"data":{"type":"accounts","attributes":{"name":"Unique again","externalId":"UNIQ-A"}}}`).want(t, 400)
				return append([]wantAudit{{typ: "accounts", action: "create", id: id}}, marker(t)...)
			}},
			{"validate-only write", func(t *testing.T) []wantAudit {
				a.do(http.MethodPost, "/admin/api/accounts", jsonAPI,
					`{"data":{"type":"accounts","meta":{"validate":true},"attributes":{"name":"Only checked"}}}`).want(t, 201)
				return marker(t)
			}},
			{"atomic operations", func(t *testing.T) []wantAudit {
				r := a.atomic(`{"op":"add","data":{"type":"accounts","lid":"a","attributes":{"name":"Atomic"}}},
					{"op":"update","ref":{"type":"accounts","lid":"a"},"data":{"type":"accounts","lid":"a","attributes":{"externalId":"AT-A"}}}`).want(t, 200)
				id := r.value("atomic:results/0/data/id").(string)
				return []wantAudit{{typ: "accounts", action: "create", id: id, fields: map[string]any{"name": [2]any{nil, "Atomic"}}},
					{typ: "accounts", action: "update", id: id, only: true, fields: map[string]any{"externalId": [2]any{nil, "AT-A"}}}}
			}},
			{"atomic operations rolled back", func(t *testing.T) []wantAudit {
				a.atomic(`{"op":"add","data":{"type":"accounts","attributes":{"name":"Never"}}},
					{"op":"add","data":{"type":"accounts","attributes":{"name":""}}}`).want(t, 400)
				return marker(t)
			}},
			{"sync batch", func(t *testing.T) []wantAudit {
				r := a.do(http.MethodPatch, "/admin/api/accounts", syncMode, `{"data":[
					{"type":"accounts","attributes":{"name":"Sync A"}},
					{"type":"accounts","attributes":{"name":"Sync B"}}]}`).want(t, 200)
				return []wantAudit{
					{typ: "accounts", action: "create", id: r.value("data/0/id").(string), fields: map[string]any{"name": [2]any{nil, "Sync A"}}},
					{typ: "accounts", action: "create", id: r.value("data/1/id").(string), fields: map[string]any{"name": [2]any{nil, "Sync B"}}}}
			}},
			{"sync batch rolled back", func(t *testing.T) []wantAudit {
				a.do(http.MethodPatch, "/admin/api/accounts", syncMode, batchAccounts(3, "Never", 1)).want(t, 400)
				return marker(t)
			}},
			{"async batch", func(t *testing.T) []wantAudit {
				id := a.createAccount(t, "Batched")
				r := a.do(http.MethodPatch, "/admin/api/accounts", jsonAPI, `{"data":[
					{"type":"accounts","attributes":{"name":"Async A"}},
					{"type":"accounts","id":"`+id+`","meta":{"update":true},"attributes":{"name":"Batched again"}}]}`).want(t, 202)
				a.awaitOperation(t, r.value("data/id").(string))
				return []wantAudit{{typ: "accounts", action: "create", id: id},
					{typ: "accounts", action: "create", fields: map[string]any{"name": [2]any{nil, "Async A"}}},
					{typ: "accounts", action: "update", id: id, only: true, fields: map[string]any{"name": [2]any{"Batched", "Batched again"}}}}
			}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				f.expect(t, c.write(t))
			})
		}
	})
}

// TestAuditReads: the audit records are read by administrators and
// auditors only, each organization its own; they filter by record, type,
// action, user, request and time, sort by time and page by cursor, in both
// formats; a secret's value is in no record.
func TestAuditReads(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		id := a.createAccount(t, "Read me")
		patch := a.do(http.MethodPatch, "/admin/api/accounts/"+id, jsonAPI,
			`{"data":{"type":"accounts","id":"`+id+`","attributes":{"name":"Read again"}}}`).want(t, 200)
		request := patch.header.Get("X-Request-ID")
		r := a.do(http.MethodPost, "/admin/api/users", jsonAPI,
			`{"data":{"type":"users","attributes":{"username":"hidden","email":"hidden@example.com","firstName":"Hi","lastName":"Dden","password":"Never-Sh0wn-Secret"}}}`).want(t, 201)
		user := r.value("data/id").(string)

		t.Run("roles", func(t *testing.T) {
			for who, status := range map[string]int{"admin": 200, "auditor": 200, "manager": 403, "viewer": 403, "integration": 403} {
				a.caller(who).do(http.MethodGet, "/admin/api/audits", jsonAPI, "").want(t, status)
			}
		})
		t.Run("one record's history", func(t *testing.T) {
			r := a.caller("auditor").do(http.MethodGet, "/admin/api/audits?filter[objectClass]=accounts&filter[objectId]="+id+"&sort=-loggedAt,-id", jsonAPI, "").want(t, 200)
			list := r.value("data").([]any)
			if len(list) != 2 || get(list[0], "attributes/action") != "update" || get(list[1], "attributes/action") != "create" {
				t.Fatalf("history of account %s: %s", id, r.body)
			}
			one := a.do(http.MethodGet, "/admin/api/audits/"+get(list[0], "id").(string), jsonAPI, "").want(t, 200)
			if one.value("data/attributes/fields/0/newValue") != "Read again" || one.value("data/attributes/transactionId") != request {
				t.Errorf("GET one audit record: %s (request %s)", one.body, request)
			}
		})
		t.Run("filters", func(t *testing.T) {
			for _, c := range []struct {
				query string
				want  int
			}{
				{"filter[transactionId]=" + request, 1},
				{"filter[action]=update&filter[objectClass]=accounts&filter[objectId]=" + id, 1},
				{"filter[action][neq]=create&filter[objectClass]=accounts&filter[objectId]=" + id, 1},
				{"filter[userId]=999999", 0},
				{"filter[loggedAt][gte]=2000-01-01T00:00:00Z&filter[objectClass]=users&filter[objectId]=" + user, 1},
				{"filter[loggedAt][lt]=2000-01-01T00:00:00Z", 0},
			} {
				r := a.do(http.MethodGet, "/admin/api/audits?"+c.query, jsonAPI, "").want(t, 200)
				if got := len(r.value("data").([]any)); got != c.want {
					t.Errorf("%s: %d records, want %d: %s", c.query, got, c.want, r.body)
				}
			}
			a.do(http.MethodGet, "/admin/api/audits?filter[fields]=x", jsonAPI, "").want(t, 400)
			a.do(http.MethodGet, "/admin/api/audits?sort=objectClass", jsonAPI, "").want(t, 400)
		})
		t.Run("no secret", func(t *testing.T) {
			r := a.do(http.MethodGet, "/admin/api/audits?filter[objectClass]=users&filter[objectId]="+user, plain, "").want(t, 200)
			if strings.Contains(string(r.body), "Never-Sh0wn") || strings.Contains(string(r.body), "$2a$") || !strings.Contains(string(r.body), `"secret"`) {
				t.Errorf("a user's audit record shows the password: %s", r.body)
			}
			var stored string
			if err := a.store.DB().QueryRowContext(t.Context(), "SELECT fields FROM audits WHERE resource_type = 'users' AND resource_id = ?", user).Scan(&stored); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(stored, "$2a$") || strings.Contains(stored, "Never-Sh0wn") {
				t.Errorf("the audit table holds the password: %s", stored)
			}
		})
		t.Run("a webhook's fields are the administrators'", func(t *testing.T) {
			// An auditor reads that a webhook changed, and who changed it,
			// but not where it sends: only administrators read webhooks.
			hook, _ := createWebhook(t, a, "https://hooks.example.com/private-target", `["accounts.*"]`)
			path := "/admin/api/audits?filter[objectClass]=webhooks&filter[objectId]=" + hook
			count := func(v any) int {
				list, ok := v.([]any)
				if !ok {
					return -1
				}
				return len(list)
			}
			for who, fields := range map[string]int{"admin": 4, "auditor": 0} {
				for _, format := range []map[string]string{jsonAPI, plain} {
					r := a.caller(who).do(http.MethodGet, path, format, "").want(t, 200)
					if format["Accept"] == plain["Accept"] {
						list, _ := r.value("").([]any)
						if len(list) != 1 || count(get(list[0], "fields")) != fields {
							t.Errorf("%s reads the webhook's audit in the plain format as %s, want %d fields", who, r.body, fields)
						}
						continue
					}
					list, _ := r.value("data").([]any)
					if len(list) != 1 || get(list[0], "attributes/action") != "create" || count(get(list[0], "attributes/fields")) != fields {
						t.Errorf("%s reads the webhook's audit as %s, want one create with %d fields", who, r.body, fields)
					}
					if who == "auditor" && strings.Contains(string(r.body), "private-target") {
						t.Errorf("an auditor reads the webhook's address: %s", r.body)
					}
				}
			}
		})
		t.Run("cursor paging", func(t *testing.T) {
			seen := map[string]bool{}
			next := "/admin/api/audits?page[size]=1&page[after]="
			for i := 0; next != "" && i < 100; i++ {
				r := a.do(http.MethodGet, strings.TrimPrefix(next, a.base), jsonAPI, "").want(t, 200)
				for _, rec := range r.value("data").([]any) {
					seen[get(rec, "id").(string)] = true
				}
				next, _ = r.value("links/next").(string)
			}
			all := a.do(http.MethodGet, "/admin/api/audits?page[size]=100", jsonAPI, "").want(t, 200)
			if len(seen) != len(all.value("data").([]any)) || len(seen) < 3 {
				t.Errorf("cursor pages showed %d records, the list %d", len(seen), len(all.value("data").([]any)))
			}
		})
		t.Run("tenancy", func(t *testing.T) {
			other := a.caller("elsewhere-admin")
			r := other.do(http.MethodGet, "/admin/api/audits?filter[objectClass]=accounts", jsonAPI, "").want(t, 200)
			if n := len(r.value("data").([]any)); n != 0 {
				t.Errorf("another organization's administrator reads %d audit records of Main's accounts", n)
			}
			first := a.do(http.MethodGet, "/admin/api/audits?page[size]=1", jsonAPI, "").want(t, 200).value("data/0/id").(string)
			other.do(http.MethodGet, "/admin/api/audits/"+first, jsonAPI, "").want(t, 404)
		})
		t.Run("read-only", func(t *testing.T) {
			a.do(http.MethodPost, "/admin/api/audits", jsonAPI, `{"data":{"type":"audits","attributes":{"action":"create"}}}`).want(t, 405)
			a.do(http.MethodDelete, "/admin/api/audits?filter[objectClass]=accounts", jsonAPI, "").want(t, 405)
		})
	})
}
