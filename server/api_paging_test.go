package server_test

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/storage"
)

// Paging (oro-behaviour §4, docs/decisions.md §5), its links (§13), and include and
// fields together (§5).

var withTotal = map[string]string{"Accept": "application/vnd.api+json", "X-Include": "totalCount"}

// pageCase is one page request: the slice of all records it must hold, and the
// links it must (or must not) have. A link is written as its query string
// ("" for the bare list address); absent links are listed in none.
type pageCase struct {
	name    string
	path    string
	headers map[string]string
	from    int // the page is all[from:to]
	to      int
	links   map[string]string // link name -> query string after "?", "" for none
	none    []string          // links that must be absent
	total   string            // X-Include-Total-Count, when given
}

func runPageCases(t *testing.T, a *api, self string, all []string, cases []pageCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sub := *a
			sub.t = t
			h := tc.headers
			if h == nil {
				h = jsonAPI
			}
			r := sub.do(http.MethodGet, tc.path, h, "").want(t, http.StatusOK)
			if got, want := dataIDs(t, r), all[tc.from:tc.to]; !slices.Equal(got, want) && (len(got) != 0 || len(want) != 0) {
				t.Errorf("ids %v, want %v", got, want)
			}
			if want := a.base + self; r.value("links/self") != want {
				t.Errorf("links/self = %v, want %s", r.value("links/self"), want)
			}
			for name, query := range tc.links {
				want := a.base + self
				if query != "" {
					want += "?" + query
				}
				if got := r.value("links/" + name); got != want {
					t.Errorf("links/%s = %v, want %s", name, got, want)
				}
			}
			for _, name := range tc.none {
				if got := r.value("links/" + name); got != nil {
					t.Errorf("links/%s = %v, want none", name, got)
				}
			}
			if got := r.header.Get("X-Include-Total-Count"); got != tc.total {
				t.Errorf("X-Include-Total-Count = %q, want %q", got, tc.total)
			}
		})
	}
}

// allIDs reads every identifier of a list with page[size]=-1 (no links but self).
func allIDs(t *testing.T, a *api, path string) []string {
	t.Helper()
	sep := "?"
	if strings.Contains(path, "?") {
		sep = "&"
	}
	r := a.do(http.MethodGet, path+sep+"page[size]=-1", jsonAPI, "").want(t, http.StatusOK)
	for _, name := range []string{"next", "prev", "first", "last"} {
		if v := r.value("links/" + name); v != nil {
			t.Errorf("page[size]=-1: links/%s = %v, want none", name, v)
		}
	}
	return dataIDs(t, r)
}

