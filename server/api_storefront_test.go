package server_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/entityapi/entityapi/openapi"
)

// guest is a storefront request without a token.
var guest = map[string]string{"Accept": "application/vnd.api+json", "Authorization": ""}

// withHeaders adds headers to a copy of base.
func withHeaders(base map[string]string, kv ...string) map[string]string {
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	return out
}

func TestStorefrontAccess(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		sf := a.caller("storefront")
		r := a.do(http.MethodGet, "/api/countries/DE", guest, "").want(t, 200)
		checkValues(t, r, map[string]any{"data/id": "DE", "data/attributes/name": "Germany"})
		if r.header.Get("Content-Language") != "en-US" || r.header.Get("X-Currency") != "USD" {
			t.Errorf("defaults: Content-Language %q, X-Currency %q", r.header.Get("Content-Language"), r.header.Get("X-Currency"))
		}
		runCases(t, a, []apiCase{
			{name: "guest reads regions", path: "/api/regions?filter[country]=DE&page[size]=2", headers: guest, status: 200},
			{name: "guest reads localizations", path: "/api/localizations", headers: guest, status: 200, checks: []check{
				{path: "data/1/id", want: "2"}, {path: "data/1/attributes/languageCode", want: "de"}, {path: "data/1/attributes/formattingCode", want: "de_DE"}}},
			{name: "guest reads currencies", path: "/api/currencies", headers: guest, status: 200, checks: []check{
				{path: "data/0/id", want: "EUR"}, {path: "data/0/attributes/symbol", want: "€"}, {path: "data/1/id", want: "GBP"}, {path: "data/2/id", want: "USD"},
				{path: "data/3", absent: true}}},
			{name: "a currency that is not enabled", path: "/api/currencies/JPY", headers: guest, status: 404},
			{name: "guest may not read weight units", path: "/api/weightunits", headers: guest, status: 401},
			{name: "back-office token on the storefront", path: "/api/countries", status: 401},
			{name: "plain format for guests", path: "/api/countries/DE", headers: map[string]string{"Accept": "application/json", "Authorization": ""},
				status: 200, checks: []check{{path: "name", want: "Germany"}}},
		})
		sf.do(http.MethodGet, "/api/weightunits", jsonAPI, "").want(t, 200)
		sf.do(http.MethodGet, "/api/countries/US?include=regions", jsonAPI, "").want(t, 200)
		sf.do(http.MethodGet, "/admin/api/countries", jsonAPI, "").want(t, 401)
		r = sf.do(http.MethodPost, "/api/countries", jsonAPI, `{"data":{"type":"countries","id":"XX"}}`).want(t, 405)
		if got := r.header.Get("Allow"); got != "OPTIONS, GET, HEAD" {
			t.Errorf("Allow = %q", got)
		}
		sf.do(http.MethodDelete, "/api/weightunits/kg", jsonAPI, "").want(t, 405)
		for _, path := range []string{"/api/openapi.yaml", "/api/openapi.json"} {
			res, err := http.Get(a.base + path)
			if err != nil || res.StatusCode != 200 {
				t.Fatalf("%s: %v %v", path, err, res)
			}
			res.Body.Close()
		}
	})
}

