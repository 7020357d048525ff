package server_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
)

// taxBody is a tax jurisdiction creation document with the given code and zip codes.
func taxBody(code, zipCodes string) string {
	return `{"data":{"type":"taxjurisdictions","attributes":{"code":"` + code + `","zipCodes":` + zipCodes + `},
		"relationships":{"country":{"data":{"type":"countries","id":"US"}}}}}`
}

func TestTaxJurisdictionRules(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		runCases(t, a, []apiCase{
			{name: "single code given as to", method: http.MethodPost, path: "/admin/api/taxjurisdictions",
				body: taxBody("T1", `[{"to":"90280"}]`), status: 201, checks: []check{
					{path: "data/attributes/zipCodes/0/from", want: "90280"}, {path: "data/attributes/zipCodes/0/to", absent: true}}},
			{name: "numeric range", method: http.MethodPost, path: "/admin/api/taxjurisdictions",
				body: taxBody("T2", `[{"from":"90201","to":"90280"},{"from":"SW1A"}]`), status: 201, checks: []check{
					{path: "data/attributes/zipCodes/0/to", want: "90280"}, {path: "data/attributes/zipCodes/1/from", want: "SW1A"}}},
			{name: "range of letters", method: http.MethodPost, path: "/admin/api/taxjurisdictions",
				body: taxBody("T3", `[{"from":"1"},{"from":"A1","to":"B2"}]`), status: 400, checks: []check{
					{path: "errors/0/title", want: "zip code fields constraint"},
					{path: "errors/0/source/pointer", want: "/data/attributes/zipCodes/1/from"}}},
			{name: "reversed range", method: http.MethodPost, path: "/admin/api/taxjurisdictions",
				body: taxBody("T4", `[{"from":"20","to":"10"}]`), status: 400, checks: []check{
					{path: "errors/0/title", want: "zip code fields constraint"}}},
			{name: "empty element", method: http.MethodPost, path: "/admin/api/taxjurisdictions",
				body: taxBody("T5", `[{}]`), status: 400, checks: []check{
					{path: "errors/0/title", want: "not blank constraint"},
					{path: "errors/0/source/pointer", want: "/data/attributes/zipCodes/0/from"}}},
			{name: "country required", method: http.MethodPost, path: "/admin/api/taxjurisdictions",
				body: `{"data":{"type":"taxjurisdictions","attributes":{"code":"T6"}}}`, status: 400},
			{name: "nothing of a failed request was written", path: "/admin/api/taxjurisdictions?filter[code]=T3,T4,T5,T6",
				headers: map[string]string{"Accept": "application/vnd.api+json", "X-Include": "totalCount"}, status: 200, checks: []check{
					{path: "header:X-Include-Total-Count", want: "0"}}},
			{name: "plain create with inline relationships", method: http.MethodPost, path: "/admin/api/taxjurisdictions", headers: plain,
				body: `{"code":"T7","country":"DE","region":"DE-BY"}`, status: 201, checks: []check{
					{path: "country", want: "DE"}, {path: "region", want: "DE-BY"}}},
			{name: "plain error format", method: http.MethodPost, path: "/admin/api/taxjurisdictions", headers: plain,
				body: `{"code":"T8","country":"QQ"}`, status: 404, checks: []check{
					{path: "0/title", want: "not found http exception"}, {path: "0/source", want: "country"}}},
			{name: "read-only attribute in a body", method: http.MethodPost, path: "/admin/api/accounts",
				body: `{"data":{"type":"accounts","attributes":{"name":"x","createdAt":"2026-01-01T00:00:00Z"}}}`, status: 400, checks: []check{
					{path: "errors/0/title", want: "extra fields constraint"}}},
			{name: "weight unit without id", method: http.MethodPost, path: "/admin/api/weightunits",
				body: `{"data":{"type":"weightunits","attributes":{}}}`, status: 400},
			{name: "weight unit negative rate", method: http.MethodPost, path: "/admin/api/weightunits",
				body: `{"data":{"type":"weightunits","id":"oz","attributes":{"conversionRates":{"g":-1}}}}`, status: 400, checks: []check{
					{path: "errors/0/title", want: "range constraint"}}},
			{name: "weight unit update replaces rates", method: http.MethodPost, path: "/admin/api/weightunits",
				body: `{"data":{"type":"weightunits","id":"oz","attributes":{"conversionRates":{"g":28.35}}}}`, status: 201},
			{name: "weight unit patch", method: http.MethodPatch, path: "/admin/api/weightunits/oz",
				body: `{"data":{"type":"weightunits","id":"oz","attributes":{"conversionRates":{"lbs":0.0625}}}}`, status: 200, checks: []check{
					{path: "data/attributes/conversionRates/lbs", want: 0.0625}, {path: "data/attributes/conversionRates/g", absent: true}}},
			{name: "region that does not exist", method: http.MethodPatch, path: "/admin/api/taxjurisdictions/1",
				body: `{"data":{"type":"taxjurisdictions","id":"1","relationships":{"region":{"data":{"type":"regions","id":"US-QQ"}}}}}`, status: 404, checks: []check{
					{path: "errors/0/source/pointer", want: "/data/relationships/region/data"}}},
		})
	})
}

