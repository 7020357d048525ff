package server_test

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage/storagetest"
)

// wantEvent is an event a write should leave in the feed. id and version
// are checked when set.
type wantEvent struct {
	typ, action, id string
	attrs, rels     []string
	version         int
}

// feed follows the change events of a server as a consumer would: from
// the last event it has seen.
type feed struct {
	a    *api
	last int64
}

// next reads the events after the last one seen until n have arrived
// (PostgreSQL numbers an event once no older transaction is running, so
// a transaction of another test database may hold it back a moment), and
// then whatever else is there.
func (f *feed) next(t *testing.T, n int) []map[string]any {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	var got []map[string]any
	for {
		path := "/admin/api/events?page[size]=100&filter[id][gt]=" + strconv.FormatInt(f.last, 10)
		r := f.a.do(http.MethodGet, path, jsonAPI, "").want(t, 200)
		list, _ := r.value("data").([]any)
		got = got[:0]
		for _, v := range list {
			got = append(got, v.(map[string]any))
		}
		if len(got) >= n {
			break
		}
		if time.Now().After(deadline) {
			storagetest.LogOldTransactions(t, f.a.store)
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, ev := range got {
		id, _ := strconv.ParseInt(ev["id"].(string), 10, 64)
		f.last = max(f.last, id)
	}
	return got
}

// expect reads the events of the writes since the last read and compares
// them with want, in order.
func (f *feed) expect(t *testing.T, want []wantEvent) {
	t.Helper()
	got := f.next(t, len(want))
	if len(got) != len(want) {
		t.Fatalf("%d events, want %d: %v", len(got), len(want), got)
	}
	for i, w := range want {
		attrs, _ := got[i]["attributes"].(map[string]any)
		if attrs["resourceType"] != w.typ || attrs["action"] != w.action {
			t.Errorf("event %d is %v %v, want %s %s", i, attrs["resourceType"], attrs["action"], w.typ, w.action)
		}
		if w.id != "" && attrs["resourceId"] != w.id {
			t.Errorf("event %d is of record %v, want %s", i, attrs["resourceId"], w.id)
		}
		if w.version != 0 && attrs["version"] != float64(w.version) {
			t.Errorf("event %d has version %v, want %d", i, attrs["version"], w.version)
		}
		if w.attrs != nil && !sameNames(attrs["changedAttributes"], w.attrs) {
			t.Errorf("event %d changed attributes %v, want %v", i, attrs["changedAttributes"], w.attrs)
		}
		if w.rels != nil && !sameNames(attrs["changedRelationships"], w.rels) {
			t.Errorf("event %d changed relationships %v, want %v", i, attrs["changedRelationships"], w.rels)
		}
		if attrs["userId"] == nil || attrs["clientId"] != "test-admin" {
			t.Errorf("event %d names user %v and client %v, want the caller's", i, attrs["userId"], attrs["clientId"])
		}
		if _, err := time.Parse(time.RFC3339, fmt.Sprint(attrs["occurredAt"])); err != nil {
			t.Errorf("event %d: occurredAt %v", i, attrs["occurredAt"])
		}
	}
}

func sameNames(v any, want []string) bool {
	list, _ := v.([]any)
	got := make([]string, len(list))
	for i, x := range list {
		got[i], _ = x.(string)
	}
	return slices.Equal(got, want)
}

// createAccount creates an account and returns its id.
func (a *api) createAccount(t *testing.T, name string) string {
	t.Helper()
	r := a.do(http.MethodPost, "/admin/api/accounts", jsonAPI,
		`{"data":{"type":"accounts","attributes":{"name":"`+name+`"}}}`).want(t, 201)
	return r.value("data/id").(string)
}

// TestEventsOnEveryWritePath drives each way a record can change over HTTP
// and reads the events it left; writes that fail or roll back leave none,
// which the marker write after them shows (its event comes next, alone).
func TestEventsOnEveryWritePath(t *testing.T) {
	created, updated, deleted := "created", "updated", "deleted"
	eachAPI(t, func(t *testing.T, a *api) {
		f := &feed{a: a}
		f.next(t, 0)
		marker := func(t *testing.T) []wantEvent {
			a.createAccount(t, "Marker")
			return []wantEvent{{typ: "accounts", action: created, attrs: []string{"name"}}}
		}
		cases := []struct {
			name  string
			write func(t *testing.T) []wantEvent
		}{
			{"create", func(t *testing.T) []wantEvent {
				id := a.createAccount(t, "Created")
				return []wantEvent{{typ: "accounts", action: created, id: id, attrs: []string{"name"}, rels: []string{}, version: 1}}
			}},
			{"update", func(t *testing.T) []wantEvent {
				id := a.createAccount(t, "Before")
				a.do(http.MethodPatch, "/admin/api/accounts/"+id, jsonAPI,
					`{"data":{"type":"accounts","id":"`+id+`","attributes":{"name":"After","externalId":"U-1"}}}`).want(t, 200)
				return []wantEvent{{typ: "accounts", action: created, id: id, version: 1},
					{typ: "accounts", action: updated, id: id, attrs: []string{"externalId", "name"}, version: 2}}
			}},
			{"update in the plain format", func(t *testing.T) []wantEvent {
				id := a.createAccount(t, "Plain")
				a.do(http.MethodPatch, "/admin/api/accounts/"+id, plain, `{"name":"Plainer"}`).want(t, 200)
				return []wantEvent{{typ: "accounts", action: created, id: id},
					{typ: "accounts", action: updated, id: id, attrs: []string{"name"}, version: 2}}
			}},
			{"delete", func(t *testing.T) []wantEvent {
				id := a.createAccount(t, "Doomed")
				a.do(http.MethodDelete, "/admin/api/accounts/"+id, jsonAPI, "").want(t, 204)
				return []wantEvent{{typ: "accounts", action: created, id: id},
					{typ: "accounts", action: deleted, id: id, attrs: []string{}, version: 1}}
			}},
			{"a record whose id the client gives", func(t *testing.T) []wantEvent {
				a.do(http.MethodPost, "/admin/api/weightunits", jsonAPI, `{"data":{"type":"weightunits","id":"evt"}}`).want(t, 201)
				a.do(http.MethodDelete, "/admin/api/weightunits/evt", jsonAPI, "").want(t, 204)
				return []wantEvent{{typ: "weightunits", action: created, id: "evt", version: 1},
					{typ: "weightunits", action: deleted, id: "evt", version: 1}}
			}},
			{"delete of a missing record", func(t *testing.T) []wantEvent {
				a.do(http.MethodDelete, "/admin/api/accounts/999999", jsonAPI, "").want(t, 404)
				return marker(t)
			}},
			{"delete by filter", func(t *testing.T) []wantEvent {
				one, two := a.createAccount(t, "Filtered"), a.createAccount(t, "Filtered")
				a.do(http.MethodDelete, "/admin/api/accounts?filter[name]=Filtered", jsonAPI, "").want(t, 204)
				return []wantEvent{{typ: "accounts", action: created, id: one}, {typ: "accounts", action: created, id: two},
					{typ: "accounts", action: deleted, id: one, version: 1}, {typ: "accounts", action: deleted, id: two, version: 1}}
			}},
			{"to-many relationship endpoint", func(t *testing.T) []wantEvent {
				id := a.createAccount(t, "Related")
				r := a.do(http.MethodPost, "/admin/api/contacts", jsonAPI,
					`{"data":{"type":"contacts","attributes":{"firstName":"Ada","lastName":"Rel"}}}`).want(t, 201)
				contact := r.value("data/id").(string)
				a.do(http.MethodPost, "/admin/api/accounts/"+id+"/relationships/contacts", jsonAPI,
					`{"data":[{"type":"contacts","id":"`+contact+`"}]}`).want(t, 204)
				a.do(http.MethodDelete, "/admin/api/accounts/"+id+"/relationships/contacts", jsonAPI,
					`{"data":[{"type":"contacts","id":"`+contact+`"}]}`).want(t, 204)
				return []wantEvent{{typ: "accounts", action: created, id: id},
					{typ: "contacts", action: created, id: contact, attrs: []string{"firstName", "lastName"}},
					{typ: "accounts", action: updated, id: id, attrs: []string{}, rels: []string{"contacts"}, version: 2},
					{typ: "accounts", action: updated, id: id, rels: []string{"contacts"}, version: 3}}
			}},
			{"to-one relationship endpoint", func(t *testing.T) []wantEvent {
				id, other := a.createAccount(t, "Referred"), a.createAccount(t, "Referrer")
				a.do(http.MethodPatch, "/admin/api/accounts/"+id+"/relationships/referredBy", jsonAPI,
					`{"data":{"type":"accounts","id":"`+other+`"}}`).want(t, 204)
				return []wantEvent{{typ: "accounts", action: created, id: id}, {typ: "accounts", action: created, id: other},
					{typ: "accounts", action: updated, id: id, rels: []string{"referredBy"}, version: 2}}
			}},
			{"upsert", func(t *testing.T) []wantEvent {
				body := `{"data":{"type":"accounts","meta":{"upsert":["externalId"]},"attributes":{"name":"Upserted","externalId":"UP-1"}}}`
				r := a.do(http.MethodPost, "/admin/api/accounts", jsonAPI, body).want(t, 201)
				id := r.value("data/id").(string)
				a.do(http.MethodPost, "/admin/api/accounts", jsonAPI, body).want(t, 200)
				return []wantEvent{{typ: "accounts", action: created, id: id, attrs: []string{"externalId", "name"}, version: 1},
					{typ: "accounts", action: updated, id: id, attrs: []string{"externalId", "name"}, version: 2}}
			}},
			{"included records", func(t *testing.T) []wantEvent {
				r := a.do(http.MethodPost, "/admin/api/accounts", jsonAPI, `{"data":{"type":"accounts","attributes":{"name":"With contact"},
					"relationships":{"contacts":{"data":[{"type":"contacts","id":"c1"}]}}},
					"included":[{"type":"contacts","id":"c1","attributes":{"firstName":"Inc","lastName":"Luded"}}]}`).want(t, 201)
				id := r.value("data/id").(string)
				contact := r.value("included/0/id").(string)
				return []wantEvent{{typ: "accounts", action: created, id: id, attrs: []string{"name"}, rels: []string{"contacts"}},
					{typ: "contacts", action: created, id: contact, attrs: []string{"firstName", "lastName"}}}
			}},
			{"unique clash", func(t *testing.T) []wantEvent {
				a.do(http.MethodPost, "/admin/api/accounts", jsonAPI,
					`{"data":{"type":"accounts","attributes":{"name":"Unique","externalId":"UNIQ"}}}`).want(t, 201)
				a.do(http.MethodPost, "/admin/api/accounts", jsonAPI,
					`{"data":{"type":"accounts","attributes":{"name":"Unique again","externalId":"UNIQ"}}}`).want(t, 400)
				return append([]wantEvent{{typ: "accounts", action: created}}, marker(t)...)
			}},
			{"validate-only write", func(t *testing.T) []wantEvent {
				a.do(http.MethodPost, "/admin/api/accounts", jsonAPI,
					`{"data":{"type":"accounts","meta":{"validate":true},"attributes":{"name":"Only checked"}}}`).want(t, 201)
				return marker(t)
			}},
			{"atomic operations", func(t *testing.T) []wantEvent {
				r := a.atomic(`{"op":"add","data":{"type":"accounts","lid":"a","attributes":{"name":"Atomic"}}},
					{"op":"update","ref":{"type":"accounts","lid":"a"},"data":{"type":"accounts","lid":"a","attributes":{"externalId":"AT-1"}}}`).want(t, 200)
				id := r.value("atomic:results/0/data/id").(string)
				return []wantEvent{{typ: "accounts", action: created, id: id, version: 1},
					{typ: "accounts", action: updated, id: id, attrs: []string{"externalId"}, version: 2}}
			}},
			{"atomic operations rolled back", func(t *testing.T) []wantEvent {
				a.atomic(`{"op":"add","data":{"type":"accounts","attributes":{"name":"Never"}}},
					{"op":"add","data":{"type":"accounts","attributes":{"name":""}}}`).want(t, 400)
				return marker(t)
			}},
			{"sync batch", func(t *testing.T) []wantEvent {
				r := a.do(http.MethodPatch, "/admin/api/accounts", syncMode, `{"data":[
					{"type":"accounts","id":"x","attributes":{"name":"Sync A"},"relationships":{"contacts":{"data":[{"type":"contacts","id":"c"}]}}},
					{"type":"accounts","attributes":{"name":"Sync B"}}],
					"included":[{"type":"contacts","id":"c","attributes":{"firstName":"Sy","lastName":"Nc"}}]}`).want(t, 200)
				return []wantEvent{
					{typ: "accounts", action: created, id: r.value("data/0/id").(string), rels: []string{"contacts"}, version: 1},
					{typ: "accounts", action: created, id: r.value("data/1/id").(string), attrs: []string{"name"}, version: 1},
					{typ: "contacts", action: created, id: r.value("included/0/id").(string), version: 1}}
			}},
			{"sync batch rolled back", func(t *testing.T) []wantEvent {
				a.do(http.MethodPatch, "/admin/api/accounts", syncMode, batchAccounts(3, "Never", 1)).want(t, 400)
				return marker(t)
			}},
			{"async batch", func(t *testing.T) []wantEvent {
				r := a.do(http.MethodPatch, "/admin/api/accounts", jsonAPI, batchAccounts(3, "Async")).want(t, 202)
				a.awaitOperation(t, r.value("data/id").(string))
				return []wantEvent{{typ: "accounts", action: created, attrs: []string{"name"}, version: 1},
					{typ: "accounts", action: created}, {typ: "accounts", action: created}}
			}},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				f.expect(t, c.write(t))
			})
		}
	})
}
