package server_test

import (
	"context"
	"strings"
	"testing"

	sf "github.com/entityapi/entityapi/gen/sdk/go/storefront"
)

// TestSDKStorefront reads the storefront with its generated Go client, as a guest and
// with a storefront token (fetched with the SDK's createToken and a form body): the
// storefront's own headers (X-Localization-ID, X-Currency, Content-Language) are typed
// parameters and response headers there, and its errors decode into typed documents.
func TestSDKStorefront(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		ctx := context.Background()
		a.created(t, "/admin/api/weightunits", `{"data":{"type":"weightunits","id":"kg"}}`)
		guest, client := sdkStorefront(t, a, ""), sdkStorefront(t, a, "storefront")

		country, err := guest.GetCountryWithResponse(ctx, "DE", &sf.GetCountryParams{Include: ptr("regions"), XLocalizationID: ptr(2)})
		sdkOK(t, err)
		if country.ApplicationvndApiJSON200 == nil {
			t.Fatalf("getCountry: status %d\n%s", country.StatusCode(), country.Body)
		}
		if name := *country.ApplicationvndApiJSON200.Data.Attributes.Name; name != "Deutschland" || country.Headers200.ContentLanguage != "de-DE" {
			t.Errorf("getCountry in German: name %q, Content-Language %q", name, country.Headers200.ContentLanguage)
		}
		regions := map[string]string{}
		for _, inc := range *country.ApplicationvndApiJSON200.Included {
			if r, err := inc.AsRegion(); err == nil && r.Type == sf.RegionTypeRegions {
				regions[r.Id] = *r.Attributes.Name
			}
		}
		if len(regions) != 16 || regions["DE-BY"] != "Bayern" {
			t.Errorf("included regions of Germany: %d, DE-BY %q; want 16 and Bayern", len(regions), regions["DE-BY"])
		}

		list, err := guest.ListCountriesWithResponse(ctx, &sf.ListCountriesParams{
			FilterId: ptr("DE,FR,IT"), Sort: ptr("-id"), PageSize: ptr(2), XCurrency: ptr("EUR")})
		sdkOK(t, err)
		if list.ApplicationvndApiJSON200 == nil {
			t.Fatalf("listCountries: status %d\n%s", list.StatusCode(), list.Body)
		}
		var ids []string
		for _, c := range list.ApplicationvndApiJSON200.Data {
			ids = append(ids, c.Id)
		}
		if strings.Join(ids, ",") != "IT,FR" || list.ApplicationvndApiJSON200.Links.Next == nil || list.Headers200.XCurrency != "EUR" {
			t.Errorf("listCountries: ids %v, links.next %v, X-Currency %q", ids, list.ApplicationvndApiJSON200.Links.Next, list.Headers200.XCurrency)
		}

		units, err := client.ListWeightUnitsWithResponse(ctx, nil)
		sdkOK(t, err)
		if units.ApplicationvndApiJSON200 == nil || len(units.ApplicationvndApiJSON200.Data) != 1 || units.ApplicationvndApiJSON200.Data[0].Id != "kg" {
			t.Fatalf("listWeightUnits with a storefront token: status %d\n%s", units.StatusCode(), units.Body)
		}

		// Typed error documents.
		for _, tc := range []struct {
			name          string
			call          func() (int, *sf.ErrorDocument, error)
			status        int
			title, header string
		}{
			{"unknown currency", func() (int, *sf.ErrorDocument, error) {
				r, err := guest.ListCountriesWithResponse(ctx, &sf.ListCountriesParams{XCurrency: ptr("QQQ")})
				if err != nil {
					return 0, nil, err
				}
				return r.StatusCode(), r.ApplicationvndApiJSON400, nil
			}, 400, "invalid header value exception", "X-Currency"},
			{"weight units need a token", func() (int, *sf.ErrorDocument, error) {
				r, err := guest.ListWeightUnitsWithResponse(ctx, nil)
				if err != nil {
					return 0, nil, err
				}
				return r.StatusCode(), r.ApplicationvndApiJSON401, nil
			}, 401, "authentication exception", ""},
			{"a currency that is not enabled", func() (int, *sf.ErrorDocument, error) {
				r, err := client.GetCurrencyWithResponse(ctx, "JPY", nil)
				if err != nil {
					return 0, nil, err
				}
				return r.StatusCode(), r.ApplicationvndApiJSON404, nil
			}, 404, "not found http exception", ""},
		} {
			status, doc, err := tc.call()
			sdkOK(t, err)
			if status != tc.status || doc == nil || len(doc.Errors) == 0 {
				t.Errorf("%s: status %d, document %v; want %d with errors", tc.name, status, doc, tc.status)
				continue
			}
			e := doc.Errors[0]
			if (tc.title != "" && e.Title != tc.title) || (tc.header != "" && (e.Source == nil || *e.Source.Header != tc.header)) {
				t.Errorf("%s: error %+v, want title %q, source.header %q", tc.name, e, tc.title, tc.header)
			}
		}
	})
}
