package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	bo "github.com/entityapi/entityapi/gen/sdk/go/backoffice"
	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// aggregations is the query string of filter[aggregations] with value v.
func aggregations(v string) string { return "filter%5Baggregations%5D=" + url.QueryEscape(v) }

// insertUsers adds users to an organization straight through storage: the
// login figures aggregated here are read-only over the API.
func insertUsers(t *testing.T, s *storage.Store, org int64, rows []storage.Row) {
	t.Helper()
	users, _ := s.Table("users")
	for i, r := range rows {
		name := fmt.Sprintf("agg-%d-%02d", org, i)
		r["username"], r["email"], r["first_name"], r["last_name"] = name, name+"@test.example", "Agg", name
	}
	if _, err := s.InsertMany(context.Background(), users, org, rows); err != nil {
		t.Fatal(err)
	}
}

// usersOf lists every user a query matches through the API, as the
// expectations are computed from the records the list itself shows.
func usersOf(t *testing.T, a *api, filter string) []map[string]any {
	t.Helper()
	r := a.do(http.MethodGet, "/admin/api/users?page%5Bsize%5D=-1&"+filter, jsonAPI, "").want(t, 200)
	var out []map[string]any
	for _, d := range r.value("data").([]any) {
		out = append(out, d.(map[string]any)["attributes"].(map[string]any))
	}
	return out
}

// expectedUserFigures computes in Go what filter[aggregations] answers for
// the users given: every function of every aggregatable user field.
func expectedUserFigures(users []map[string]any) map[string]any {
	var (
		sum                float64
		minN, maxN         any
		minLogin, maxLogin any
		enabled            = map[bool]int{}
	)
	for _, u := range users {
		n := u["loginCount"].(float64)
		sum += n
		if minN == nil || n < minN.(float64) {
			minN = n
		}
		if maxN == nil || n > maxN.(float64) {
			maxN = n
		}
		if l, ok := u["lastLogin"].(string); ok {
			if minLogin == nil || l < minLogin.(string) {
				minLogin = l
			}
			if maxLogin == nil || l > maxLogin.(string) {
				maxLogin = l
			}
		}
		enabled[u["enabled"].(bool)]++
	}
	var sumV, avg any
	if len(users) > 0 {
		sumV, avg = sum, sum/float64(len(users))
	}
	counts := []any{}
	for _, v := range []bool{false, true} { // false sorts first on a tie
		if enabled[v] > 0 {
			counts = append(counts, map[string]any{"value": v, "count": float64(enabled[v])})
		}
	}
	sort.SliceStable(counts, func(i, j int) bool {
		return counts[i].(map[string]any)["count"].(float64) > counts[j].(map[string]any)["count"].(float64)
	})
	return map[string]any{
		"loginCountSum": sumV, "loginCountAvg": avg, "loginCountMin": minN, "loginCountMax": maxN,
		"lastLoginMin": minLogin, "lastLoginMax": maxLogin, "enabledCount": counts,
	}
}

const everyUserFigure = "loginCount sum,loginCount avg,loginCount min,loginCount max,lastLogin min,lastLogin max,enabled count"