func TestPagingCountries(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		all := allIDs(t, a, "/admin/api/countries")
		if len(all) != 249 || !slices.IsSorted(all) || len(slices.Compact(slices.Clone(all))) != 249 {
			t.Fatalf("page[size]=-1: %d countries, want 249 distinct in ascending order", len(all))
		}
		const p = "/admin/api/countries?"
		runPageCases(t, a, "/admin/api/countries", all, []pageCase{
			{name: "first page by default", path: "/admin/api/countries", from: 0, to: 10,
				links: map[string]string{"next": "page%5Bnumber%5D=2"}, none: []string{"prev", "first", "last"}},
			{name: "first page named", path: p + "page[number]=1&page[size]=20", from: 0, to: 20,
				links: map[string]string{"next": "page%5Bnumber%5D=2&page%5Bsize%5D=20"}, none: []string{"prev", "first", "last"}},
			{name: "second page: prev without a number", path: p + "page[number]=2&page[size]=20", from: 20, to: 40,
				links: map[string]string{"first": "page%5Bsize%5D=20", "prev": "page%5Bsize%5D=20", "next": "page%5Bnumber%5D=3&page%5Bsize%5D=20"},
				none:  []string{"last"}},
			{name: "middle page", path: p + "page[size]=20&page[number]=7", from: 120, to: 140,
				links: map[string]string{"first": "page%5Bsize%5D=20", "prev": "page%5Bnumber%5D=6&page%5Bsize%5D=20",
					"next": "page%5Bnumber%5D=8&page%5Bsize%5D=20"}, none: []string{"last"}},
			{name: "middle page with the default size", path: p + "page[number]=5", from: 40, to: 50,
				links: map[string]string{"first": "", "prev": "page%5Bnumber%5D=4", "next": "page%5Bnumber%5D=6"}, none: []string{"last"}},
			{name: "last page", path: p + "page[number]=13&page[size]=20", from: 240, to: 249,
				links: map[string]string{"first": "page%5Bsize%5D=20", "prev": "page%5Bnumber%5D=12&page%5Bsize%5D=20"},
				none:  []string{"next", "last"}},
			{name: "last page, exactly full", path: p + "page[number]=3&page[size]=83", from: 166, to: 249,
				links: map[string]string{"prev": "page%5Bnumber%5D=2&page%5Bsize%5D=83"}, none: []string{"next", "last"}},
			{name: "page before an exactly full last one", path: p + "page[number]=2&page[size]=83", from: 83, to: 166,
				links: map[string]string{"next": "page%5Bnumber%5D=3&page%5Bsize%5D=83"}},
			{name: "last page with totalCount", path: p + "page[number]=13&page[size]=20", headers: withTotal, from: 240, to: 249,
				links: map[string]string{"last": "page%5Bnumber%5D=13&page%5Bsize%5D=20"}, none: []string{"next"}, total: "249"},
			{name: "first page with totalCount", path: p + "page[size]=20", headers: withTotal, from: 0, to: 20,
				links: map[string]string{"last": "page%5Bnumber%5D=13&page%5Bsize%5D=20", "next": "page%5Bnumber%5D=2&page%5Bsize%5D=20"},
				none:  []string{"prev", "first"}, total: "249"},
			{name: "one page holds all, with totalCount", path: p + "page[size]=1000", headers: withTotal, from: 0, to: 249,
				links: map[string]string{"last": "page%5Bsize%5D=1000"}, none: []string{"next", "prev", "first"}, total: "249"},
			{name: "beyond the end", path: p + "page[number]=14&page[size]=20", from: 0, to: 0,
				links: map[string]string{"first": "page%5Bsize%5D=20", "prev": "page%5Bnumber%5D=13&page%5Bsize%5D=20"},
				none:  []string{"next", "last"}},
			{name: "far beyond the end with totalCount", path: p + "page[number]=1000&page[size]=20", headers: withTotal, from: 0, to: 0,
				links: map[string]string{"prev": "page%5Bnumber%5D=999&page%5Bsize%5D=20", "last": "page%5Bnumber%5D=13&page%5Bsize%5D=20"},
				none:  []string{"next"}, total: "249"},
			{name: "size -1 ignores the number", path: p + "page[size]=-1&page[number]=3", from: 0, to: 249,
				none: []string{"next", "prev", "first", "last"}},
			{name: "size -1 with totalCount", path: p + "page[size]=-1", headers: withTotal, from: 0, to: 249,
				none: []string{"next", "prev", "first", "last"}, total: "249"},
			{name: "size 1", path: p + "page[size]=1&page[number]=249", from: 248, to: 249,
				links: map[string]string{"prev": "page%5Bnumber%5D=248&page%5Bsize%5D=1"}, none: []string{"next"}},
			{name: "size 1000", path: p + "page[size]=1000", from: 0, to: 249, none: []string{"next", "prev", "first", "last"}},
		})
		t.Run("noHateoas", func(t *testing.T) {
			r := a.do(http.MethodGet, p+"page[number]=2", map[string]string{"Accept": "application/vnd.api+json", "X-Include": "noHateoas;totalCount"}, "").want(t, 200)
			if r.value("links") != nil || r.header.Get("X-Include-Total-Count") != "249" {
				t.Errorf("links %v, total %q", r.value("links"), r.header.Get("X-Include-Total-Count"))
			}
			if got := dataIDs(t, r); !slices.Equal(got, all[10:20]) {
				t.Errorf("ids %v", got)
			}
		})
		t.Run("plain", func(t *testing.T) {
			r := a.do(http.MethodGet, p+"page[number]=3&page[size]=5", plain, "").want(t, 200)
			var got []string
			for _, c := range r.list {
				got = append(got, get(c, "id").(string))
			}
			if !slices.Equal(got, all[10:15]) {
				t.Errorf("plain page: %v, want %v", got, all[10:15])
			}
		})
	})
}

