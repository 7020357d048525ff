package server_test

import (
	"context"
	"testing"

	"github.com/entityapi/entityapi/gen/sdk/go/backoffice"
)

// TestSDKAtomicOperations sends an atomic request with the generated Go client:
// its typed method sends the extension's media type on its own, with no
// request editor, and decodes the results.
func TestSDKAtomicOperations(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		c, err := backoffice.NewClientWithResponses(a.base+"/admin", backoffice.WithHTTPClient(sdkDoer{t}),
			backoffice.WithRequestEditorFn(bearer(a.token("admin"))))
		if err != nil {
			t.Fatal(err)
		}
		var account, contact backoffice.AtomicOperation_Data
		sdkOK(t, account.FromAtomicOperationData0(map[string]any{"type": "accounts", "lid": "sdk",
			"attributes": map[string]any{"name": "SDK Atomic"}}))
		sdkOK(t, contact.FromAtomicOperationData0(map[string]any{"type": "contacts",
			"attributes":    map[string]any{"firstName": "Grace", "lastName": "Hopper"},
			"relationships": map[string]any{"accounts": map[string]any{"data": []any{map[string]any{"type": "accounts", "lid": "sdk"}}}}}))
		// With an Idempotency-Key, as a client that may retry sends it:
		// the retry below gets the same results and writes nothing.
		key := backoffice.IdempotencyKey(`"sdk-atomic-1"`)
		run := func() *backoffice.RunAtomicOperationsResponse {
			res, err := c.RunAtomicOperationsWithApplicationVndAPIPlusJSONExthttpsjsonapiOrgextatomicBodyWithResponse(context.Background(),
				&backoffice.RunAtomicOperationsParams{IdempotencyKey: &key},
				backoffice.AtomicRequestDocument{AtomicOperations: []backoffice.AtomicOperation{
					{Op: backoffice.Add, Data: &account},
					{Op: backoffice.Add, Data: &contact},
				}})
			sdkOK(t, err)
			return res
		}
		res := run()
		if retry := run(); string(retry.Body) != string(res.Body) || a.count("/admin/api/accounts?filter[name]=SDK%20Atomic") != 1 {
			t.Fatalf("the keyed retry answered %d\n%s\nwant the first answer\n%s", retry.StatusCode(), retry.Body, res.Body)
		}
		doc := res.ApplicationvndApiJSONExthttpsjsonapiOrgextatomic200
		if doc == nil || len(doc.AtomicResults) != 2 || doc.AtomicResults[0].Data == nil || doc.AtomicResults[1].Data == nil {
			t.Fatalf("status %d\n%s", res.StatusCode(), res.Body)
		}
		id := doc.AtomicResults[0].Data.Id
		rels := *doc.AtomicResults[1].Data.Relationships
		linked := rels["accounts"].(map[string]any)["data"].([]any)[0].(map[string]any)["id"]
		if linked != id {
			t.Fatalf("the contact's account %v, want %s", linked, id)
		}
	})
}
