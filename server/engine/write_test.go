package engine_test

import (
	"testing"

	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/problem"
)

// TestCreateUpdateDeleteAccount: a record created (201 and its Location)
// reads back as written, an update changes only the fields sent, a delete
// leaves nothing to read, and the plain format takes and gives a flat
// object.
func TestCreateUpdateDeleteAccount(t *testing.T) {
	t.Parallel()
	eachDialect(t, func(t *testing.T, b *testBundle) {
		created, err := b.e.Create(b.request(t, "POST", "/api/accounts", "", engine.JSONAPI, b.admin),
			document(t, `{"type":"accounts","attributes":{"name":"Acme","externalId":"A-1"}}`), nil)
		if err != nil {
			t.Fatalf("Create: %v", err)
		}
		doc := decoded(t, created)
		id, _ := at(doc, "data", "id").(string)
		if created.Status != 201 || id == "" {
			t.Fatalf("Create: status %d, id %q; want 201 and an id", created.Status, id)
		}
		if loc := created.Header.Get("Location"); loc != "http://api.test/admin/api/accounts/"+id {
			t.Errorf("Location %q", loc)
		}
		if v := at(doc, "data", "attributes", "createdAt"); v == nil {
			t.Errorf("no createdAt in %v", at(doc, "data", "attributes"))
		}

		updated, err := b.e.Update(b.request(t, "PATCH", "/api/accounts/"+id, "", engine.JSONAPI, b.admin),
			document(t, `{"type":"accounts","id":"`+id+`","attributes":{"name":"Acme Corp"}}`), nil)
		if err != nil {
			t.Fatalf("Update: %v", err)
		}
		doc = decoded(t, updated)
		if updated.Status != 200 || at(doc, "data", "attributes", "name") != "Acme Corp" || at(doc, "data", "attributes", "externalId") != "A-1" {
			t.Errorf("Update: status %d, attributes %v; want the new name and the old externalId", updated.Status, at(doc, "data", "attributes"))
		}

		plain, err := b.e.Update(b.request(t, "PATCH", "/api/accounts/"+id, "", engine.Plain, b.admin),
			nil, jsonapi.Object{"externalId": []byte(`"A-2"`)})
		if err != nil {
			t.Fatalf("Update as plain: %v", err)
		}
		doc = decoded(t, plain)
		if at(doc, "data") != nil || at(doc, "externalId") != "A-2" || at(doc, "name") != "Acme Corp" {
			t.Errorf("plain update answered %v", doc)
		}

		deleted, err := b.e.Delete(b.request(t, "DELETE", "/api/accounts/"+id, "", engine.JSONAPI, b.admin))
		if err != nil || deleted.Status != 204 {
			t.Fatalf("Delete: %v, %+v; want 204", err, deleted)
		}
		_, err = b.e.Get(b.request(t, "GET", "/api/accounts/"+id, "", engine.JSONAPI, b.admin))
		if list := problems(t, err); list[0].Kind != problem.NotFoundKind {
			t.Errorf("Get after Delete: %v, want not found", list)
		}
		_, err = b.e.Delete(b.request(t, "DELETE", "/api/accounts/"+id, "", engine.JSONAPI, b.admin))
		if list := problems(t, err); list[0].Kind != problem.NotFoundKind {
			t.Errorf("Delete twice: %v, want not found", list)
		}
	})
}