func TestPagingErrors(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		const p = "/admin/api/countries?"
		var cases []listCase
		for _, v := range []string{"0", "-2", "-1000", "1001", "100000", "abc", "1.5", "", "+5", " 5"} {
			cases = append(cases, listCase{name: "page[size]=" + v, path: p + "page[size]=" + url.QueryEscape(v), status: 400, param: "page[size]"})
		}
		for _, v := range []string{"0", "-1", "x", "2.0", "", "+2"} {
			cases = append(cases, listCase{name: "page[number]=" + v, path: p + "page[number]=" + url.QueryEscape(v), status: 400, param: "page[number]"})
		}
		cases = append(cases,
			listCase{name: "size 0 says why", path: p + "page[size]=0", status: 400, param: "page[size]",
				detail: "The value should be -1 (all records) or between 1 and 1000."},
			listCase{name: "a sign is no digit", path: p + "page[size]=%2B5", status: 400, param: "page[size]",
				detail: `Expected integer value. Given "+5".`},
			listCase{name: "on a resource of the organization", path: "/admin/api/accounts?page[size]=0", status: 400, param: "page[size]"},
			listCase{name: "on a relationship", path: "/admin/api/countries/US/relationships/regions?page[number]=0", status: 400, param: "page[number]"},
			listCase{name: "on a subresource", path: "/admin/api/countries/US/regions?page[size]=1001", status: 400, param: "page[size]"},
		)
		runListCases(t, a, cases)
	})
}