func TestFiltersOnTimesAndRanges(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		for _, name := range []string{"F1", "F2", "F3"} {
			a.do(http.MethodPost, "/admin/api/accounts", jsonAPI, `{"data":{"type":"accounts","attributes":{"name":"`+name+`"}}}`).want(t, 201)
		}
		runCases(t, a, []apiCase{
			{name: "id range", path: "/admin/api/accounts?filter[id]=2..3", status: 200, checks: []check{
				{path: "data/0/id", want: "2"}, {path: "data/1/id", want: "3"}, {path: "data/2", absent: true}}},
			{name: "id gte", path: "/admin/api/accounts?filter[id][gte]=3", status: 200, checks: []check{
				{path: "data/0/id", want: "3"}, {path: "data/1", absent: true}}},
			{name: "id neq list", path: "/admin/api/accounts?filter[id][neq]=1,3", status: 200, checks: []check{
				{path: "data/0/id", want: "2"}, {path: "data/1", absent: true}}},
			{name: "created this year", path: "/admin/api/accounts?filter[createdAt]=2000..2999&sort=-id", status: 200, checks: []check{
				{path: "data/0/id", want: "3"}}},
			{name: "created in any of several years", path: "/admin/api/accounts?filter[createdAt]=1999," + thisYear() + "&sort=-id", status: 200, checks: []check{
				{path: "data/0/id", want: "3"}, {path: "data/2/id", want: "1"}}},
			{name: "created in none of several years", path: "/admin/api/accounts?filter[createdAt][neq]=1999," + thisYear(), status: 200, checks: []check{
				{path: "data/0", absent: true}}},
			{name: "neq_or_null of a period", path: "/admin/api/accounts?filter[createdAt][neq_or_null]=1999", status: 200, checks: []check{
				{path: "data/2/id", want: "3"}}},
			{name: "created before 2000", path: "/admin/api/accounts?filter[createdAt][lt]=2000-01", status: 200, checks: []check{
				{path: "data/0", absent: true}}},
			{name: "external id exists false", path: "/admin/api/accounts?filter[externalId][exists]=false", status: 200, checks: []check{
				{path: "data/2/id", want: "3"}}},
			{name: "bad integer", path: "/admin/api/accounts?filter[id]=abc", status: 400, checks: []check{
				{path: "errors/0/detail", want: `Expected integer value. Given "abc".`}}},
			{name: "bad integer list", path: "/admin/api/accounts?filter[id]=1,a", status: 400, checks: []check{
				{path: "errors/0/detail", want: `Expected an array of integers. Given "1,a".`}}},
			{name: "bad date", path: "/admin/api/accounts?filter[createdAt]=yesterday", status: 400},
			{name: "empty value", path: "/admin/api/accounts?filter[name]=", status: 400},
			{name: "delete on a read-only resource", method: http.MethodDelete, path: "/admin/api/countries?filter[id]=US", status: 405},
		})
	})
}