func TestAggregationsOverTheFilteredSet(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		base := time.Date(2026, 3, 1, 8, 0, 0, 0, time.UTC)
		var rows []storage.Row
		for i := range 25 {
			r := storage.Row{"login_count": int64(i * 7 % 11), "enabled": i%3 != 0}
			if i%4 != 0 {
				r["last_login"] = base.Add(time.Duration(i*37%25) * time.Hour)
			}
			rows = append(rows, r)
		}
		insertUsers(t, a.store, 1, rows)
		// Another organization's users, whose figures would show in any sum.
		insertUsers(t, a.store, principalOrg(t, a, "elsewhere-admin"), []storage.Row{
			{"login_count": int64(1000), "enabled": false, "last_login": base.AddDate(1, 0, 0)},
			{"login_count": int64(2000), "enabled": false},
		})
		for _, filter := range []string{
			"",
			"filter%5Busername%5D%5Bstarts_with%5D=agg-1-1",
			"filter%5Benabled%5D=false",
		} {
			t.Run("filter "+filter, func(t *testing.T) {
				all := usersOf(t, a, filter)
				if len(all) < 3 {
					t.Fatalf("the filter %q matches %d users; the test wants a few more than a page", filter, len(all))
				}
				want := expectedUserFigures(all)
				// A page of two: the figures are still those of every match.
				r := a.do(http.MethodGet, "/admin/api/users?page%5Bsize%5D=2&"+filter+"&"+aggregations(everyUserFigure), jsonAPI, "").want(t, 200)
				if n := len(r.value("data").([]any)); n != 2 {
					t.Fatalf("page of %d, want 2", n)
				}
				got := r.value("meta/aggregatedData").(map[string]any)
				if !reflect.DeepEqual(got, want) {
					t.Errorf("aggregatedData\n got %v\nwant %v", got, want)
				}
			})
		}
		t.Run("the other organization sees its own", func(t *testing.T) {
			other := a.caller("elsewhere-admin")
			want := expectedUserFigures(usersOf(t, other, ""))
			r := other.do(http.MethodGet, "/admin/api/users?"+aggregations(everyUserFigure), jsonAPI, "").want(t, 200)
			got := r.value("meta/aggregatedData").(map[string]any)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("aggregatedData\n got %v\nwant %v", got, want)
			}
			if got["loginCountSum"] != float64(3000) {
				t.Errorf("the other organization's sum is %v, want 3000 (its two users and its admin)", got["loginCountSum"])
			}
		})
		runCases(t, a, []apiCase{
			{name: "an alias names the answer", path: "/admin/api/users?filter%5Benabled%5D=false&" + aggregations("loginCount max most , enabled count"), status: 200, checks: []check{
				{path: "meta/aggregatedData/most", want: float64(10)}, {path: "meta/aggregatedData/enabledCount/0/value", want: false},
			}},
			{name: "without the parameter no meta", path: "/admin/api/users", status: 200, checks: []check{{path: "meta", absent: true}}},
			{name: "a subresource list", path: "/admin/api/organizations/1/users?" + aggregations("enabled count"), status: 200},
		})
		// Over no record: null members and an empty list, present, not left out.
		r := a.do(http.MethodGet, "/admin/api/users?filter%5Busername%5D=nobody&"+aggregations(everyUserFigure+",loginCount sum total"), jsonAPI, "").want(t, 200)
		got := r.value("meta/aggregatedData").(map[string]any)
		for _, k := range []string{"loginCountSum", "loginCountAvg", "loginCountMin", "loginCountMax", "lastLoginMin", "lastLoginMax", "total"} {
			if v, ok := got[k]; !ok || v != nil {
				t.Errorf("%s over no record = %v (present %v), want null", k, v, ok)
			}
		}
		if v, ok := got["enabledCount"].([]any); !ok || len(v) != 0 {
			t.Errorf("enabledCount over no record = %v, want []", got["enabledCount"])
		}
	})
}

// principalOrg is the organization of a test principal, read from the list
// of organizations it sees (its own only).
func principalOrg(t *testing.T, a *api, name string) int64 {
	t.Helper()
	r := a.caller(name).do(http.MethodGet, "/admin/api/organizations", jsonAPI, "").want(t, 200)
	var id int64
	fmt.Sscan(r.value("data/0/id").(string), &id)
	return id
}

func TestAggregationCountsOrderAndCap(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			a := newAPIWith(t, storagetest.Open(t, dialect), func(c *server.Config) { c.MaxAggregationValues = 3 })
			accounts, _ := a.store.Table("accounts")
			var rows []storage.Row
			for name, n := range map[string]int{"Kilo": 2, "Delta": 3, "Bravo": 3, "Echo": 5, "Alpha": 1, "Zulu": 3} {
				for range n {
					rows = append(rows, storage.Row{"name": name})
				}
			}
			if _, err := a.store.InsertMany(context.Background(), accounts, 1, rows); err != nil {
				t.Fatal(err)
			}
			r := a.do(http.MethodGet, "/admin/api/accounts?page%5Bsize%5D=1&"+aggregations("name count,name min first,name max"), jsonAPI, "").want(t, 200)
			got := r.value("meta/aggregatedData")
			want := map[string]any{
				// The most frequent first, ties by value, three at most.
				"nameCount": []any{
					map[string]any{"value": "Echo", "count": float64(5)},
					map[string]any{"value": "Bravo", "count": float64(3)},
					map[string]any{"value": "Delta", "count": float64(3)},
				},
				"first": "Alpha", "nameMax": "Zulu",
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("aggregatedData\n got %v\nwant %v", got, want)
			}
			r = a.do(http.MethodGet, "/admin/api/accounts?filter%5Bname%5D=Kilo,Alpha&"+aggregations("name count"), jsonAPI, "").want(t, 200)
			want = map[string]any{"nameCount": []any{
				map[string]any{"value": "Kilo", "count": float64(2)},
				map[string]any{"value": "Alpha", "count": float64(1)},
			}}
			if got := r.value("meta/aggregatedData"); !reflect.DeepEqual(got, want) {
				t.Errorf("filtered aggregatedData\n got %v\nwant %v", got, want)
			}
		})
	}
}