// TestPagingSmallSets pages a handful of seeded accounts, follows next links
// through a filtered and sorted list, and caps page[size]=-1 at 10,000 records.
func TestPagingSmallSets(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		const self = "/admin/api/accounts"
		runPageCases(t, a, self, nil, []pageCase{
			{name: "no records", path: self, headers: withTotal, links: map[string]string{"last": ""},
				none: []string{"next", "prev", "first"}, total: "0"},
			{name: "no records, page 2", path: self + "?page[number]=2", links: map[string]string{"prev": "", "first": ""}, none: []string{"next"}},
		})
		rows := make([]storage.Row, 6)
		for i := range rows {
			rows[i] = storage.Row{"name": "Small " + strconv.Itoa(i+1), "external_id": "S-" + strconv.Itoa(i+1)}
		}
		acc := seedRows(t, a.store, "accounts", rows...)
		runPageCases(t, a, self, acc, []pageCase{
			{name: "five of six", path: self + "?page[size]=5", from: 0, to: 5,
				links: map[string]string{"next": "page%5Bnumber%5D=2&page%5Bsize%5D=5"}, none: []string{"prev", "first"}},
			{name: "the sixth", path: self + "?page[size]=5&page[number]=2", from: 5, to: 6,
				links: map[string]string{"prev": "page%5Bsize%5D=5", "first": "page%5Bsize%5D=5"}, none: []string{"next"}},
			{name: "six of six", path: self + "?page[size]=6", headers: withTotal, from: 0, to: 6,
				links: map[string]string{"last": "page%5Bsize%5D=6"}, none: []string{"next", "prev", "first"}, total: "6"},
		})
		runPageCases(t, a, self, nth(acc, 2, 4, 6), []pageCase{
			{name: "filtered: one page", path: self + "?filter[externalId]=S-2,S-4,S-6&page[size]=3", headers: withTotal, from: 0, to: 3,
				links: map[string]string{"last": "filter%5BexternalId%5D=S-2%2CS-4%2CS-6&page%5Bsize%5D=3"}, none: []string{"next", "prev"}, total: "3"},
			{name: "filtered: second page", path: self + "?filter[externalId]=S-2,S-4,S-6&page[size]=2&page[number]=2", headers: withTotal, from: 2, to: 3,
				links: map[string]string{"prev": "filter%5BexternalId%5D=S-2%2CS-4%2CS-6&page%5Bsize%5D=2",
					"last": "filter%5BexternalId%5D=S-2%2CS-4%2CS-6&page%5Bnumber%5D=2&page%5Bsize%5D=2"},
				none: []string{"next"}, total: "3"},
		})

		// The links keep every other parameter, sorted and percent-encoded,
		// and following next visits every record once.
		t.Run("links keep the other parameters", func(t *testing.T) {
			path := self + "?sort=-name&filter[name][starts_with]=Small&filter[externalId][neq]=none,S-9&fields[accounts]=name,externalId&page[size]=2"
			r := a.do(http.MethodGet, path, jsonAPI, "").want(t, 200)
			want := a.base + self + "?fields%5Baccounts%5D=name%2CexternalId&filter%5BexternalId%5D%5Bneq%5D=none%2CS-9" +
				"&filter%5Bname%5D%5Bstarts_with%5D=Small&page%5Bnumber%5D=2&page%5Bsize%5D=2&sort=-name"
			if got := r.value("links/next"); got != want {
				t.Fatalf("links/next = %v\nwant          %s", got, want)
			}
			var seen []string
			for page := 1; ; page++ {
				seen = append(seen, dataIDs(t, r)...)
				if r.value("data/0/attributes/createdAt") != nil {
					t.Errorf("page %d: fields were not kept", page)
				}
				next, _ := r.value("links/next").(string)
				if next == "" {
					break
				}
				if page > 3 {
					t.Fatalf("more than 3 pages of 6 records: %s", next)
				}
				r = a.do(http.MethodGet, strings.TrimPrefix(next, a.base), jsonAPI, "").want(t, 200)
				if prev, _ := r.value("links/prev").(string); !strings.Contains(prev, "sort=-name") || !strings.Contains(prev, "filter%5Bname%5D%5Bstarts_with%5D=Small") {
					t.Errorf("page %d: prev %s lost parameters", page+1, prev)
				}
			}
			if want := []string{acc[5], acc[4], acc[3], acc[2], acc[1], acc[0]}; !slices.Equal(seen, want) {
				t.Errorf("following next: %v, want %v", seen, want)
			}
		})
		t.Run("values that need encoding survive in links", func(t *testing.T) {
			a.created(t, self, `{"data":{"type":"accounts","attributes":{"name":"A&B = C+D 100%"}}}`)
			a.created(t, self, `{"data":{"type":"accounts","attributes":{"name":"A&B = C+D 100% bis"}}}`)
			path := self + "?filter[name][starts_with]=" + url.QueryEscape("A&B = C+D 100%") + "&page[size]=1"
			r := a.do(http.MethodGet, path, jsonAPI, "").want(t, 200)
			next, _ := r.value("links/next").(string)
			if !strings.Contains(next, "filter%5Bname%5D%5Bstarts_with%5D=A%26B+%3D+C%2BD+100%25&") {
				t.Fatalf("links/next = %s", next)
			}
			first := dataIDs(t, r)
			r = a.do(http.MethodGet, strings.TrimPrefix(next, a.base), jsonAPI, "").want(t, 200)
			if second := dataIDs(t, r); len(first) != 1 || len(second) != 1 || first[0] == second[0] {
				t.Errorf("pages %v then %v, want one different record each", first, second)
			}
		})

		// page[size]=-1 answers at most 10,000 records.
		tbl, _ := a.store.Table("accounts")
		bulk := make([]storage.Row, 10000-len(acc)-2)
		for i := range bulk {
			bulk[i] = storage.Row{"name": "Bulk"}
		}
		if _, err := a.store.InsertMany(context.Background(), tbl, 1, bulk); err != nil {
			t.Fatal(err)
		}
		lean := map[string]string{"Accept": "application/vnd.api+json", "X-Include": "noHateoas;totalCount"}
		r := a.do(http.MethodGet, self+"?page[size]=-1&fields[accounts]=name", lean, "").want(t, 200)
		if n := len(r.value("data").([]any)); n != 10000 || r.header.Get("X-Include-Total-Count") != "10000" {
			t.Errorf("10,000 records: got %d, total %q", n, r.header.Get("X-Include-Total-Count"))
		}
		last, err := a.store.Insert(context.Background(), tbl, 1, storage.Row{"name": "One too many"})
		if err != nil {
			t.Fatal(err)
		}
		runListCases(t, a, []listCase{
			{name: "10,001 records", path: self + "?page[size]=-1&fields[accounts]=name", status: 400, param: "page[size]",
				headers: lean},
			{name: "10,001 records but a filter", path: self + "?page[size]=-1&filter[name]=One%20too%20many", want: []string{strconv.FormatInt(last.(int64), 10)}},
		})
	})
}

