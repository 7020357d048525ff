package server_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/storage"
)

// Full-text search on the lists (issue 32, part 1; docs/queries.md,
// "Search"): filter[searchText] over the attributes each document
// declares (x-entityapi search), read the same way on both databases.

func TestSearchText(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		acc := seedRows(t, a.store, "accounts",
			storage.Row{"name": "Acme Corporation", "external_id": "ACME-001"},  // #1
			storage.Row{"name": "Globex Industries", "external_id": "GLOBEX-7"}, // #2
			storage.Row{"name": "Acme Rockets"},                                 // #3
			storage.Row{"name": "Initech"},                                      // #4
			storage.Row{"name": "Café Crème"},                                   // #5
		)
		p := "/admin/api/accounts?filter[searchText]="
		q := func(s string) string { return p + url.QueryEscape(s) }
		runListCases(t, a, []listCase{
			{name: "a word", path: q("acme"), want: nth(acc, 1, 3)},
			{name: "any case", path: q("ACME"), want: nth(acc, 1, 3)},
			{name: "every word, in any order", path: q("corporation acme"), want: nth(acc, 1)},
			{name: "a phrase", path: q(`"acme corporation"`), want: nth(acc, 1)},
			{name: "a phrase in another order", path: q(`"rockets acme"`), want: nil},
			{name: "a phrase runs on from one attribute into the next", path: q(`"corporation acme 001"`), want: nth(acc, 1)},
			{name: "a word excluded", path: q("acme -rockets"), want: nth(acc, 1)},
			{name: "only excluded words", path: q("-acme -initech"), want: nth(acc, 2, 5)},
			{name: "a phrase excluded", path: q(`acme -"acme rockets"`), want: nth(acc, 1)},
			{name: "OR", path: q("globex OR initech"), want: nth(acc, 2, 4)},
			{name: "OR binds the words beside it", path: q("acme corporation OR rockets"), want: nth(acc, 1, 3)},
			{name: "OR with an exclusion", path: q("acme OR initech -rockets"), want: nth(acc, 1, 4)},
			{name: "a lower-case or is a word", path: q("acme or rockets"), want: nil},
			{name: "the other attribute", path: q("001"), want: nth(acc, 1)},
			{name: "punctuation separates words", path: q("ACME-001"), want: nth(acc, 1)},
			{name: "a whole word, not a prefix", path: q("acm"), want: nil},
			{name: "accents are kept", path: q("café"), want: nth(acc, 5)},
			{name: "without its accent", path: q("cafe"), want: nil},
			{name: "no prefix operator", path: q("acme*"), want: nth(acc, 1, 3)},
			{name: "no column filter", path: q("name:acme"), want: nil},
			{name: "no NEAR", path: q("NEAR(acme rockets)"), want: nil},
			{name: "AND is a word", path: q("acme AND rockets"), want: nil},
			{name: "an unclosed quote runs to the end", path: q(`"acme rockets`), want: nth(acc, 3)},
			{name: "with another filter", path: q("acme") + "&filter[id][gt]=" + acc[0], want: nth(acc, 3)},
			{name: "sorted", path: q("acme") + "&sort=-name", want: nth(acc, 3, 1)},
			{name: "paged", path: q("acme") + "&page[size]=1&page[number]=2", want: nth(acc, 3)},
			{name: "no word", path: q("!!! --- ***"), status: 400, param: "filter[searchText]",
				detail: "The search has no word to find: give at least one word of letters or digits."},
			{name: "empty", path: p, status: 400, param: "filter[searchText]"},
			{name: "too many words", path: q(strings.Repeat("w ", 33)), status: 400, param: "filter[searchText]",
				detail: "The search has 33 words; at most 32 are allowed."},
			{name: "too long", path: q(strings.Repeat("x", 1001)), status: 400, param: "filter[searchText]"},
			{name: "an operator", path: "/admin/api/accounts?filter[searchText][neq]=acme", status: 400, param: "filter[searchText][neq]"},
			{name: "a list that is not searched", path: "/admin/api/weightunits?filter[searchText]=kilogram", status: 400, param: "filter[searchText]"},
		})

		t.Run("writes keep the index", func(t *testing.T) {
			a.do(http.MethodPatch, "/admin/api/accounts/"+acc[3], jsonAPI,
				`{"data":{"type":"accounts","id":"`+acc[3]+`","attributes":{"name":"Initech Global"}}}`).want(t, 200)
			a.do(http.MethodDelete, "/admin/api/accounts/"+acc[1], jsonAPI, "").want(t, 204)
			created := a.do(http.MethodPost, "/admin/api/accounts", jsonAPI, `{"data":{"type":"accounts","attributes":{"name":"Global Dynamics"}}}`).want(t, 201)
			id, _ := created.value("data/id").(string)
			r := a.do(http.MethodGet, q("global")+"&sort=id", jsonAPI, "").want(t, 200)
			if got := dataIDs(t, r); !slices.Equal(got, []string{acc[3], id}) {
				t.Errorf("global: %v, want %v", got, []string{acc[3], id})
			}
			for _, gone := range []string{"globex", "initech -global"} {
				r = a.do(http.MethodGet, q(gone), jsonAPI, "").want(t, 200)
				if got := dataIDs(t, r); len(got) != 0 {
					t.Errorf("%s: %v, want none", gone, got)
				}
			}
		})
		t.Run("total count", func(t *testing.T) {
			r := a.do(http.MethodGet, q("acme"), map[string]string{"Accept": "application/vnd.api+json", "X-Include": "totalCount"}, "")
			check{path: "header:X-Include-Total-Count", want: "2"}.verify(t, r.want(t, 200))
		})
		t.Run("delete by search", func(t *testing.T) {
			a.do(http.MethodDelete, q("rockets"), jsonAPI, "").want(t, 204)
			r := a.do(http.MethodGet, q("acme"), jsonAPI, "").want(t, 200)
			if got := dataIDs(t, r); !slices.Equal(got, nth(acc, 1)) {
				t.Errorf("after deleting by search: %v, want %v", got, nth(acc, 1))
			}
		})
	})
}

