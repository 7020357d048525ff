package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	bo "github.com/entityapi/entityapi/gen/sdk/go/backoffice"
)

// TestSDKBackofficeRoundTrip is a partner's program written against the generated Go
// client: every call is typed, and every answer is read from the typed response
// fields, so a document that stopped describing what the server sends (or a generator
// option that stopped fitting it) fails here.
func TestSDKBackofficeRoundTrip(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		ctx := context.Background()
		c := sdkBackoffice(t, a, "admin")

		// Create: a contact, then three accounts, the first one linked to it.
		cdoc := bo.ContactCreateDocument{Data: bo.ContactCreateResource{
			Type:       bo.ContactCreateResourceTypeContacts,
			Attributes: &bo.ContactWritableAttributes{FirstName: ptr("Ada"), LastName: ptr("Lovelace")},
		}}
		cres, err := c.CreateContactWithApplicationVndAPIPlusJSONBodyWithResponse(ctx, nil, cdoc)
		sdkOK(t, err)
		if cres.ApplicationvndApiJSON201 == nil {
			t.Fatalf("createContact: status %d\n%s", cres.StatusCode(), cres.Body)
		}
		contactID := cres.ApplicationvndApiJSON201.Data.Id
		ids := map[string]string{} // externalId -> id
		for _, ext := range []string{"SDK-1", "SDK-2", "SDK-3"} {
			doc := bo.AccountCreateDocument{Data: bo.AccountCreateResource{
				Type:       bo.AccountCreateResourceTypeAccounts,
				Attributes: bo.AccountCreateAttributes{Name: "Account " + ext, ExternalId: ptr(ext)},
			}}
			if ext == "SDK-1" {
				doc.Data.Relationships = &bo.AccountWritableRelationships{Contacts: &bo.AccountContactsToManyRequest{
					Data: []bo.AccountContactsIdentifierRequest{{Type: bo.AccountContactsIdentifierRequestTypeContacts, Id: contactID}}}}
			}
			res, err := c.CreateAccountWithApplicationVndAPIPlusJSONBodyWithResponse(ctx, nil, doc)
			sdkOK(t, err)
			if res.ApplicationvndApiJSON201 == nil {
				t.Fatalf("createAccount %s: status %d\n%s", ext, res.StatusCode(), res.Body)
			}
			got := res.ApplicationvndApiJSON201.Data
			if got.Type != bo.AccountTypeAccounts || *got.Attributes.Name != "Account "+ext || res.Headers201 == nil ||
				!strings.HasSuffix(*res.Headers201.Location, "/admin/api/accounts/"+got.Id) {
				t.Fatalf("createAccount %s: unexpected answer %s", ext, res.Body)
			}
			ids[ext] = got.Id
		}

		t.Run("list with filters and paging", func(t *testing.T) {
			for _, tc := range []struct {
				page      int
				wantNames []string
				wantNext  bool
			}{
				{1, []string{"Account SDK-3", "Account SDK-2"}, true},
				{2, []string{"Account SDK-1"}, false},
			} {
				res, err := c.ListAccountsWithResponse(ctx, &bo.ListAccountsParams{
					FilterExternalId: ptr("SDK-1,SDK-2,SDK-3,NONE"), Sort: ptr("-name"),
					PageNumber: ptr(tc.page), PageSize: ptr(2), XInclude: ptr("totalCount")})
				sdkOK(t, err)
				if res.ApplicationvndApiJSON200 == nil {
					t.Fatalf("page %d: status %d\n%s", tc.page, res.StatusCode(), res.Body)
				}
				var names []string
				for _, acc := range res.ApplicationvndApiJSON200.Data {
					names = append(names, *acc.Attributes.Name)
				}
				if strings.Join(names, "|") != strings.Join(tc.wantNames, "|") {
					t.Errorf("page %d: names %q, want %q", tc.page, names, tc.wantNames)
				}
				if total := res.Headers200.XIncludeTotalCount; total == nil || *total != 3 {
					t.Errorf("page %d: X-Include-Total-Count %v, want 3", tc.page, total)
				}
				if next := res.ApplicationvndApiJSON200.Links.Next; (next != nil) != tc.wantNext {
					t.Errorf("page %d: links.next %v, want present=%v", tc.page, next, tc.wantNext)
				}
			}
		})

		t.Run("get with include", func(t *testing.T) {
			res, err := c.GetAccountWithResponse(ctx, ids["SDK-1"], &bo.GetAccountParams{Include: ptr("contacts")})
			sdkOK(t, err)
			if res.ApplicationvndApiJSON200 == nil {
				t.Fatalf("getAccount: status %d\n%s", res.StatusCode(), res.Body)
			}
			doc := res.ApplicationvndApiJSON200
			linked := doc.Data.Relationships.Contacts.Data
			if linked == nil || len(*linked) != 1 || (*linked)[0].Id != contactID {
				t.Fatalf("relationships.contacts: %s", res.Body)
			}
			if doc.Included == nil || len(*doc.Included) != 1 {
				t.Fatalf("included: %s", res.Body)
			}
			contact, err := (*doc.Included)[0].AsContact()
			if err != nil || contact.Type != bo.ContactTypeContacts || contact.Id != contactID || *contact.Attributes.LastName != "Lovelace" {
				t.Fatalf("included contact: %v %+v", err, contact)
			}
		})

		t.Run("update", func(t *testing.T) {
			doc := bo.AccountUpdateDocument{Data: bo.AccountUpdateResource{
				Type: bo.AccountUpdateResourceTypeAccounts, Id: ids["SDK-2"],
				Attributes: &bo.AccountWritableAttributes{Name: ptr("Account SDK-2 renamed")},
			}}
			res, err := c.UpdateAccountWithApplicationVndAPIPlusJSONBodyWithResponse(ctx, ids["SDK-2"], nil, doc)
			sdkOK(t, err)
			if res.ApplicationvndApiJSON200 == nil {
				t.Fatalf("updateAccount: status %d\n%s", res.StatusCode(), res.Body)
			}
			if got := res.ApplicationvndApiJSON200.Data.Attributes; *got.Name != "Account SDK-2 renamed" || *got.ExternalId != "SDK-2" {
				t.Fatalf("updated account: %s", res.Body)
			}
		})

		t.Run("conditional update", func(t *testing.T) {
			got, err := c.GetAccountWithResponse(ctx, ids["SDK-2"], &bo.GetAccountParams{})
			sdkOK(t, err)
			if got.Headers200 == nil || got.Headers200.ETag == nil {
				t.Fatalf("getAccount: no ETag (status %d)", got.StatusCode())
			}
			tag := got.Headers200.ETag
			same, err := c.GetAccountWithResponse(ctx, ids["SDK-2"], &bo.GetAccountParams{IfNoneMatch: tag})
			sdkOK(t, err)
			if same.StatusCode() != 304 || same.Headers304 == nil || same.Headers304.ETag == nil || *same.Headers304.ETag != *tag {
				t.Fatalf("getAccount with If-None-Match: status %d", same.StatusCode())
			}
			doc := bo.AccountUpdateDocument{Data: bo.AccountUpdateResource{
				Type: bo.AccountUpdateResourceTypeAccounts, Id: ids["SDK-2"],
				Attributes: &bo.AccountWritableAttributes{Name: ptr("Account SDK-2 guarded")},
			}}
			won, err := c.UpdateAccountWithApplicationVndAPIPlusJSONBodyWithResponse(ctx, ids["SDK-2"], &bo.UpdateAccountParams{IfMatch: tag}, doc)
			sdkOK(t, err)
			if won.ApplicationvndApiJSON200 == nil {
				t.Fatalf("updateAccount with the current tag: status %d\n%s", won.StatusCode(), won.Body)
			}
			lost, err := c.UpdateAccountWithApplicationVndAPIPlusJSONBodyWithResponse(ctx, ids["SDK-2"], &bo.UpdateAccountParams{IfMatch: tag}, doc)
			sdkOK(t, err)
			if lost.ApplicationvndApiJSON412 == nil {
				t.Fatalf("updateAccount with a stale tag: status %d\n%s", lost.StatusCode(), lost.Body)
			}
		})

		t.Run("upsert creates, then updates", func(t *testing.T) {
			var upsert bo.RequestMeta_Upsert
			if err := upsert.FromRequestMetaUpsert1([]string{"externalId"}); err != nil {
				t.Fatal(err)
			}
			var first string
			for _, tc := range []struct {
				name   string
				status int
			}{{"Upserted", http.StatusCreated}, {"Upserted again", http.StatusOK}} {
				doc := bo.AccountCreateDocument{Data: bo.AccountCreateResource{
					Type:       bo.AccountCreateResourceTypeAccounts,
					Meta:       &bo.RequestMeta{Upsert: &upsert},
					Attributes: bo.AccountCreateAttributes{Name: tc.name, ExternalId: ptr("SDK-UPSERT")},
				}}
				res, err := c.CreateAccountWithApplicationVndAPIPlusJSONBodyWithResponse(ctx, nil, doc)
				sdkOK(t, err)
				if res.StatusCode() != tc.status {
					t.Fatalf("upsert %q: status %d, want %d\n%s", tc.name, res.StatusCode(), tc.status, res.Body)
				}
				got := res.ApplicationvndApiJSON201
				if tc.status == http.StatusOK {
					got = res.ApplicationvndApiJSON200
				}
				if got == nil || *got.Data.Attributes.Name != tc.name || (first != "" && got.Data.Id != first) {
					t.Fatalf("upsert %q: %s (first id %q)", tc.name, res.Body, first)
				}
				first = got.Data.Id
			}
		})

		t.Run("typed error document", func(t *testing.T) {
			doc := bo.AccountCreateDocument{Data: bo.AccountCreateResource{Type: bo.AccountCreateResourceTypeAccounts}} // and a blank name
			res, err := c.CreateAccountWithApplicationVndAPIPlusJSONBodyWithResponse(ctx, nil, doc)
			sdkOK(t, err)
			if res.ApplicationvndApiJSON400 == nil {
				t.Fatalf("blank name: status %d\n%s", res.StatusCode(), res.Body)
			}
			e := res.ApplicationvndApiJSON400.Errors
			if len(e) != 1 || e[0].Title != "not blank constraint" || *e[0].Status != "400" ||
				e[0].Source == nil || *e[0].Source.Pointer != "/data/attributes/name" {
				t.Errorf("errors: %s", res.Body)
			}
			if meta := res.ApplicationvndApiJSON400.Meta; meta == nil || *meta.RequestId != *res.Headers400.XRequestID {
				t.Errorf("meta.requestId does not match X-Request-ID: %s", res.Body)
			}
		})

		t.Run("delete", func(t *testing.T) {
			res, err := c.DeleteAccountWithResponse(ctx, ids["SDK-3"], nil)
			sdkOK(t, err)
			if res.StatusCode() != http.StatusNoContent {
				t.Fatalf("deleteAccount: status %d\n%s", res.StatusCode(), res.Body)
			}
			gone, err := c.GetAccountWithResponse(ctx, ids["SDK-3"], nil)
			sdkOK(t, err)
			if gone.ApplicationvndApiJSON404 == nil || gone.ApplicationvndApiJSON404.Errors[0].Title != "not found http exception" {
				t.Fatalf("after delete: status %d\n%s", gone.StatusCode(), gone.Body)
			}
		})
	})
}
