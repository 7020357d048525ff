package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/storage"
)

// Filters and sorts on fields of related records (issue 32, part 2;
// docs/queries.md "Related fields"): filter[owner.username],
// filter[contacts.lastName], sort=owner.username, for the paths each
// document declares (x-entityapi paths).

// pathWorld is what seedPaths made, by the names the cases use.
type pathWorld struct {
	unit             string   // the business unit PathUnit
	ann, bob         string   // users pathowner-ann (in PathUnit) and pathowner-bob
	c1, c2, c3, c4   string   // contacts: c1 Pathson (ann), c2 Other (bob), c3 Pathson (none), c4 Lone (reports to c1)
	a1, a2, a3, a4   string   // accounts Path A..D
	accounts, people []string // a1..a4, c1..c4
}

// seedPaths makes, in organization 1:
//
//	a1 "Path A": owner ann, contacts c1 c2, default contact c1
//	a2 "Path B": owner bob, contacts c2
//	a3 "Path C": no owner, no contacts, referred by a1
//	a4 "Path D": owner ann, contacts c1 c3 (two that match Pathson: listed once)
func seedPaths(t *testing.T, s *storage.Store) pathWorld {
	t.Helper()
	var w pathWorld
	w.unit = seedRows(t, s, "businessunits", storage.Row{"name": "PathUnit"})[0]
	users := seedRows(t, s, "users",
		storage.Row{"username": "pathowner-ann", "email": "ann@paths.example", "first_name": "Ann", "last_name": "Path", "enabled": true, "owner_id": num(w.unit)},
		storage.Row{"username": "pathowner-bob", "email": "bob@paths.example", "first_name": "Bob", "last_name": "Path", "enabled": true})
	w.ann, w.bob = users[0], users[1]
	people := seedRows(t, s, "contacts",
		storage.Row{"first_name": "One", "last_name": "Pathson", "owner_id": num(w.ann)},
		storage.Row{"first_name": "Two", "last_name": "Other", "owner_id": num(w.bob)},
		storage.Row{"first_name": "Three", "last_name": "Pathson"})
	w.c1, w.c2, w.c3 = people[0], people[1], people[2]
	w.c4 = seedRows(t, s, "contacts", storage.Row{"first_name": "Four", "last_name": "Lone", "reports_to_id": num(w.c1)})[0]
	w.people = []string{w.c1, w.c2, w.c3, w.c4}
	acc := seedRows(t, s, "accounts",
		storage.Row{"name": "Path A", "owner_id": num(w.ann), "default_contact_id": num(w.c1)},
		storage.Row{"name": "Path B", "owner_id": num(w.bob)})
	w.a1, w.a2 = acc[0], acc[1]
	w.a3 = seedRows(t, s, "accounts", storage.Row{"name": "Path C", "referred_by_id": num(w.a1)})[0]
	w.a4 = seedRows(t, s, "accounts", storage.Row{"name": "Path D", "owner_id": num(w.ann)})[0]
	w.accounts = []string{w.a1, w.a2, w.a3, w.a4}
	seedLinks(t, s, "account_contacts", [2]string{w.a1, w.c1}, [2]string{w.a1, w.c2}, [2]string{w.a2, w.c2},
		[2]string{w.a4, w.c1}, [2]string{w.a4, w.c3})
	return w
}