func TestAggregationsOfDatesAndStorefront(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		for _, body := range []string{
			`{"data":{"type":"contacts","attributes":{"firstName":"A","lastName":"Agg","gender":"female","birthday":"1990-05-17"}}}`,
			`{"data":{"type":"contacts","attributes":{"firstName":"B","lastName":"Agg","gender":"male","birthday":"1985-12-01"}}}`,
			`{"data":{"type":"contacts","attributes":{"firstName":"C","lastName":"Agg","gender":"female"}}}`,
		} {
			a.do(http.MethodPost, "/admin/api/contacts", jsonAPI, body).want(t, 201)
		}
		sf := a.caller("storefront")
		runCases(t, a, []apiCase{
			{name: "dates as dates", path: "/admin/api/contacts?filter%5BlastName%5D=Agg&" + aggregations("birthday min,birthday max,gender count"), status: 200, checks: []check{
				{path: "meta/aggregatedData/birthdayMin", want: "1985-12-01"}, {path: "meta/aggregatedData/birthdayMax", want: "1990-05-17"},
				{path: "meta/aggregatedData/genderCount/0/value", want: "female"}, {path: "meta/aggregatedData/genderCount/0/count", want: float64(2)},
				{path: "meta/aggregatedData/genderCount/1/value", want: "male"}, {path: "meta/aggregatedData/genderCount/2", absent: true},
			}},
		})
		runCases(t, sf, []apiCase{
			{name: "storefront localizations", path: "/api/localizations?filter%5BlanguageCode%5D=de,fr&" + aggregations("languageCode count,languageCode max"), status: 200, checks: []check{
				{path: "meta/aggregatedData/languageCodeCount/0/value", want: "de"}, {path: "meta/aggregatedData/languageCodeCount/1/value", want: "fr"},
				{path: "meta/aggregatedData/languageCodeCount/1/count", want: float64(1)}, {path: "meta/aggregatedData/languageCodeMax", want: "fr"},
			}},
			{name: "storefront currencies: only the enabled ones", path: "/api/currencies?" + aggregations("symbol count"), status: 200, checks: []check{
				{path: "meta/aggregatedData/symbolCount/2/count", want: float64(1)}, {path: "meta/aggregatedData/symbolCount/3", absent: true},
			}},
		})
	})
}

