package server_test

import (
	"context"
	"testing"
)

// TestSDKEmptyToOne: the Go SDK, generated from the public document where a to-one
// relationship's data is anyOf [identifier, JsonNull] (OpenAPI 3.0.3 has no nullable
// $ref), reads a set owner as its identifier and an empty one as no data; before 1.0.1
// the document did not admit the null at all.
func TestSDKEmptyToOne(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		c := sdkBackoffice(t, a, "admin")
		unit := a.created(t, "/admin/api/businessunits", `{"data":{"type":"businessunits","attributes":{"name":"To-one"}}}`)
		user := a.created(t, "/admin/api/users", `{"data":{"type":"users","attributes":{"username":"toone","email":"toone@example.com","firstName":"T","lastName":"O"},
			"relationships":{"owner":{"data":{"type":"businessunits","id":"`+unit+`"}},"userRoles":{"data":[{"type":"userroles","id":"ROLE_USER"}]}}}}`)
		owned := a.created(t, "/admin/api/accounts", `{"data":{"type":"accounts","attributes":{"name":"Owned"},
			"relationships":{"owner":{"data":{"type":"users","id":"`+user+`"}}}}}`)
		unowned := a.created(t, "/admin/api/accounts", `{"data":{"type":"accounts","attributes":{"name":"Unowned"}}}`)
		for id, want := range map[string]string{owned: user, unowned: ""} {
			res, err := c.GetAccountWithResponse(context.Background(), id, nil)
			if err != nil || res.ApplicationvndApiJSON200 == nil {
				t.Fatalf("getAccount %s: %v\n%s", id, err, res.Body)
			}
			rels := res.ApplicationvndApiJSON200.Data.Relationships
			if rels == nil || rels.Owner == nil {
				t.Fatalf("getAccount %s: no owner relationship\n%s", id, res.Body)
			}
			got := ""
			if rels.Owner.Data != nil {
				owner, err := rels.Owner.Data.AsUserIdentifier()
				if err != nil {
					t.Fatalf("getAccount %s: owner data: %v", id, err)
				}
				got = owner.Id
			}
			if got != want {
				t.Errorf("getAccount %s: owner %q, want %q\n%s", id, got, want, res.Body)
			}
		}
	})
}
