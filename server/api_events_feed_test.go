package server_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// TestEventsFeedFollowedByCursor: a consumer that starts with page[after]=
// and follows links.next reads every event once, in order, and picks up
// from its last link the events written after it reached the end.
func TestEventsFeedFollowedByCursor(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		for _, name := range []string{"One", "Two", "Three", "Four", "Five"} {
			a.createAccount(t, name)
		}
		(&feed{a: a}).next(t, 5) // numbered (PostgreSQL) before the walk starts
		var ids []string
		next := "/admin/api/events?page[size]=2&page[after]="
		follow := func() {
			for range 10 {
				r := a.do(http.MethodGet, next, jsonAPI, "").want(t, 200)
				page := dataIDs(t, r)
				if len(page) == 0 {
					return // the end: ask the same address again later
				}
				ids = append(ids, page...)
				link, _ := r.value("links/next").(string)
				if link == "" {
					t.Fatalf("a page of events without links/next: %s", r.body)
				}
				next = strings.TrimPrefix(link, a.base)
			}
		}
		follow()
		if len(ids) != 5 {
			t.Fatalf("the walk read %v, want 5 events", ids)
		}
		a.createAccount(t, "Six")
		(&feed{a: a, last: 0}).next(t, 6)
		follow()
		if len(ids) != 6 || len(slices.Compact(slices.Clone(ids))) != 6 || !slices.IsSortedFunc(ids, byNumber) {
			t.Fatalf("the follower read %v, want 6 events in order", ids)
		}
	})
}

func byNumber(a, b string) int {
	if len(a) != len(b) {
		return len(a) - len(b)
	}
	return strings.Compare(a, b)
}

// TestEventsFeedReaders: administrators and the integration role read the
// feed; other roles get 403; each organization sees its own events only.
// The integration role reads records like a viewer and changes nothing.
func TestEventsFeedReaders(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		id := a.createAccount(t, "Watched")
		(&feed{a: a}).next(t, 1)
		integration := a.caller("integration")
		r := integration.do(http.MethodGet, "/admin/api/events?filter[resourceType]=accounts", jsonAPI, "").want(t, 200)
		if got := r.value("data/0/attributes/resourceId"); got != id {
			t.Errorf("integration reads event of %v, want %s", got, id)
		}
		event := r.value("data/0/id").(string)
		integration.do(http.MethodGet, "/admin/api/events/"+event, jsonAPI, "").want(t, 200)
		integration.do(http.MethodGet, "/admin/api/accounts/"+id, jsonAPI, "").want(t, 200)
		integration.do(http.MethodGet, "/admin/api/users", jsonAPI, "").want(t, 200)
		for _, w := range []struct{ method, path, body string }{
			{http.MethodPost, "/admin/api/accounts", `{"data":{"type":"accounts","attributes":{"name":"No"}}}`},
			{http.MethodPatch, "/admin/api/accounts/" + id, `{"data":{"type":"accounts","id":"` + id + `","attributes":{"name":"No"}}}`},
			{http.MethodDelete, "/admin/api/accounts/" + id, ""},
			{http.MethodPatch, "/admin/api/accounts", batchAccounts(1, "No")},
		} {
			integration.do(w.method, w.path, jsonAPI, w.body).want(t, 403)
		}
		for _, who := range []string{"viewer", "manager"} {
			a.caller(who).do(http.MethodGet, "/admin/api/events", jsonAPI, "").want(t, 403)
		}
		r = a.caller("elsewhere-admin").do(http.MethodGet, "/admin/api/events", jsonAPI, "").want(t, 200)
		if list, _ := r.value("data").([]any); len(list) != 0 {
			t.Errorf("another organization reads %d events of Main", len(list))
		}
		a.caller("elsewhere-admin").do(http.MethodGet, "/admin/api/events/"+event, jsonAPI, "").want(t, 404)
	})
}

// TestEventsFeedFilters: by resource type, action and time; bad input is a
// 400 error document naming the parameter.
func TestEventsFeedFilters(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		id := a.createAccount(t, "Filtered")
		a.do(http.MethodPost, "/admin/api/contacts", jsonAPI,
			`{"data":{"type":"contacts","attributes":{"firstName":"F","lastName":"L"}}}`).want(t, 201)
		a.do(http.MethodDelete, "/admin/api/accounts/"+id, jsonAPI, "").want(t, 204)
		(&feed{a: a}).next(t, 3)
		count := func(query string) int {
			r := a.do(http.MethodGet, "/admin/api/events?"+query, jsonAPI, "").want(t, 200)
			list, _ := r.value("data").([]any)
			return len(list)
		}
		for query, want := range map[string]int{
			"filter[resourceType]=accounts":                          2,
			"filter[resourceType]=contacts,accounts":                 3,
			"filter[action]=deleted":                                 1,
			"filter[action][neq]=deleted":                            2,
			"filter[resourceType]=accounts&filter[action]=created":   1,
			"filter[occurredAt][gte]=2000-01-01T00:00:00Z":           3,
			"filter[occurredAt][lt]=2000-01-01T00:00:00Z":            0,
			"filter[resourceType]=accounts&filter[resourceId]=" + id: 2,
		} {
			if got := count(query); got != want {
				t.Errorf("%s: %d events, want %d", query, got, want)
			}
		}
		for query, param := range map[string]string{
			"filter[color]=red":            "filter[color]",
			"filter[occurredAt]=yesterday": "filter[occurredAt]",
			"page[after]=not-a-cursor":     "page[after]",
			"sort=color":                   "sort",
		} {
			r := a.do(http.MethodGet, "/admin/api/events?"+query, jsonAPI, "").want(t, 400)
			if got := r.value("errors/0/source/parameter"); got != param {
				t.Errorf("%s: error on %v, want %s", url.QueryEscape(query), got, param)
			}
		}
	})
}
