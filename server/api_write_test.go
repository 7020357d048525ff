package server_test

import (
	"net/http"
	"strings"
	"testing"
)

func TestWriteResources(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		r := a.do(http.MethodPost, "/admin/api/accounts", jsonAPI,
			`{"data":{"type":"accounts","attributes":{"name":"Acme","externalId":"A-1"}}}`).want(t, 201)
		id, _ := get(r.doc, "data/id").(string)
		if r.header.Get("Location") != a.base+"/admin/api/accounts/"+id {
			t.Fatalf("Location = %q, id %q", r.header.Get("Location"), id)
		}
		runCases(t, a, []apiCase{
			{name: "read created", path: "/admin/api/accounts/" + id, status: 200, checks: []check{
				{path: "data/attributes/name", want: "Acme"}, {path: "data/attributes/externalId", want: "A-1"}}},
			{name: "update name only", method: http.MethodPatch, path: "/admin/api/accounts/" + id,
				body: `{"data":{"type":"accounts","id":"` + id + `","attributes":{"name":"Acme Inc"}}}`, status: 200, checks: []check{
					{path: "data/attributes/name", want: "Acme Inc"}, {path: "data/attributes/externalId", want: "A-1"}}},
			{name: "plain read", path: "/admin/api/accounts/" + id, headers: plain, status: 200, checks: []check{{path: "name", want: "Acme Inc"}}},
			{name: "plain create", method: http.MethodPost, path: "/admin/api/accounts", headers: plain,
				body: `{"name":"Plain Co"}`, status: 201, checks: []check{{path: "name", want: "Plain Co"}, {path: "externalId", absent: true}}},
			{name: "duplicate external id", method: http.MethodPost, path: "/admin/api/accounts",
				body: `{"data":{"type":"accounts","attributes":{"name":"B","externalId":"A-1"}}}`, status: 400, checks: []check{
					{path: "errors/0/title", want: "unique entity constraint"}, {path: "errors/0/source/pointer", want: "/data/attributes/externalId"}}},
			{name: "name missing", method: http.MethodPost, path: "/admin/api/accounts",
				body: `{"data":{"type":"accounts","attributes":{}}}`, status: 400, checks: []check{
					{path: "errors/0/title", want: "not blank constraint"}, {path: "errors/0/source/pointer", want: "/data/attributes/name"}}},
			{name: "name too long", method: http.MethodPost, path: "/admin/api/accounts",
				body: `{"data":{"type":"accounts","attributes":{"name":"` + strings.Repeat("x", 256) + `"}}}`, status: 400, checks: []check{
					{path: "errors/0/title", want: "length constraint"}}},
			{name: "wrong JSON type", method: http.MethodPost, path: "/admin/api/accounts",
				body: `{"data":{"type":"accounts","attributes":{"name":42}}}`, status: 400, checks: []check{
					{path: "errors/0/title", want: "type constraint"}, {path: "errors/0/source/pointer", want: "/data/attributes/name"}}},
			{name: "unknown attribute", method: http.MethodPost, path: "/admin/api/accounts",
				body: `{"data":{"type":"accounts","attributes":{"name":"x","color":"red"}}}`, status: 400, checks: []check{
					{path: "errors/0/title", want: "extra fields constraint"}, {path: "errors/0/source/pointer", want: "/data/attributes"}}},
			{name: "malformed JSON", method: http.MethodPost, path: "/admin/api/accounts", body: `{"data":`, status: 400, checks: []check{
				{path: "errors/0/title", want: "bad request http exception"}}},
			{name: "invalid UTF-8", method: http.MethodPost, path: "/admin/api/accounts",
				body: "{\"data\":{\"type\":\"accounts\",\"attributes\":{\"name\":\"\xff\"}}}", status: 400},
			{name: "type mismatch is 409", method: http.MethodPost, path: "/admin/api/accounts",
				body: `{"data":{"type":"countries","attributes":{"name":42}}}`, status: 409, checks: []check{
					{path: "errors/0/source/pointer", want: "/data/type"}}},
			{name: "id mismatch is 409", method: http.MethodPatch, path: "/admin/api/accounts/" + id,
				body: `{"data":{"type":"accounts","id":"999999","attributes":{}}}`, status: 409},
			{name: "oversized body", method: http.MethodPost, path: "/admin/api/accounts",
				body: `{"data":{"type":"accounts","attributes":{"name":"` + strings.Repeat("x", 70<<10) + `"}}}`, status: 413},
			{name: "no content type", method: http.MethodPost, path: "/admin/api/accounts", headers: map[string]string{"Accept": "*/*"},
				body: `{"name":"x"}`, status: 415},
			{name: "json:api content type with parameters", method: http.MethodPost, path: "/admin/api/accounts",
				headers: map[string]string{"Content-Type": "application/vnd.api+json; charset=utf-8"}, body: `{}`, status: 415},
			{name: "missing account", path: "/admin/api/accounts/999999", status: 404},
			{name: "weight unit create", method: http.MethodPost, path: "/admin/api/weightunits",
				body: `{"data":{"type":"weightunits","id":"t","attributes":{"conversionRates":{"kg":1000}}}}`, status: 201, checks: []check{
					{path: "data/id", want: "t"}, {path: "data/attributes/conversionRates/kg", want: float64(1000)}}},
			{name: "weight unit exists", method: http.MethodPost, path: "/admin/api/weightunits",
				body: `{"data":{"type":"weightunits","id":"t","attributes":{}}}`, status: 409},
			{name: "tax jurisdiction create", method: http.MethodPost, path: "/admin/api/taxjurisdictions",
				body: `{"data":{"type":"taxjurisdictions","attributes":{"code":"NYC","zipCodes":[{"from":"10001","to":"10099"}]},
				"relationships":{"country":{"data":{"type":"countries","id":"US"}},"region":{"data":{"type":"regions","id":"US-NY"}}}}}`,
				status: 201, checks: []check{{path: "data/relationships/country/data/id", want: "US"}, {path: "data/attributes/zipCodes/0/from", want: "10001"}}},
			{name: "tax jurisdiction with missing country", method: http.MethodPost, path: "/admin/api/taxjurisdictions",
				body:   `{"data":{"type":"taxjurisdictions","attributes":{"code":"XX"},"relationships":{"country":{"data":{"type":"countries","id":"QQ"}}}}}`,
				status: 404, checks: []check{{path: "errors/0/title", want: "not found http exception"},
					{path: "errors/0/detail", want: "The entity does not exist."},
					{path: "errors/0/source/pointer", want: "/data/relationships/country/data"}}},
			{name: "tax jurisdictions include", path: "/admin/api/taxjurisdictions?include=country,region&filter[code]=NYC", status: 200, checks: []check{
				{path: "included/1/type", want: "regions"}, {path: "data/0/attributes/code", want: "NYC"}}},
			{name: "delete list needs a filter", method: http.MethodDelete, path: "/admin/api/accounts", status: 400, checks: []check{
				{path: "errors/0/detail", want: "At least one filter must be provided."}}},
			{name: "delete list", method: http.MethodDelete, path: "/admin/api/accounts?filter[name]=Plain%20Co",
				headers: map[string]string{"Accept": "application/vnd.api+json", "X-Include": "deletedCount"}, status: 204, checks: []check{
					{path: "header:X-Include-Deleted-Count", want: "1"}}},
			{name: "delete one", method: http.MethodDelete, path: "/admin/api/accounts/" + id, status: 204},
			{name: "deleted is gone", path: "/admin/api/accounts/" + id, status: 404},
			{name: "delete missing", method: http.MethodDelete, path: "/admin/api/accounts/" + id, status: 404},
		})
	})
}