// includedSet lists the included resources as "type:id", in order.
func includedSet(r *result) []string {
	inc, _ := r.value("included").([]any)
	out := make([]string, len(inc))
	for i, x := range inc {
		out[i] = get(x, "type").(string) + ":" + get(x, "id").(string)
	}
	return out
}

// checkIncluded fails unless included holds exactly want (in any order), each
// once, and nothing that is primary data.
func checkIncluded(t *testing.T, r *result, primaryType string, want ...string) {
	t.Helper()
	got := includedSet(r)
	sorted := slices.Clone(got)
	slices.Sort(sorted)
	if len(slices.Compact(slices.Clone(sorted))) != len(got) {
		t.Errorf("included has duplicates: %v", got)
	}
	for _, id := range dataIDs(t, r) {
		if slices.Contains(got, primaryType+":"+id) {
			t.Errorf("included repeats primary %s:%s", primaryType, id)
		}
	}
	want = slices.Clone(want)
	slices.Sort(want)
	if !slices.Equal(sorted, want) {
		t.Errorf("included %v, want %v\n%.600s", got, want, r.body)
	}
}

// members lists the member names of an object at path, sorted.
func members(r *result, path string) []string {
	m, _ := r.value(path).(map[string]any)
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestIncludeAndFields(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		bu := seedRows(t, a.store, "businessunits", storage.Row{"name": "Top"})
		bu = append(bu, seedRows(t, a.store, "businessunits",
			storage.Row{"name": "Middle", "owner_id": num(bu[0])})...)
		bu = append(bu, seedRows(t, a.store, "businessunits",
			storage.Row{"name": "Bottom", "owner_id": num(bu[1])})...)
		u := seedRows(t, a.store, "users",
			storage.Row{"username": "inc1", "email": "inc1@example.com", "first_name": "I", "last_name": "One", "enabled": true, "owner_id": num(bu[1])},
			storage.Row{"username": "inc2", "email": "inc2@example.com", "first_name": "I", "last_name": "Two", "enabled": true, "owner_id": num(bu[1])},
			storage.Row{"username": "inc3", "email": "inc3@example.com", "first_name": "I", "last_name": "Three", "enabled": true, "owner_id": num(bu[0])},
		)
		c := seedRows(t, a.store, "contacts",
			storage.Row{"last_name": "C1", "owner_id": num(u[0])},
			storage.Row{"last_name": "C2", "owner_id": num(u[0])},
			storage.Row{"last_name": "C3", "owner_id": num(u[1])},
			storage.Row{"last_name": "C4", "owner_id": num(u[2])},
			storage.Row{"last_name": "C5"},
		)
		acc := seedRows(t, a.store, "accounts", storage.Row{"name": "Referrer", "owner_id": num(u[2])})
		acc = append(acc, seedRows(t, a.store, "accounts",
			storage.Row{"name": "Referred 1", "referred_by_id": num(acc[0])},
			storage.Row{"name": "Referred 2", "referred_by_id": num(acc[0])})...)
		seedLinks(t, a.store, "account_contacts",
			[2]string{acc[0], c[0]}, [2]string{acc[0], c[1]}, [2]string{acc[1], c[1]}, [2]string{acc[2], c[0]}, [2]string{acc[2], c[2]})

		t.Run("fields of the primary and the included type", func(t *testing.T) {
			r := a.do(http.MethodGet, "/admin/api/regions?filter[id]=US-NY&include=country&fields[regions]=name,country&fields[countries]=iso3Code", jsonAPI, "").want(t, 200)
			if got := members(r, "data/0/attributes"); !slices.Equal(got, []string{"name"}) {
				t.Errorf("primary attributes %v", got)
			}
			if got := members(r, "data/0/relationships"); !slices.Equal(got, []string{"country"}) {
				t.Errorf("primary relationships %v", got)
			}
			checkIncluded(t, r, "regions", "countries:US")
			if got := members(r, "included/0/attributes"); !slices.Equal(got, []string{"iso3Code"}) {
				t.Errorf("included attributes %v", got)
			}
			if r.value("included/0/relationships") != nil {
				t.Errorf("included relationships %v, want none", r.value("included/0/relationships"))
			}
		})
		t.Run("fields of the included type only", func(t *testing.T) {
			r := a.do(http.MethodGet, "/admin/api/contacts?include=owner&fields[users]=username&filter[id]="+c[0]+","+c[3], jsonAPI, "").want(t, 200)
			checkIncluded(t, r, "contacts", "users:"+u[0], "users:"+u[2])
			if got := members(r, "included/0/attributes"); !slices.Equal(got, []string{"username"}) {
				t.Errorf("included attributes %v", got)
			}
			if r.value("data/0/attributes/lastName") != "C1" || r.value("data/0/relationships/owner/data/id") != u[0] {
				t.Errorf("primary data lost fields: %.300s", r.body)
			}
		})
		t.Run("nested include owner.owner", func(t *testing.T) {
			r := a.do(http.MethodGet, "/admin/api/contacts?include=owner.owner", jsonAPI, "").want(t, 200)
			checkIncluded(t, r, "contacts", "users:"+u[0], "users:"+u[1], "users:"+u[2], "businessunits:"+bu[0], "businessunits:"+bu[1])
			for i, x := range r.value("included").([]any) {
				if get(x, "type") == "users" && get(x, "relationships/owner/data/id") == nil {
					t.Errorf("included/%d: a user without its owner linkage", i)
				}
			}
		})
		t.Run("nested include of the primary type", func(t *testing.T) {
			r := a.do(http.MethodGet, "/admin/api/businessunits?include=owner.owner", jsonAPI, "").want(t, 200)
			checkIncluded(t, r, "businessunits")
			r = a.do(http.MethodGet, "/admin/api/businessunits?include=owner.owner&filter[id]="+bu[2], jsonAPI, "").want(t, 200)
			checkIncluded(t, r, "businessunits", "businessunits:"+bu[0], "businessunits:"+bu[1])
		})
		t.Run("included through a to-many relationship, once each", func(t *testing.T) {
			r := a.do(http.MethodGet, "/admin/api/accounts?include=contacts", jsonAPI, "").want(t, 200)
			checkIncluded(t, r, "accounts", "contacts:"+c[0], "contacts:"+c[1], "contacts:"+c[2])
			r = a.do(http.MethodGet, "/admin/api/accounts?include=contacts.owner,owner", jsonAPI, "").want(t, 200)
			checkIncluded(t, r, "accounts", "contacts:"+c[0], "contacts:"+c[1], "contacts:"+c[2], "users:"+u[0], "users:"+u[1], "users:"+u[2])
		})
		t.Run("a self relationship never repeats primary data", func(t *testing.T) {
			r := a.do(http.MethodGet, "/admin/api/accounts?include=referredBy", jsonAPI, "").want(t, 200)
			checkIncluded(t, r, "accounts")
			r = a.do(http.MethodGet, "/admin/api/accounts?include=referredBy&filter[id]="+acc[1]+","+acc[2], jsonAPI, "").want(t, 200)
			checkIncluded(t, r, "accounts", "accounts:"+acc[0])
		})
		t.Run("country.regions never repeats primary regions", func(t *testing.T) {
			r := a.do(http.MethodGet, "/admin/api/regions?filter[country]=KI&include=country.regions&page[size]=2", jsonAPI, "").want(t, 200)
			if got := dataIDs(t, r); !slices.Equal(got, []string{"KI-G", "KI-L"}) {
				t.Fatalf("ids %v", got)
			}
			checkIncluded(t, r, "regions", "countries:KI", "regions:KI-P")
			r = a.do(http.MethodGet, "/admin/api/regions?filter[country]=KI,WF&include=country.regions,country&page[size]=100", jsonAPI, "").want(t, 200)
			checkIncluded(t, r, "regions", "countries:KI", "countries:WF")
		})
		t.Run("included follows the page", func(t *testing.T) {
			r := a.do(http.MethodGet, "/admin/api/regions?filter[country]=KI,WF&include=country&page[size]=3&page[number]=2", jsonAPI, "").want(t, 200)
			if got := dataIDs(t, r); !slices.Equal(got, []string{"WF-AL", "WF-SG", "WF-UV"}) {
				t.Fatalf("ids %v", got)
			}
			checkIncluded(t, r, "regions", "countries:WF")
			r = a.do(http.MethodGet, "/admin/api/regions?filter[country]=KI&include=country&page[number]=2", jsonAPI, "").want(t, 200)
			checkIncluded(t, r, "regions")
		})
		t.Run("include on one record", func(t *testing.T) {
			r := a.do(http.MethodGet, "/admin/api/users/"+u[0]+"?include=owner.owner,userRoles&fields[businessunits]=name", jsonAPI, "").want(t, 200)
			got := includedSet(r)
			slices.Sort(got)
			if want := []string{"businessunits:" + bu[0], "businessunits:" + bu[1]}; !slices.Equal(got, want) {
				t.Errorf("included %v, want %v", got, want)
			}
		})
		runListCases(t, a, []listCase{
			{name: "include with an empty path", path: "/admin/api/contacts?include=owner,", status: 400, param: "include",
				detail: `Expected an array of not empty strings. Given "owner,".`},
			{name: "include of an unknown relationship", path: "/admin/api/contacts?include=manager", status: 400, param: "include"},
			{name: "include of an unknown nested relationship", path: "/admin/api/contacts?include=owner.manager", status: 400, param: "include"},
			{name: "include through an attribute", path: "/admin/api/contacts?include=lastName", status: 400, param: "include"},
			{name: "fields of an unknown type", path: "/admin/api/contacts?fields[nothing]=name", status: 400, param: "fields[nothing]",
				detail: "An entity type is not known."},
			{name: "fields with an empty item", path: "/admin/api/contacts?fields[contacts]=,lastName", status: 400, param: "fields[contacts]",
				detail: `Expected an array of not empty strings. Given ",lastName".`},
			{name: "fields of an unknown field", path: "/admin/api/contacts?fields[contacts]=lastName,shoeSize", status: 400, param: "fields[contacts]"},
		})
	})
}