func TestAggregationErrors(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		eleven := strings.TrimSuffix(strings.Repeat("loginCount sum,", 11), ",")
		for _, tc := range []struct {
			name, method, path string
			headers            map[string]string
			detail             string // a part of the error's detail
		}{
			{name: "unknown field", path: "/admin/api/users?" + aggregations("shoeSize sum"), detail: `"shoeSize" cannot be aggregated`},
			{name: "a field without x-aggregate", path: "/admin/api/users?" + aggregations("username count"), detail: `"username" cannot be aggregated`},
			{name: "a function the field does not take", path: "/admin/api/users?" + aggregations("enabled sum"), detail: `"sum" is not supported for the field "enabled"`},
			{name: "an unknown function", path: "/admin/api/users?" + aggregations("loginCount median"), detail: `"median"`},
			{name: "a field alone", path: "/admin/api/users?" + aggregations("loginCount"), detail: "field function"},
			{name: "four words", path: "/admin/api/users?" + aggregations("loginCount sum a b"), detail: "field function"},
			{name: "an empty term", path: "/admin/api/users?" + aggregations("loginCount sum,"), detail: "field function"},
			{name: "empty", path: "/admin/api/users?" + aggregations(""), detail: "field function"},
			{name: "a bad alias", path: "/admin/api/users?" + aggregations("loginCount sum 9lives"), detail: "alias"},
			{name: "the same term twice", path: "/admin/api/users?" + aggregations("loginCount sum,loginCount sum"), detail: `"loginCountSum" is asked twice`},
			{name: "an alias taking another's name", path: "/admin/api/users?" + aggregations("loginCount min enabledCount,enabled count"), detail: `"enabledCount" is asked twice`},
			{name: "too many terms", path: "/admin/api/users?" + aggregations(eleven), detail: "At most 10"},
			{name: "too long", path: "/admin/api/users?" + aggregations("loginCount sum "+strings.Repeat("a", 1000)), detail: "too long"},
			{name: "given twice", path: "/admin/api/users?" + aggregations("loginCount sum") + "&" + aggregations("enabled count"), detail: "given once"},
			{name: "the plain format", path: "/admin/api/users?" + aggregations("loginCount sum"), headers: plain, detail: "plain format"},
			{name: "a resource without aggregations", path: "/admin/api/businessunits?" + aggregations("name count"), detail: "no fields to aggregate"},
			{name: "a delete by filter", method: http.MethodDelete, path: "/admin/api/accounts?filter%5Bname%5D=x&" + aggregations("name count"), detail: "not by deletes"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				method, h := tc.method, tc.headers
				if method == "" {
					method = http.MethodGet
				}
				if h == nil {
					h = jsonAPI
				}
				r := a.do(method, tc.path, h, "").want(t, 400)
				title, param, detail := r.value("errors/0/title"), r.value("errors/0/source/parameter"), r.value("errors/0/detail")
				if h["Accept"] == "application/json" {
					title, param, detail = r.value("0/title"), r.value("0/source"), r.value("0/detail")
				}
				if title != "filter constraint" || param != "filter[aggregations]" {
					t.Errorf("title %v, parameter %v, want filter constraint on filter[aggregations]\n%s", title, param, r.body)
				}
				if d, _ := detail.(string); !strings.Contains(d, tc.detail) {
					t.Errorf("detail %q, want it to say %q", d, tc.detail)
				}
			})
		}
		// Nothing was deleted by the refused delete.
		a.do(http.MethodPost, "/admin/api/accounts", jsonAPI, `{"data":{"type":"accounts","attributes":{"name":"x"}}}`).want(t, 201)
		a.do(http.MethodDelete, "/admin/api/accounts?filter%5Bname%5D=x&"+aggregations("name count"), jsonAPI, "").want(t, 400)
		if r := a.do(http.MethodGet, "/admin/api/accounts?filter%5Bname%5D=x", jsonAPI, "").want(t, 200); r.value("data/0") == nil {
			t.Error("the refused delete removed the account")
		}
	})
}

// TestSDKAggregations reads meta.aggregatedData with the generated Go client:
// the parameter is a field of the list's parameters and each figure decodes
// as the union the document describes.
func TestSDKAggregations(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		ctx := context.Background()
		c := sdkBackoffice(t, a, "admin")
		for _, name := range []string{"Initech", "Initech", "Umbrella"} {
			a.do(http.MethodPost, "/admin/api/accounts", jsonAPI, `{"data":{"type":"accounts","attributes":{"name":"`+name+`"}}}`).want(t, 201)
		}
		res, err := c.ListAccountsWithResponse(ctx, &bo.ListAccountsParams{FilterAggregations: ptr("name count,name max last")})
		sdkOK(t, err)
		doc := res.ApplicationvndApiJSON200
		if doc == nil || doc.Meta == nil || doc.Meta.AggregatedData == nil {
			t.Fatalf("listAccounts: status %d, no meta.aggregatedData\n%s", res.StatusCode(), res.Body)
		}
		figures := *doc.Meta.AggregatedData
		counts, err := figures["nameCount"].AsAggregatedValue2()
		if err != nil || len(counts) != 2 || counts[0].Count != 2 {
			t.Fatalf("nameCount = %v (%v)\n%s", counts, err, res.Body)
		}
		if v, err := counts[0].Value.AsAggregatedCountValue0(); err != nil || v != "Initech" {
			t.Errorf("nameCount[0].value = %q (%v), want Initech", v, err)
		}
		if last, err := figures["last"].AsAggregatedValue1(); err != nil || last != "Umbrella" {
			t.Errorf("last = %q (%v), want Umbrella", last, err)
		}
	})
}
