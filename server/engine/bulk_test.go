package engine_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/server/identity"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/storage"
)

// TestBulkWritesTheLiveItems: a batch's items are read, grouped, loaded and
// converted as single requests' records are; the items at fault fail with
// their problems where they are in the request, the others are written in
// one transaction, and Render answers them in request order with the
// client's ids.
func TestBulkWritesTheLiveItems(t *testing.T) {
	t.Parallel()
	eachDialect(t, func(t *testing.T, b *testBundle) {
		ctx := context.Background()
		existing := b.createAccount(t, b.admin, `{"name":"Before"}`)
		bulk, err := b.e.BeginBulk(b.request(t, "PATCH", "/api/accounts", "", engine.JSONAPI, b.admin))
		if err != nil {
			t.Fatalf("BeginBulk: %v", err)
		}
		if res := bulk.Resource(); res == nil || res.Type != "accounts" {
			t.Fatalf("the batch's type is %v, want accounts", res)
		}
		if c := bulk.Caller(); c.Org != 1 || c.UserID != b.admin.UserID {
			t.Errorf("Caller %+v, want the administrator of organization 1", c)
		}
		raws := []string{
			`{"type":"accounts","id":"new-1","attributes":{"name":"Bulk A"}}`,
			`{"type":"accounts","id":"` + existing + `","attributes":{"name":"After"},"meta":{"update":true}}`,
			`{"type":"accounts","id":"new-2","attributes":{"externalId":"no name"}}`,
			`{"type":"accounts","id":"999999","attributes":{"name":"Gone"},"meta":{"update":true}}`,
			`{"type":"accounts","id":"new-3","attributes":{"name":"Bulk B"},"relationships":{"owner":{"data":{"type":"users","id":"888888"}}}}`,
		}
		items := make([]*engine.Item, len(raws))
		for i, raw := range raws {
			items[i] = &engine.Item{}
			if validate := bulk.ReadItem(items[i], bulk.Resource(), "/data/"+strconv.Itoa(i), &engine.ItemSource{Raw: []byte(raw)}); validate {
				t.Errorf("item %d asks for validation only", i)
			}
		}
		if ps := items[2].Problems(); !items[2].Failed() || len(ps) == 0 || ps[0].Pointer != "/data/2/attributes/name" || ps[0].Kind != problem.Invalid {
			t.Errorf("the item without a name: failed %v, problems %+v; want one at /data/2/attributes/name", items[2].Failed(), ps)
		}
		if !items[1].Update() || items[1].ClientID() != existing || items[1].Pointer() != "/data/1" {
			t.Errorf("the update item: update %v, client id %q, pointer %q", items[1].Update(), items[1].ClientID(), items[1].Pointer())
		}
		g := bulk.Group(items)
		if err := g.LoadCurrent(ctx); err != nil {
			t.Fatalf("LoadCurrent: %v", err)
		}
		if ps := items[3].Problems(); len(ps) != 1 || ps[0].Kind != problem.NotFoundKind || ps[0].Pointer != "/data/3/id" {
			t.Errorf("the update of a missing record: %+v, want not found at /data/3/id", ps)
		}
		if err := g.Convert(ctx); err != nil {
			t.Fatalf("Convert: %v", err)
		}
		if ps := items[4].Problems(); len(ps) != 1 || ps[0].Title != "not found http exception" || ps[0].Kind != problem.NotFoundKind || ps[0].Pointer != "/data/4/relationships/owner/data" {
			t.Errorf("the item naming a missing owner: %+v, want a 404 at its owner", ps)
		}
		for i, it := range items {
			if want := i <= 1; it.Failed() == want {
				t.Errorf("item %d: failed %v, want %v (%v)", i, it.Failed(), !want, it.Problems())
			}
		}
		err = bulk.Conn().Tx(ctx, func(tx *storage.Conn) error {
			failed, err := bulk.WriteItems(ctx, tx, items, true)
			if failed != nil {
				t.Errorf("WriteItems blames item %s", failed.Pointer())
			}
			return err
		})
		if err != nil {
			t.Fatalf("WriteItems: %v", err)
		}
		reply, err := bulk.Render(nil, items[:2], nil)
		if err != nil {
			t.Fatalf("Render: %v", err)
		}
		doc := decoded(t, reply)
		if at(doc, "data", 0, "meta", "dataId") != "new-1" || at(doc, "data", 0, "attributes", "name") != "Bulk A" {
			t.Errorf("data[0] %v, want Bulk A with dataId new-1", at(doc, "data", 0))
		}
		if at(doc, "data", 1, "id") != existing || at(doc, "data", 1, "attributes", "name") != "After" {
			t.Errorf("data[1] %v, want %s renamed After", at(doc, "data", 1), existing)
		}
		list, err := b.e.List(b.request(t, "GET", "/api/accounts", "sort=name", engine.Plain, b.admin))
		if err != nil {
			t.Fatal(err)
		}
		all, _ := decoded(t, list).([]any)
		if len(all) != 2 || at(all[0], "name") != "After" || at(all[1], "name") != "Bulk A" {
			t.Errorf("the stored accounts %v, want After and Bulk A only", all)
		}
	})
}

// TestBulkRefuses: a caller who may not create and edit the type cannot
// begin a batch (403), and an item a job's caller may not write fails with
// the denial at its pointer, as does an item of an unknown type.
func TestBulkRefuses(t *testing.T) {
	t.Parallel()
	eachDialect(t, func(t *testing.T, b *testBundle) {
		viewer := &identity.Principal{Org: 1, UserID: b.admin.UserID, Roles: []string{"ROLE_USER"}}
		_, err := b.e.BeginBulk(b.request(t, "PATCH", "/api/accounts", "", engine.JSONAPI, viewer))
		if list := problems(t, err); list[0].Kind != problem.Denied {
			t.Errorf("BeginBulk as a viewer: %v, want denied", list)
		}
		job := b.e.BulkAs(*viewer)
		if job.Resource() != nil {
			t.Errorf("a job's bulk names a type: %v", job.Resource())
		}
		accounts, _ := b.e.Registry().Get("accounts")
		it := &engine.Item{}
		job.ReadItem(it, accounts, "/data/0", &engine.ItemSource{Raw: []byte(`{"type":"accounts","attributes":{"name":"X"}}`)})
		if ps := it.Problems(); !it.Failed() || len(ps) != 1 || ps[0].Kind != problem.Denied || ps[0].Pointer != "/data/0" {
			t.Errorf("an item the caller may not create: %+v, want denied at /data/0", ps)
		}
		unknown := &engine.Item{}
		job.ReadItem(unknown, nil, "/included/0", &engine.ItemSource{Raw: []byte(`{"type":"widgets","id":"w"}`), Included: true})
		if ps := unknown.Problems(); len(ps) != 1 || ps[0].Pointer != "/included/0/type" || ps[0].Detail != "Unknown entity type: widgets." {
			t.Errorf("an item of an unknown type: %+v", ps)
		}
	})
}
