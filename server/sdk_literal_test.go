package server_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	bo "github.com/entityapi/entityapi/gen/sdk/go/backoffice"
	sf "github.com/entityapi/entityapi/gen/sdk/go/storefront"
)

// TestSDKDocumentsAreCompositeLiterals (issue 31): a partner builds the generated Go
// SDK's request documents, and the documents it expects back, as composite literals,
// because every document's data, attributes and relationships are named component
// schemas of the public documents (named types in the SDK), not inline objects (which
// oapi-codegen turns into anonymous structs that only field-by-field assignment can
// fill). Each literal goes through the real server and comes back as sent.
func TestSDKDocumentsAreCompositeLiterals(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		ctx := context.Background()
		c := sdkBackoffice(t, a, "admin")

		t.Run("account created with relationships", func(t *testing.T) {
			contact := bo.ContactCreateDocument{Data: bo.ContactCreateResource{
				Type:       bo.ContactCreateResourceTypeContacts,
				Attributes: &bo.ContactWritableAttributes{FirstName: ptr("Grace"), LastName: ptr("Hopper")},
			}}
			cres, err := c.CreateContactWithApplicationVndAPIPlusJSONBodyWithResponse(ctx, nil, contact)
			sdkOK(t, err)
			if cres.ApplicationvndApiJSON201 == nil {
				t.Fatalf("createContact: status %d\n%s", cres.StatusCode(), cres.Body)
			}
			contactID := cres.ApplicationvndApiJSON201.Data.Id

			// A to-one that may be null is a union (anyOf: identifier or null), set
			// through its From method; everything else is one literal.
			var defaultContact bo.AccountDefaultContactToOneRequest_Data
			if err := defaultContact.FromAccountDefaultContactIdentifierRequest(bo.AccountDefaultContactIdentifierRequest{
				Type: bo.AccountDefaultContactIdentifierRequestTypeContacts, Id: contactID}); err != nil {
				t.Fatal(err)
			}
			doc := bo.AccountCreateDocument{Data: bo.AccountCreateResource{
				Type:       bo.AccountCreateResourceTypeAccounts,
				Attributes: bo.AccountCreateAttributes{Name: "Literal Ltd", ExternalId: ptr("LIT-1")},
				Relationships: &bo.AccountWritableRelationships{
					Contacts: &bo.AccountContactsToManyRequest{Data: []bo.AccountContactsIdentifierRequest{
						{Type: bo.AccountContactsIdentifierRequestTypeContacts, Id: contactID}}},
					DefaultContact: &bo.AccountDefaultContactToOneRequest{Data: defaultContact},
				},
			}}
			wire, err := json.Marshal(doc)
			if err != nil {
				t.Fatal(err)
			}
			want := `{"data":{"attributes":{"externalId":"LIT-1","name":"Literal Ltd"},"relationships":{` +
				`"contacts":{"data":[{"id":"` + contactID + `","type":"contacts"}]},` +
				`"defaultContact":{"data":{"id":"` + contactID + `","type":"contacts"}}},"type":"accounts"}}`
			if string(wire) != want {
				t.Fatalf("the literal's JSON:\n%s\nwant\n%s", wire, want)
			}
			res, err := c.CreateAccountWithApplicationVndAPIPlusJSONBodyWithResponse(ctx, nil, doc)
			sdkOK(t, err)
			if res.ApplicationvndApiJSON201 == nil {
				t.Fatalf("createAccount: status %d\n%s", res.StatusCode(), res.Body)
			}
			got := res.ApplicationvndApiJSON201.Data
			if got.Type != bo.AccountTypeAccounts || got.Attributes == nil || *got.Attributes.Name != "Literal Ltd" ||
				*got.Attributes.ExternalId != "LIT-1" {
				t.Errorf("created account: %s", res.Body)
			}
			if got.Relationships == nil || got.Relationships.Contacts == nil || got.Relationships.Contacts.Data == nil ||
				len(*got.Relationships.Contacts.Data) != 1 || (*got.Relationships.Contacts.Data)[0].Id != contactID {
				t.Errorf("relationships.contacts of the created account: %s", res.Body)
			}
			if got.Relationships == nil || got.Relationships.DefaultContact == nil || got.Relationships.DefaultContact.Data == nil {
				t.Fatalf("relationships.defaultContact of the created account: %s", res.Body)
			}
			if id, err := got.Relationships.DefaultContact.Data.AsContactIdentifier(); err != nil || id.Id != contactID {
				t.Errorf("relationships.defaultContact: %+v %v (%s)", id, err, res.Body)
			}

			rename := bo.AccountUpdateDocument{Data: bo.AccountUpdateResource{
				Type: bo.AccountUpdateResourceTypeAccounts, Id: got.Id,
				Attributes:    &bo.AccountWritableAttributes{Name: ptr("Literal Limited")},
				Relationships: &bo.AccountWritableRelationships{Contacts: &bo.AccountContactsToManyRequest{Data: []bo.AccountContactsIdentifierRequest{}}},
			}}
			up, err := c.UpdateAccountWithApplicationVndAPIPlusJSONBodyWithResponse(ctx, got.Id, nil, rename)
			sdkOK(t, err)
			if up.ApplicationvndApiJSON200 == nil {
				t.Fatalf("updateAccount: status %d\n%s", up.StatusCode(), up.Body)
			}
			if changed := up.ApplicationvndApiJSON200.Data; *changed.Attributes.Name != "Literal Limited" ||
				changed.Relationships.Contacts.Data == nil || len(*changed.Relationships.Contacts.Data) != 0 {
				t.Errorf("updated account: %s", up.Body)
			}
		})

		t.Run("tax jurisdiction created in a country", func(t *testing.T) {
			doc := bo.TaxJurisdictionCreateDocument{Data: bo.TaxJurisdictionCreateResource{
				Type:       bo.TaxJurisdictionCreateResourceTypeTaxjurisdictions,
				Attributes: bo.TaxJurisdictionCreateAttributes{Code: "LIT-DE", Description: ptr("Germany, whole")},
				Relationships: bo.TaxJurisdictionCreateRelationships{Country: bo.TaxCountryToOneRequest{
					Data: bo.TaxCountryIdentifierRequest{Type: bo.TaxCountryIdentifierRequestTypeCountries, Id: "DE"}}},
			}}
			res, err := c.CreateTaxJurisdictionWithApplicationVndAPIPlusJSONBodyWithResponse(ctx, nil, doc)
			sdkOK(t, err)
			if res.ApplicationvndApiJSON201 == nil {
				t.Fatalf("createTaxJurisdiction: status %d\n%s", res.StatusCode(), res.Body)
			}
			got := res.ApplicationvndApiJSON201.Data
			if *got.Attributes.Code != "LIT-DE" || got.Relationships == nil || got.Relationships.Country == nil ||
				got.Relationships.Country.Data == nil {
				t.Fatalf("created tax jurisdiction: %s", res.Body)
			}
			if country, err := got.Relationships.Country.Data.AsCountryIdentifier(); err != nil || country.Id != "DE" {
				t.Errorf("relationships.country: %+v %v (%s)", country, err, res.Body)
			}
		})

		t.Run("country read as the literal expected", func(t *testing.T) {
			want := bo.Country{Type: bo.CountryTypeCountries, Id: "DE",
				Attributes: &bo.CountryAttributes{Name: ptr("Germany"), Iso3Code: ptr("DEU")}}
			res, err := c.GetCountryWithResponse(ctx, "DE", nil)
			sdkOK(t, err)
			if res.ApplicationvndApiJSON200 == nil {
				t.Fatalf("getCountry: status %d\n%s", res.StatusCode(), res.Body)
			}
			got := res.ApplicationvndApiJSON200.Data
			got.Links, got.Meta, got.Relationships = nil, nil, nil
			if !reflect.DeepEqual(got, want) {
				t.Errorf("country DE: %+v, want %+v", got, want)
			}
		})

		t.Run("storefront country read as the literal expected", func(t *testing.T) {
			want := sf.CountryDocument{Data: sf.Country{Type: sf.CountryTypeCountries, Id: "FR",
				Attributes: &sf.CountryAttributes{Name: ptr("Frankreich"), Iso3Code: ptr("FRA")}}}
			res, err := sdkStorefront(t, a, "").GetCountryWithResponse(ctx, "FR", &sf.GetCountryParams{XLocalizationID: ptr(2)})
			sdkOK(t, err)
			if res.ApplicationvndApiJSON200 == nil {
				t.Fatalf("getCountry: status %d\n%s", res.StatusCode(), res.Body)
			}
			got := *res.ApplicationvndApiJSON200
			got.Links, got.Data.Links, got.Data.Meta, got.Data.Relationships = nil, nil, nil, nil
			if !reflect.DeepEqual(got, want) {
				t.Errorf("storefront country FR: %+v, want %+v", got, want)
			}
		})
	})
}