func TestStorefrontHeaders(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		for _, tc := range []struct {
			id, language, country, region string
		}{
			{"1", "en-US", "Germany", "Bayern"},
			{"2", "de-DE", "Deutschland", "Bayern"},
			{"3", "fr-FR", "Allemagne", "Bavière"},
			{"4", "es-ES", "Alemania", "Bayern"},
		} {
			h := withHeaders(guest, "X-Localization-ID", tc.id)
			r := a.do(http.MethodGet, "/api/countries/DE?include=regions", h, "").want(t, 200)
			if r.header.Get("Content-Language") != tc.language {
				t.Errorf("X-Localization-ID %s: Content-Language %q, want %q", tc.id, r.header.Get("Content-Language"), tc.language)
			}
			checkValues(t, r, map[string]any{"data/attributes/name": tc.country})
			region := a.do(http.MethodGet, "/api/regions/DE-BY", h, "").want(t, 200)
			checkValues(t, region, map[string]any{"data/attributes/name": tc.region})
			sorted := a.do(http.MethodGet, "/api/countries?sort=-name&page[size]=1&metaProperties=title", h, "").want(t, 200)
			if title, name := get(sorted.doc, "data/0/meta/title"), get(sorted.doc, "data/0/attributes/name"); title != name {
				t.Errorf("X-Localization-ID %s: title %v, name %v", tc.id, title, name)
			}
		}
		plainDE := a.do(http.MethodGet, "/api/countries/DE", map[string]string{"Accept": "application/json", "Authorization": "", "X-Localization-ID": "2"}, "").want(t, 200)
		checkValues(t, plainDE, map[string]any{"name": "Deutschland"})
		backOffice := a.do(http.MethodGet, "/admin/api/countries/DE", withHeaders(jsonAPI, "X-Localization-ID", "2"), "").want(t, 200)
		checkValues(t, backOffice, map[string]any{"data/attributes/name": "Germany"})

		eur := a.do(http.MethodGet, "/api/countries/DE", withHeaders(guest, "X-Currency", "EUR"), "").want(t, 200)
		if eur.header.Get("X-Currency") != "EUR" {
			t.Errorf("X-Currency answered %q", eur.header.Get("X-Currency"))
		}
		runCases(t, a, []apiCase{
			{name: "localization not an integer", path: "/api/countries", headers: withHeaders(guest, "X-Localization-ID", "abc"), status: 400, checks: []check{
				{path: "errors/0/title", want: "invalid header value exception"},
				{path: "errors/0/detail", want: `Expected integer value. Given "abc". Header: X-Localization-ID.`},
				{path: "errors/0/source/header", want: "X-Localization-ID"}}},
			{name: "unknown localization", path: "/api/countries", headers: withHeaders(guest, "X-Localization-ID", "99"), status: 400, checks: []check{
				{path: "errors/0/detail", want: `The value "99" is unknown localization ID. Available values: 1, 2, 3, 4. Header: X-Localization-ID.`}}},
			{name: "unknown currency", path: "/api/countries", headers: withHeaders(guest, "X-Currency", "QQQ"), status: 400, checks: []check{
				{path: "errors/0/title", want: "invalid header value exception"},
				{path: "errors/0/detail", want: `The value "QQQ" is unknown currency code. Available values: EUR, GBP, USD. Header: X-Currency.`},
				{path: "errors/0/source/header", want: "X-Currency"}}},
			{name: "plain error", path: "/api/countries", headers: map[string]string{"Accept": "application/json", "Authorization": "", "X-Currency": "qqq"},
				status: 400, checks: []check{{path: "0/source", want: "X-Currency"}}},
		})
	})
}

// TestEveryStorefrontOperation calls each operation of the storefront document
// as a storefront client, as a guest (allowed exactly where the document makes
// the token optional) and with a back-office token (always 401), in both
// formats where the operation has them.
func TestEveryStorefrontOperation(t *testing.T) {
	doc, err := openapi3.NewLoader().LoadFromData(openapi.Storefront)
	if err != nil {
		t.Fatal(err)
	}
	eachAPI(t, func(t *testing.T, a *api) {
		ids := map[string]string{"countries": "DE", "regions": "DE-BY", "weightunits": "kg", "localizations": "2", "currencies": "EUR"}
		a.created(t, "/admin/api/weightunits", `{"data":{"type":"weightunits","id":"kg"}}`)
		sf := a.caller("storefront")
		for path, item := range doc.Paths.Map() {
			op := item.Get
			if op == nil || !strings.HasPrefix(path, "/api/") {
				continue
			}
			segs := strings.Split(strings.TrimPrefix(path, "/api/"), "/")
			if len(segs) > 1 {
				if ids[segs[0]] == "" { // a type added since: a record made as the back office documents it
					ids[segs[0]] = exampleRecord(t, a, segs[0])
				}
				segs[1] = ids[segs[0]]
			}
			url := "/api/" + strings.Join(segs, "/")
			if segs[0] == "search" {
				url += "?filter[searchText]=germany" // the search's text is required
			}
			guestAllowed := op.Security != nil && slices.ContainsFunc(*op.Security, func(r openapi3.SecurityRequirement) bool { return len(r) == 0 })
			t.Run(op.OperationID, func(t *testing.T) {
				formats := []map[string]string{jsonAPI}
				if op.Responses.Value("200").Value.Content.Get("application/json") != nil {
					formats = append(formats, plain)
				}
				for _, h := range formats {
					sf.do(http.MethodGet, url, h, "").want(t, 200)
					want := 401
					if guestAllowed {
						want = 200
					}
					a.do(http.MethodGet, url, withHeaders(h, "Authorization", ""), "").want(t, want)
					a.do(http.MethodGet, url, h, "").want(t, 401) // a back-office token
				}
			})
		}
	})
}