func TestRelatedFieldFilters(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		w := seedPaths(t, a.store)
		acc := "/admin/api/accounts?"
		con := "/admin/api/contacts?"
		runListCases(t, a, []listCase{
			// to-one
			{name: "to-one eq", path: acc + "filter[owner.username]=pathowner-ann", want: []string{w.a1, w.a4}},
			{name: "to-one eq list", path: acc + "filter[owner.username]=pathowner-ann,pathowner-bob", want: []string{w.a1, w.a2, w.a4}},
			{name: "to-one eq nothing", path: acc + "filter[owner.username]=nobody", want: nil},
			{name: "to-one neq: records without one included", path: acc + "filter[owner.username][neq]=pathowner-ann", want: []string{w.a2, w.a3}},
			{name: "to-one neq_or_null", path: acc + "filter[owner.username][neq_or_null]=pathowner-ann", want: []string{w.a2, w.a3}},
			{name: "to-one starts_with", path: acc + "filter[owner.username][starts_with]=pathowner", want: []string{w.a1, w.a2, w.a4}},
			{name: "to-one not_starts_with", path: acc + "filter[owner.username][not_starts_with]=pathowner-a", want: []string{w.a2, w.a3}},
			{name: "to-one contains", path: acc + "filter[owner.email][contains]=bob", want: []string{w.a2}},
			{name: "to-one ends_with", path: acc + "filter[owner.email][ends_with]=paths.example", want: []string{w.a1, w.a2, w.a4}},
			{name: "to-one not_ends_with", path: acc + "filter[owner.email][not_ends_with]=paths.example", want: []string{w.a3}},
			{name: "to-one exists", path: acc + "filter[owner.username][exists]=true", want: []string{w.a1, w.a2, w.a4}},
			{name: "to-one exists false", path: acc + "filter[owner.username][exists]=false", want: []string{w.a3}},
			{name: "to-one LIKE characters are literal", path: acc + "filter[owner.username][contains]=" + url.QueryEscape("%"), want: nil},
			{name: "to-one of the same type", path: acc + "filter[referredBy.name]=" + url.QueryEscape("Path A"), want: []string{w.a3}},
			{name: "to-one of the same type neq", path: acc + "filter[referredBy.name][neq]=" + url.QueryEscape("Path A"), want: []string{w.a1, w.a2, w.a4}},
			{name: "default contact", path: acc + "filter[defaultContact.lastName]=Pathson", want: []string{w.a1}},
			// to-many
			{name: "to-many any of: each record once", path: acc + "filter[contacts.lastName]=Pathson", want: []string{w.a1, w.a4}},
			{name: "to-many none of: records without any included", path: acc + "filter[contacts.lastName][neq]=Pathson", want: []string{w.a2, w.a3}},
			{name: "to-many contains", path: acc + "filter[contacts.lastName][contains]=ath", want: []string{w.a1, w.a4}},
			{name: "to-many not_contains", path: acc + "filter[contacts.lastName][not_contains]=ath", want: []string{w.a2, w.a3}},
			{name: "to-many exists", path: acc + "filter[contacts.lastName][exists]=true", want: []string{w.a1, w.a2, w.a4}},
			{name: "to-many exists false", path: acc + "filter[contacts.lastName][exists]=false", want: []string{w.a3}},
			// two relationships deep
			{name: "two deep", path: acc + "filter[contacts.owner.username]=pathowner-bob", want: []string{w.a1, w.a2}},
			{name: "two deep none of", path: acc + "filter[contacts.owner.username][neq]=pathowner-bob", want: []string{w.a3, w.a4}},
			{name: "two deep from contacts", path: con + "filter[accounts.owner.username]=pathowner-bob", want: []string{w.c2}},
			{name: "to-many from contacts", path: con + "filter[accounts.name]=" + url.QueryEscape("Path A"), want: []string{w.c1, w.c2}},
			{name: "to-one from contacts", path: con + "filter[reportsTo.lastName]=Pathson", want: []string{w.c4}},
			{name: "to-one from contacts, none of", path: con + "filter[owner.username][neq]=pathowner-ann", want: []string{w.c2, w.c3, w.c4}},
			{name: "users by their business unit", path: "/admin/api/users?filter[owner.name]=PathUnit", want: []string{w.ann}},
			{name: "business units by their users", path: "/admin/api/businessunits?filter[users.username]=pathowner-ann", want: []string{w.unit}},
			// with the other parameters
			{name: "with other filters", path: acc + "filter[owner.username]=pathowner-ann&filter[contacts.lastName]=Pathson&filter[name]=" + url.QueryEscape("Path D"), want: []string{w.a4}},
			{name: "a related list", path: "/admin/api/accounts/" + w.a1 + "/contacts?filter[owner.username]=pathowner-bob", want: []string{w.c2}},
			{name: "paged", path: acc + "filter[owner.username][starts_with]=pathowner&page[size]=2&page[number]=2", want: []string{w.a4}},
			// sort
			{name: "sort by a to-one field", path: acc + "sort=owner.username", want: []string{w.a1, w.a4, w.a2, w.a3}},
			{name: "sort by a to-one field descending", path: acc + "sort=-owner.username", want: []string{w.a3, w.a2, w.a1, w.a4}},
			{name: "sort by a related field, then a field", path: acc + "sort=owner.username,-name", want: []string{w.a4, w.a1, w.a2, w.a3}},
			{name: "sort by a related field of the same type", path: acc + "sort=-referredBy.name,id", want: []string{w.a1, w.a2, w.a4, w.a3}},
			// refused
			{name: "a path not declared", path: acc + "filter[owner.firstName]=Ann", status: 400, param: "filter[owner.firstName]"},
			{name: "a path through an attribute", path: acc + "filter[name.length]=3", status: 400, param: "filter[name.length]"},
			{name: "an operator the field does not have", path: acc + "filter[owner.username][gt]=a", status: 400,
				detail: `The operator "gt" is not supported.`, param: "filter[owner.username][gt]"},
			{name: "a value too long", path: acc + "filter[owner.username]=" + strings.Repeat("x", 1001), status: 400, param: "filter[owner.username]"},
			{name: "an empty value", path: acc + "filter[contacts.lastName]=", status: 400, param: "filter[contacts.lastName]"},
			{name: "sort through a to-many relationship", path: acc + "sort=contacts.lastName", status: 400, title: "sort constraint",
				detail: `Sorting by "contacts.lastName" field is not supported.`},
			{name: "sort by a path not declared", path: acc + "sort=owner.firstName", status: 400, title: "sort constraint"},
			{name: "a cursor on a related sort", path: acc + "sort=owner.username&page[after]=", status: 400, title: "sort constraint",
				detail: `A list sorted by the related field "owner.username" cannot be paged by cursor; page it by number.`},
		})

		t.Run("cursor paging of a related filter", func(t *testing.T) {
			first := a.do(http.MethodGet, acc+"filter[contacts.lastName]=Pathson&page[size]=1&page[after]=", jsonAPI, "").want(t, 200)
			if got := dataIDs(t, first); !slices.Equal(got, []string{w.a1}) {
				t.Fatalf("first page %v, want [%s]", got, w.a1)
			}
			next, _ := first.value("links/next").(string)
			u, err := url.Parse(next)
			if err != nil || next == "" {
				t.Fatalf("no next link: %q", next)
			}
			second := a.do(http.MethodGet, u.RequestURI(), jsonAPI, "").want(t, 200)
			if got := dataIDs(t, second); !slices.Equal(got, []string{w.a4}) {
				t.Errorf("second page %v, want [%s]", got, w.a4)
			}
		})
		t.Run("total count", func(t *testing.T) {
			r := a.do(http.MethodGet, acc+"filter[contacts.lastName][neq]=Pathson&page[size]=1", map[string]string{"Accept": "application/vnd.api+json", "X-Include": "totalCount"}, "")
			check{path: "header:X-Include-Total-Count", want: "2"}.verify(t, r.want(t, 200))
		})
		t.Run("aggregations", func(t *testing.T) {
			r := a.do(http.MethodGet, acc+"filter[owner.username]=pathowner-ann&"+aggregations("name count"), jsonAPI, "").want(t, 200)
			got, _ := r.value("meta/aggregatedData/nameCount").([]any)
			if len(got) != 2 {
				t.Errorf("nameCount %v, want the two names of ann's accounts", got)
			}
		})
		t.Run("plain format", func(t *testing.T) {
			r := a.do(http.MethodGet, acc+"filter[owner.username]=pathowner-bob", map[string]string{"Accept": "application/json"}, "").want(t, 200)
			list, _ := r.value("").([]any)
			if len(list) != 1 || fmt.Sprint(get(list[0], "id")) != w.a2 {
				t.Errorf("plain list %s, want account %s only", r.body, w.a2)
			}
		})
		t.Run("delete by a related field", func(t *testing.T) {
			a.do(http.MethodDelete, acc+"filter[owner.username]=pathowner-bob", jsonAPI, "").want(t, 204)
			r := a.do(http.MethodGet, acc+"sort=id", jsonAPI, "").want(t, 200)
			if got := dataIDs(t, r); !slices.Equal(got, []string{w.a1, w.a3, w.a4}) {
				t.Errorf("after the delete: %v, want %v", got, []string{w.a1, w.a3, w.a4})
			}
		})
	})
}