// TestUpsertFindsTheRecord: an upsert by a criterion the document allows
// creates the record the first time (201) and updates that one record the
// second (200), and refuses a criterion the resource does not allow.
func TestUpsertFindsTheRecord(t *testing.T) {
	t.Parallel()
	eachDialect(t, func(t *testing.T, b *testBundle) {
		upsert := func(name, externalID string) (string, int) {
			reply, err := b.e.Create(b.request(t, "POST", "/api/accounts", "", engine.JSONAPI, b.admin),
				document(t, `{"type":"accounts","attributes":{"name":"`+name+`","externalId":"`+externalID+`"},"meta":{"upsert":["externalId"]}}`), nil)
			if err != nil {
				t.Fatalf("upsert %s: %v", externalID, err)
			}
			id, _ := at(decoded(t, reply), "data", "id").(string)
			return id, reply.Status
		}
		first, status := upsert("First", "U-1")
		if status != 201 {
			t.Errorf("the first upsert: status %d, want 201 (created)", status)
		}
		second, status := upsert("Second", "U-1")
		if status != 200 || second != first {
			t.Errorf("the second upsert: status %d on %s, want 200 on %s", status, second, first)
		}
		list, err := b.e.List(b.request(t, "GET", "/api/accounts", "filter[externalId]=U-1", engine.JSONAPI, b.admin))
		if err != nil {
			t.Fatal(err)
		}
		doc := decoded(t, list)
		if at(doc, "data", 1) != nil || at(doc, "data", 0, "attributes", "name") != "Second" {
			t.Errorf("after two upserts: %v, want one record named Second", at(doc, "data"))
		}

		_, err = b.e.Create(b.request(t, "POST", "/api/accounts", "", engine.JSONAPI, b.admin),
			document(t, `{"type":"accounts","attributes":{"name":"X"},"meta":{"upsert":["createdAt"]}}`), nil)
		ps := problems(t, err)
		if ps[0].Title != "value constraint" || ps[0].Pointer != "/data/meta/upsert" {
			t.Errorf("upsert by createdAt: %+v, want a value constraint at /data/meta/upsert", ps[0])
		}
	})
}

// TestWriteProblems: what the engine refuses of a write is a problem with
// its kind, title and pointer into the body, and a record of another
// organization does not exist for the caller.
func TestWriteProblems(t *testing.T) {
	t.Parallel()
	eachDialect(t, func(t *testing.T, b *testBundle) {
		theirs := b.createAccount(t, b.other, `{"name":"Theirs"}`)
		b.createAccount(t, b.admin, `{"name":"Taken","externalId":"T-1"}`)
		tests := []struct {
			name    string
			method  string
			path    string
			body    string
			kind    problem.Kind
			title   string
			pointer string
		}{
			{"an id on a new record", "POST", "/api/accounts", `{"type":"accounts","id":"7","attributes":{"name":"X"}}`,
				problem.Denied, "access denied exception", "/data/id"},
			{"an unknown attribute", "POST", "/api/accounts", `{"type":"accounts","attributes":{"name":"X","color":"red"}}`,
				problem.Invalid, "extra fields constraint", "/data/attributes"},
			{"an owner that does not exist", "POST", "/api/accounts", `{"type":"accounts","attributes":{"name":"X"},"relationships":{"owner":{"data":{"type":"users","id":"999999"}}}}`,
				problem.NotFoundKind, "not found http exception", "/data/relationships/owner/data"},
			{"a value of the wrong type", "POST", "/api/accounts", `{"type":"accounts","attributes":{"name":12}}`,
				problem.Invalid, "type constraint", "/data/attributes/name"},
			{"an externalId already used", "POST", "/api/accounts", `{"type":"accounts","attributes":{"name":"X","externalId":"T-1"}}`,
				problem.Invalid, "unique entity constraint", "/data/attributes/externalId"},
			{"another organization's record", "PATCH", "/api/accounts/" + theirs, `{"type":"accounts","id":"` + theirs + `","attributes":{"name":"Mine"}}`,
				problem.NotFoundKind, "not found http exception", ""},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				r := b.request(t, tc.method, tc.path, "", engine.JSONAPI, b.admin)
				var err error
				if tc.method == "POST" {
					_, err = b.e.Create(r, document(t, tc.body), nil)
				} else {
					_, err = b.e.Update(r, document(t, tc.body), nil)
				}
				list := problems(t, err)
				if len(list) != 1 || list[0].Kind != tc.kind || list[0].Title != tc.title || list[0].Pointer != tc.pointer {
					t.Errorf("%s %s: %+v, want %s at %q", tc.method, tc.path, list, tc.title, tc.pointer)
				}
			})
		}
		_, err := b.e.Delete(b.request(t, "DELETE", "/api/accounts/"+theirs, "", engine.JSONAPI, b.admin))
		if list := problems(t, err); list[0].Kind != problem.NotFoundKind {
			t.Errorf("Delete of another organization's record: %v, want not found", list)
		}
		if _, err := b.e.Get(b.request(t, "GET", "/api/accounts/"+theirs, "", engine.JSONAPI, b.other)); err != nil {
			t.Errorf("their record after the refused writes: %v", err)
		}
	})
}