// TestSearchTextOfEachType: every searchable type finds by each attribute
// it declares, and a search never finds another organization's records.
func TestSearchTextOfEachType(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		unit := seedRows(t, a.store, "businessunits", storage.Row{"name": "Zephyr Unit", "email": "zephyr-unit@units.example"})[0]
		user := seedRows(t, a.store, "users", storage.Row{"username": "quasar", "email": "quasar@stars.example", "first_name": "Nova",
			"last_name": "Pulsar", "enabled": true})[0]
		contact := seedRows(t, a.store, "contacts", storage.Row{"first_name": "Jane", "last_name": "Quimby",
			"primary_email": "jane.quimby@acme.example", "external_id": "CRM-9042"})[0]
		other := principalOrg(t, a, "elsewhere-admin")
		contacts, _ := a.store.Table("contacts")
		if _, err := a.store.InsertMany(context.Background(), contacts, other, []storage.Row{{"first_name": "Jane", "last_name": "Quimby"}}); err != nil {
			t.Fatal(err)
		}
		q := url.QueryEscape
		runListCases(t, a, []listCase{
			{name: "a business unit by name", path: "/admin/api/businessunits?filter[searchText]=zephyr", want: []string{unit}},
			{name: "a business unit by email", path: "/admin/api/businessunits?filter[searchText]=units", want: []string{unit}},
			{name: "a user by username", path: "/admin/api/users?filter[searchText]=quasar", want: []string{user}},
			{name: "a user by first and last name", path: "/admin/api/users?filter[searchText]=" + q("nova pulsar"), want: []string{user}},
			{name: "a user by email", path: "/admin/api/users?filter[searchText]=stars", want: []string{user}},
			{name: "a contact by name, in this organization only", path: "/admin/api/contacts?filter[searchText]=quimby", want: []string{contact}},
			{name: "a contact by email as typed", path: "/admin/api/contacts?filter[searchText]=" + q("jane.quimby@acme.example"), want: []string{contact}},
			{name: "a contact by external id", path: "/admin/api/contacts?filter[searchText]=" + q("CRM-9042"), want: []string{contact}},
			{name: "a related list", path: "/admin/api/organizations/1/users?filter[searchText]=quasar", want: []string{user}},
		})
		r := a.caller("elsewhere-admin").do(http.MethodGet, "/admin/api/contacts?filter[searchText]=quimby", jsonAPI, "").want(t, 200)
		if got := dataIDs(t, r); len(got) != 1 || got[0] == contact {
			t.Errorf("the other organization finds %v, want its own contact only", got)
		}
	})
}