func TestOrganizationsAreIsolated(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		ctx := context.Background()
		other := &storage.Organization{Name: "Other", Enabled: true}
		if _, err := a.store.DB().NewInsert().Model(other).Returning("id").Exec(ctx); err != nil {
			t.Fatal(err)
		}
		accounts, _ := a.store.Table("accounts")
		key, err := a.store.Insert(ctx, accounts, other.ID, storage.Row{"name": "Hidden", "external_id": "SAME"})
		if err != nil {
			t.Fatal(err)
		}
		units, _ := a.store.Table("weightunits")
		if _, err := a.store.Insert(ctx, units, other.ID, storage.Row{"code": "st", "conversion_rates": json.RawMessage(`{"kg":6.35}`)}); err != nil {
			t.Fatal(err)
		}
		id := keyText(key)
		runCases(t, a, []apiCase{
			{name: "get", path: "/admin/api/accounts/" + id, status: 404},
			{name: "list", path: "/admin/api/accounts?filter[name]=Hidden", status: 200, checks: []check{{path: "data/0", absent: true}}},
			{name: "update", method: http.MethodPatch, path: "/admin/api/accounts/" + id,
				body: `{"data":{"type":"accounts","id":"` + id + `","attributes":{"name":"x"}}}`, status: 404},
			{name: "delete", method: http.MethodDelete, path: "/admin/api/accounts/" + id, status: 404},
			{name: "delete by filter", method: http.MethodDelete, path: "/admin/api/accounts?filter[name]=Hidden",
				headers: map[string]string{"Accept": "application/vnd.api+json", "X-Include": "deletedCount"}, status: 204,
				checks: []check{{path: "header:X-Include-Deleted-Count", want: "0"}}},
			{name: "external id unique per organization only", method: http.MethodPost, path: "/admin/api/accounts",
				body: `{"data":{"type":"accounts","attributes":{"name":"Visible","externalId":"SAME"}}}`, status: 201},
			{name: "same unit code in another organization", method: http.MethodPost, path: "/admin/api/weightunits",
				body: `{"data":{"type":"weightunits","id":"st"}}`, status: 201},
		})
		if _, err := a.store.Get(ctx, accounts, other.ID, key); err != nil {
			t.Errorf("the other organization's account was touched: %v", err)
		}
	})
}

func keyText(k any) string {
	b, _ := json.Marshal(k)
	return string(b)
}

func TestDeleteByFilterIsCapped(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		accounts, _ := a.store.Table("accounts")
		rows := make([]storage.Row, 1001)
		for i := range rows {
			rows[i] = storage.Row{"name": "Bulk"}
		}
		if _, err := a.store.InsertMany(context.Background(), accounts, 1, rows); err != nil {
			t.Fatal(err)
		}
		count := map[string]string{"Accept": "application/vnd.api+json", "X-Include": "totalCount;deletedCount"}
		runCases(t, a, []apiCase{
			{name: "over the cap", method: http.MethodDelete, path: "/admin/api/accounts?filter[name]=Bulk", status: 400, headers: count,
				checks: []check{{path: "header:X-Include-Deleted-Count", absent: true}}},
			{name: "nothing was deleted", path: "/admin/api/accounts?filter[name]=Bulk&page[size]=1", headers: count, status: 200,
				checks: []check{{path: "header:X-Include-Total-Count", want: "1001"}}},
			{name: "within the cap", method: http.MethodDelete, path: "/admin/api/accounts?filter[name]=Bulk&filter[id][gt]=1", headers: count, status: 204,
				checks: []check{{path: "header:X-Include-Deleted-Count", want: "1000"}, {path: "header:X-Include-Total-Count", want: "1000"}}},
		})
	})
}

func thisYear() string { return strconv.Itoa(time.Now().UTC().Year()) }