// TestRelatedFieldFiltersStayInTheOrganization: a related record of another
// organization never decides a match, even where a link crosses
// organizations (which the API never writes: forged here through storage);
// another organization's caller filtering by the same value finds its own.
func TestRelatedFieldFiltersStayInTheOrganization(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		w := seedPaths(t, a.store)
		other := principalOrg(t, a, "elsewhere-admin")
		users, _ := a.store.Table("users")
		accounts, _ := a.store.Table("accounts")
		ctx := context.Background()
		theirs, err := a.store.InsertMany(ctx, users, other, []storage.Row{{"username": "pathowner-zed", "email": "zed@elsewhere.example",
			"first_name": "Zed", "last_name": "Elsewhere", "enabled": true}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.store.InsertMany(ctx, accounts, other, []storage.Row{{"name": "Elsewhere", "owner_id": theirs[0]}}); err != nil {
			t.Fatal(err)
		}
		forged := seedRows(t, a.store, "accounts", storage.Row{"name": "Forged", "owner_id": theirs[0]})[0]

		r := a.do(http.MethodGet, "/admin/api/accounts?filter[owner.username][starts_with]=pathowner", jsonAPI, "").want(t, 200)
		if got := dataIDs(t, r); !slices.Equal(got, []string{w.a1, w.a2, w.a4}) {
			t.Errorf("organization 1 finds %v, want %v (not the account %s whose owner is another organization's)", got, []string{w.a1, w.a2, w.a4}, forged)
		}
		r = a.do(http.MethodGet, "/admin/api/accounts?filter[owner.username]=pathowner-zed", jsonAPI, "").want(t, 200)
		if got := dataIDs(t, r); len(got) != 0 {
			t.Errorf("organization 1 finds %v by another organization's user", got)
		}
		r = a.do(http.MethodGet, "/admin/api/accounts?filter[owner.username][neq]=pathowner-zed&sort=id", jsonAPI, "").want(t, 200)
		if got := dataIDs(t, r); !slices.Contains(got, forged) {
			t.Errorf("neq: %v lacks %s, whose owner this organization cannot see", got, forged)
		}
		r = a.caller("elsewhere-admin").do(http.MethodGet, "/admin/api/accounts?filter[owner.username]=pathowner-zed", jsonAPI, "").want(t, 200)
		if got := dataIDs(t, r); len(got) != 1 || slices.Contains(w.accounts, got[0]) || got[0] == forged {
			t.Errorf("the other organization finds %v, want its own account only", got)
		}
	})
}
