package server_test

import (
	"context"
	"net/http"
	"slices"
	"testing"

	"github.com/entityapi/entityapi/storage"
)

// GET /api/search (issue 32, part 1; docs/queries.md, "Search"): one search
// across the searchable types, most relevant first.

// searchResults lists each result of a search answer as "type/id", in order.
func searchResults(t *testing.T, r *result) []string {
	t.Helper()
	data, ok := r.value("data").([]any)
	if !ok {
		t.Fatalf("data is not a list\n%.400s", r.body)
	}
	out := make([]string, len(data))
	for i, d := range data {
		typ, _ := get(d, "relationships/entity/data/type").(string)
		id, _ := get(d, "relationships/entity/data/id").(string)
		if get(d, "id") != typ+"-"+id || get(d, "attributes/entity") != typ {
			t.Errorf("result %d names %v/%v but is %v of %v", i, typ, id, get(d, "id"), get(d, "attributes/entity"))
		}
		if _, ok := get(d, "meta/score").(float64); !ok {
			t.Errorf("result %d has no meta.score: %v", i, d)
		}
		out[i] = typ + "/" + id
	}
	return out
}

func TestSearchAcrossTypes(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		acc := seedRows(t, a.store, "accounts", storage.Row{"name": "Zorblax Industries"}, storage.Row{"name": "Zorblax Zorblax Zorblax"},
			storage.Row{"name": "Other Corporation"})
		contact := seedRows(t, a.store, "contacts", storage.Row{"first_name": "Ada", "last_name": "Zorblax"})[0]
		user := seedRows(t, a.store, "users", storage.Row{"username": "zorblax", "email": "z@users.example", "first_name": "Zed",
			"last_name": "User", "enabled": true})[0]
		unit := seedRows(t, a.store, "businessunits", storage.Row{"name": "Zorblax Unit"})[0]
		other := principalOrg(t, a, "elsewhere-admin")
		accounts, _ := a.store.Table("accounts")
		if _, err := a.store.InsertMany(context.Background(), accounts, other, []storage.Row{{"name": "Zorblax Elsewhere"}}); err != nil {
			t.Fatal(err)
		}
		all := []string{"accounts/" + acc[0], "accounts/" + acc[1], "businessunits/" + unit, "contacts/" + contact, "users/" + user}

		t.Run("every type, this organization's records only", func(t *testing.T) {
			r := a.do(http.MethodGet, "/admin/api/search?filter[searchText]=zorblax", jsonAPI, "").want(t, 200)
			got := searchResults(t, r)
			if !slices.Equal(slices.Sorted(slices.Values(got)), all) {
				t.Fatalf("results %v, want %v in some order", got, all)
			}
			if slices.Index(got, "accounts/"+acc[1]) > slices.Index(got, "accounts/"+acc[0]) {
				t.Errorf("results %v: the account naming zorblax three times is not before the one naming it once", got)
			}
			for i, d := range r.value("data").([]any) {
				if get(d, "attributes/entity") == "contacts" && get(d, "attributes/title") != "Ada Zorblax" {
					t.Errorf("result %d: the contact's title is %v, want Ada Zorblax", i, get(d, "attributes/title"))
				}
			}
		})
		t.Run("by type, then relevance", func(t *testing.T) {
			r := a.do(http.MethodGet, "/admin/api/search?filter[searchText]=zorblax&sort=entity", jsonAPI, "").want(t, 200)
			want := []string{"accounts/" + acc[1], "accounts/" + acc[0], "businessunits/" + unit, "contacts/" + contact, "users/" + user}
			if got := searchResults(t, r); !slices.Equal(got, want) {
				t.Errorf("results %v, want %v", got, want)
			}
		})
		t.Run("some types", func(t *testing.T) {
			r := a.do(http.MethodGet, "/admin/api/search?filter[searchText]=zorblax&filter[entities]=accounts,users&sort=entity", jsonAPI, "").want(t, 200)
			want := []string{"accounts/" + acc[1], "accounts/" + acc[0], "users/" + user}
			if got := searchResults(t, r); !slices.Equal(got, want) {
				t.Errorf("results %v, want %v", got, want)
			}
		})
		t.Run("only excluded words", func(t *testing.T) {
			r := a.do(http.MethodGet, "/admin/api/search?filter[searchText]=-zorblax&filter[entities]=accounts", jsonAPI, "").want(t, 200)
			if got := searchResults(t, r); !slices.Equal(got, []string{"accounts/" + acc[2]}) {
				t.Errorf("results %v, want the account without the word", got)
			}
		})
		t.Run("paged, with the total", func(t *testing.T) {
			r := a.do(http.MethodGet, "/admin/api/search?filter[searchText]=zorblax&sort=entity&page[size]=2&page[number]=2",
				map[string]string{"Accept": "application/vnd.api+json", "X-Include": "totalCount"}, "").want(t, 200)
			check{path: "header:X-Include-Total-Count", want: "5"}.verify(t, r)
			if got := searchResults(t, r); !slices.Equal(got, []string{"businessunits/" + unit, "contacts/" + contact}) {
				t.Errorf("page 2: %v", got)
			}
			if next, _ := r.value("links/next").(string); next == "" {
				t.Errorf("page 2 of 3 has no next link: %v", r.value("links"))
			}
		})
		t.Run("the records included", func(t *testing.T) {
			r := a.do(http.MethodGet, "/admin/api/search?filter[searchText]=zorblax&include=entity", jsonAPI, "").want(t, 200)
			var got []string
			for _, inc := range r.value("included").([]any) {
				got = append(got, get(inc, "type").(string)+"/"+get(inc, "id").(string))
			}
			if !slices.Equal(slices.Sorted(slices.Values(got)), all) {
				t.Errorf("included %v, want %v", got, all)
			}
		})
		t.Run("plain format", func(t *testing.T) {
			r := a.do(http.MethodGet, "/admin/api/search?filter[searchText]=zorblax&filter[entities]=contacts", map[string]string{"Accept": "application/json"}, "").want(t, 200)
			list, _ := r.value("").([]any)
			if len(list) != 1 || get(list[0], "entity") != "contacts" || get(list[0], "title") != "Ada Zorblax" {
				t.Errorf("plain answer %s", r.body)
			}
		})
		t.Run("another organization finds its own", func(t *testing.T) {
			r := a.caller("elsewhere-admin").do(http.MethodGet, "/admin/api/search?filter[searchText]=zorblax", jsonAPI, "").want(t, 200)
			if got := searchResults(t, r); len(got) != 1 || !slices.Contains([]string{"accounts"}, got[0][:8]) || slices.Contains(all, got[0]) {
				t.Errorf("results %v, want its own account only", got)
			}
		})
		runListCases(t, a, []listCase{
			{name: "a type that is not searchable", path: "/admin/api/search?filter[searchText]=x&filter[entities]=countries", status: 400,
				param: "filter[entities]"},
			{name: "a sort that is not the search's", path: "/admin/api/search?filter[searchText]=x&sort=name", status: 400, title: "sort constraint", param: "sort"},
			{name: "an include that is not entity", path: "/admin/api/search?filter[searchText]=x&include=owner", status: 400},
			{name: "no word", path: "/admin/api/search?filter[searchText]=%21%21", status: 400, param: "filter[searchText]"},
			{name: "no text", path: "/admin/api/search", status: 400},
		})
	})
}
