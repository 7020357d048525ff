package server_test

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
)

// The filter operators of oro-behaviour §2 on every data type the back-office
// document has, and sorting (§3). Each case names the exact identifiers the
// list must hold, in order; errors name their title, detail and parameter.

// listCase is one list request: either the identifiers its data must hold, in
// order, or (status other than 200) the first error it must carry.
type listCase struct {
	name    string
	path    string
	want    []string // identifiers in data, in order (nil and empty both mean none)
	status  int      // 0: 200
	title   string   // first error's title; "" with a 400: filter constraint
	detail  string   // first error's detail, when given
	param   string   // first error's source.parameter, when given
	headers map[string]string
}

// runListCases sends each case as its own subtest.
func runListCases(t *testing.T, a *api, cases []listCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sub := *a // a.do fails the test it holds: this one
			sub.t = t
			h := tc.headers
			if h == nil {
				h = jsonAPI
			}
			status := tc.status
			if status == 0 {
				status = http.StatusOK
			}
			r := sub.do(http.MethodGet, tc.path, h, "").want(t, status)
			if status != http.StatusOK {
				title := tc.title
				if title == "" && status == http.StatusBadRequest {
					title = "filter constraint"
				}
				for _, c := range []check{{path: "errors/0/title", want: title}, {path: "errors/0/detail", want: tc.detail},
					{path: "errors/0/source/parameter", want: tc.param}} {
					if c.want != "" {
						c.verify(t, r)
					}
				}
				return
			}
			if got := dataIDs(t, r); !slices.Equal(got, tc.want) && (len(got) != 0 || len(tc.want) != 0) {
				t.Errorf("GET %s: ids %v, want %v", tc.path, got, tc.want)
			}
		})
	}
}

// dataIDs lists the identifiers of a JSON:API list's data, in order.
func dataIDs(t *testing.T, r *result) []string {
	t.Helper()
	data, ok := r.value("data").([]any)
	if !ok {
		t.Fatalf("data is not a list\n%.400s", r.body)
	}
	ids := make([]string, len(data))
	for i, d := range data {
		ids[i], _ = get(d, "id").(string)
	}
	return ids
}

// seedRows inserts rows into table in organization 1 through the storage API
// and returns their identifiers as the API writes them, in the order of rows.
func seedRows(t testing.TB, s *storage.Store, table string, rows ...storage.Row) []string {
	t.Helper()
	tbl, ok := s.Table(table)
	if !ok {
		t.Fatalf("no table %s", table)
	}
	keys, err := s.InsertMany(context.Background(), tbl, 1, rows)
	if err != nil {
		t.Fatalf("seeding %s: %v", table, err)
	}
	ids := make([]string, len(keys))
	for i, k := range keys {
		switch v := k.(type) {
		case int64:
			ids[i] = strconv.FormatInt(v, 10)
		case string:
			ids[i] = v
		default:
			t.Fatalf("key %v of type %T", k, k)
		}
	}
	return ids
}

// seedLinks links pairs of identifiers (left, right, as the join table
// declares its columns) through the storage API.
func seedLinks(t testing.TB, s *storage.Store, joinTable string, pairs ...[2]string) {
	t.Helper()
	j, ok := s.JoinTable(joinTable)
	if !ok {
		t.Fatalf("no join table %s", joinTable)
	}
	vals := make([][2]any, len(pairs))
	for i, p := range pairs {
		for side, id := range p {
			n, err := strconv.ParseInt(id, 10, 64)
			if err != nil {
				vals[i][side] = id
			} else {
				vals[i][side] = n
			}
		}
	}
	if err := s.Link(context.Background(), j, vals); err != nil {
		t.Fatalf("linking %s: %v", joinTable, err)
	}
}

// nth picks identifiers by their 1-based position in ids (the #n of the seed
// comments).
func nth(ids []string, n ...int) []string {
	out := make([]string, len(n))
	for i, k := range n {
		out[i] = ids[k-1]
	}
	return out
}

// num is the pointer-free row value of an identifier.
func num(id string) int64 {
	n, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		panic(err)
	}
	return n
}

func utc(s string) time.Time {
	tm, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return tm.UTC()
}

func TestFilterInteger(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		rows := make([]storage.Row, 5)
		for i := range rows {
			rows[i] = storage.Row{"name": "Int " + strconv.Itoa(i+1)}
		}
		acc := seedRows(t, a.store, "accounts", rows...) // #1..#5
		p := "/admin/api/accounts?"
		runListCases(t, a, []listCase{
			{name: "eq implicit", path: p + "filter[id]=" + acc[2], want: nth(acc, 3)},
			{name: "eq explicit", path: p + "filter[id][eq]=" + acc[2], want: nth(acc, 3)},
			{name: "eq list", path: p + "filter[id]=" + strings.Join(nth(acc, 5, 1, 3), ","), want: nth(acc, 1, 3, 5)},
			{name: "eq list with an unknown id", path: p + "filter[id]=" + acc[0] + ",999999", want: nth(acc, 1)},
			{name: "eq unknown", path: p + "filter[id]=999999", want: nil},
			{name: "neq", path: p + "filter[id][neq]=" + acc[2], want: nth(acc, 1, 2, 4, 5)},
			{name: "neq list", path: p + "filter[id][neq]=" + acc[0] + "," + acc[2], want: nth(acc, 2, 4, 5)},
			{name: "lt", path: p + "filter[id][lt]=" + acc[2], want: nth(acc, 1, 2)},
			{name: "lte", path: p + "filter[id][lte]=" + acc[2], want: nth(acc, 1, 2, 3)},
			{name: "gt", path: p + "filter[id][gt]=" + acc[2], want: nth(acc, 4, 5)},
			{name: "gte", path: p + "filter[id][gte]=" + acc[2], want: nth(acc, 3, 4, 5)},
			{name: "gt negative", path: p + "filter[id][gt]=-1", want: acc},
			{name: "gte and lte together", path: p + "filter[id][gte]=" + acc[1] + "&filter[id][lte]=" + acc[3], want: nth(acc, 2, 3, 4)},
			{name: "gt and lt with nothing between", path: p + "filter[id][gt]=" + acc[1] + "&filter[id][lt]=" + acc[2], want: nil},
			{name: "range", path: p + "filter[id]=" + acc[1] + ".." + acc[3], want: nth(acc, 2, 3, 4)},
			{name: "range explicit eq", path: p + "filter[id][eq]=" + acc[1] + ".." + acc[3], want: nth(acc, 2, 3, 4)},
			{name: "range of one", path: p + "filter[id]=" + acc[4] + ".." + acc[4], want: nth(acc, 5)},
			{name: "range reversed", path: p + "filter[id]=" + acc[3] + ".." + acc[1], want: nil},
			{name: "neq range", path: p + "filter[id][neq]=" + acc[1] + ".." + acc[3], want: nth(acc, 1, 5)},
			{name: "range with another filter", path: p + "filter[id]=" + acc[0] + ".." + acc[3] + "&filter[name]=Int%202", want: nth(acc, 2)},
			{name: "bad value", path: p + "filter[id]=aaa", status: 400,
				detail: `Expected integer value. Given "aaa".`, param: "filter[id]"},
			{name: "bad value in a list", path: p + "filter[id]=1,a", status: 400,
				detail: `Expected an array of integers. Given "1,a".`, param: "filter[id]"},
			{name: "bad value with an operator", path: p + "filter[id][gte]=x", status: 400,
				detail: `Expected integer value. Given "x".`, param: "filter[id][gte]"},
			{name: "range where none is allowed", path: p + "filter[id][lt]=1..3", status: 400,
				detail: `Expected integer value. Given "1..3".`, param: "filter[id][lt]"},
			{name: "list where none is allowed", path: p + "filter[id][gt]=1,2", status: 400, param: "filter[id][gt]"},
			{name: "bad range end", path: p + "filter[id]=1..x", status: 400, param: "filter[id]"},
			{name: "fraction", path: p + "filter[id]=1.5", status: 400, detail: `Expected integer value. Given "1.5".`, param: "filter[id]"},
			{name: "empty value", path: p + "filter[id]=", status: 400, param: "filter[id]"},
			{name: "exists is not an id operator", path: p + "filter[id][exists]=true", status: 400,
				detail: `The operator "exists" is not supported.`, param: "filter[id][exists]"},
			{name: "contains is not an integer operator", path: p + "filter[id][contains]=1", status: 400,
				detail: `The operator "contains" is not supported.`, param: "filter[id][contains]"},
		})
	})
}

func TestFilterString(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		c := seedRows(t, a.store, "contacts",
			storage.Row{"last_name": "Lee", "primary_email": "ann.lee@example.com", "external_id": "A-1"},     // #1
			storage.Row{"last_name": "Leeds", "primary_email": "bob@example.org", "external_id": "A-2"},       // #2
			storage.Row{"last_name": "100%_Kim", "primary_email": "kim_1@example.com", "external_id": "B-3"},  // #3
			storage.Row{"last_name": "100xxKim", "primary_email": "kimx1@example.com"},                        // #4
			storage.Row{"last_name": "", "external_id": ""},                                                   // #5
			storage.Row{"primary_email": "", "external_id": "B-6"},                                            // #6
			storage.Row{"last_name": "lee", "primary_email": "LEE@EXAMPLE.COM", "external_id": "C-7"},         // #7
			storage.Row{"last_name": "Bang!", "primary_email": "bang@example.com", "external_id": "C-8"},      // #8
			storage.Row{"last_name": `Back\slash`, "primary_email": "back@example.com", "external_id": "C-9"}, // #9
		)
		p := "/admin/api/contacts?page[size]=100&"
		runListCases(t, a, []listCase{
			{name: "eq", path: p + "filter[lastName]=Lee", want: nth(c, 1)},
			{name: "eq explicit", path: p + "filter[lastName][eq]=Lee", want: nth(c, 1)},
			{name: "eq is case-sensitive", path: p + "filter[lastName]=lee", want: nth(c, 7)},
			{name: "eq with percent taken literally", path: p + "filter[lastName]=100%25_Kim", want: nth(c, 3)},
			{name: "eq list", path: p + "filter[externalId]=A-1,B-3", want: nth(c, 1, 3)},
			{name: "eq list explicit", path: p + "filter[externalId][eq]=B-6,A-2,nothing", want: nth(c, 2, 6)},
			{name: "eq list of emails", path: p + "filter[primaryEmail]=bob@example.org,ann.lee@example.com", want: nth(c, 1, 2)},
			{name: "neq leaves out null", path: p + "filter[lastName][neq]=Lee", want: nth(c, 2, 3, 4, 5, 7, 8, 9)},
			{name: "neq list", path: p + "filter[externalId][neq]=A-1,A-2,C-8,C-9", want: nth(c, 3, 5, 6, 7)},
			{name: "neq_or_null", path: p + "filter[lastName][neq_or_null]=Lee", want: nth(c, 2, 3, 4, 5, 6, 7, 8, 9)},
			{name: "neq_or_null list", path: p + "filter[externalId][neq_or_null]=A-1,A-2,C-8,C-9", want: nth(c, 3, 4, 5, 6, 7)},
			{name: "exists true", path: p + "filter[lastName][exists]=true", want: nth(c, 1, 2, 3, 4, 5, 7, 8, 9)},
			{name: "exists yes", path: p + "filter[externalId][exists]=yes", want: nth(c, 1, 2, 3, 5, 6, 7, 8, 9)},
			{name: "exists false", path: p + "filter[lastName][exists]=false", want: nth(c, 6)},
			{name: "exists 0", path: p + "filter[externalId][exists]=0", want: nth(c, 4)},
			{name: "exists bad value", path: p + "filter[lastName][exists]=maybe", status: 400,
				detail: `Expected boolean value. Given "maybe".`, param: "filter[lastName][exists]"},
			{name: "contains", path: p + "filter[lastName][contains]=ee", want: nth(c, 1, 2, 7)},
			{name: "contains is case-sensitive", path: p + "filter[lastName][contains]=Lee", want: nth(c, 1, 2)},
			{name: "not_contains leaves out null", path: p + "filter[lastName][not_contains]=Lee", want: nth(c, 3, 4, 5, 7, 8, 9)},
			{name: "starts_with", path: p + "filter[lastName][starts_with]=Le", want: nth(c, 1, 2)},
			{name: "not_starts_with", path: p + "filter[lastName][not_starts_with]=Le", want: nth(c, 3, 4, 5, 7, 8, 9)},
			{name: "ends_with", path: p + "filter[lastName][ends_with]=ds", want: nth(c, 2)},
			{name: "not_ends_with", path: p + "filter[lastName][not_ends_with]=ds", want: nth(c, 1, 3, 4, 5, 7, 8, 9)},
			{name: "ends_with on emails", path: p + "filter[primaryEmail][ends_with]=@example.com", want: nth(c, 1, 3, 4, 8, 9)},
			{name: "contains takes a comma literally", path: p + "filter[primaryEmail][contains]=example.com,bob", want: nil},
			{name: "percent literal in contains", path: p + "filter[lastName][contains]=%25", want: nth(c, 3)},
			{name: "underscore literal in contains", path: p + "filter[lastName][contains]=_", want: nth(c, 3)},
			{name: "percent and underscore literal in starts_with", path: p + "filter[lastName][starts_with]=100%25_", want: nth(c, 3)},
			{name: "percent literal in ends_with", path: p + "filter[lastName][ends_with]=%25_Kim", want: nth(c, 3)},
			{name: "underscore literal in an email", path: p + "filter[primaryEmail][starts_with]=kim_", want: nth(c, 3)},
			{name: "percent literal in not_contains", path: p + "filter[lastName][not_contains]=%25", want: nth(c, 1, 2, 4, 5, 7, 8, 9)},
			{name: "underscore literal in not_starts_with", path: p + "filter[primaryEmail][not_starts_with]=kim_", want: nth(c, 1, 2, 4, 6, 7, 8, 9)},
			{name: "escape character literal", path: p + "filter[lastName][contains]=g!", want: nth(c, 8)},
			{name: "backslash literal", path: p + "filter[lastName][contains]=k%5Cs", want: nth(c, 9)},
			{name: "empty true: null or empty string", path: p + "filter[lastName][empty]=true", want: nth(c, 5, 6)},
			{name: "empty true on emails", path: p + "filter[primaryEmail][empty]=true", want: nth(c, 5, 6)},
			{name: "empty false", path: p + "filter[lastName][empty]=false", want: nth(c, 1, 2, 3, 4, 7, 8, 9)},
			{name: "empty 1", path: p + "filter[externalId][empty]=1", want: nth(c, 4, 5)},
			{name: "empty no", path: p + "filter[externalId][empty]=no", want: nth(c, 1, 2, 3, 6, 7, 8, 9)},
			{name: "empty bad value", path: p + "filter[lastName][empty]=maybe", status: 400,
				detail: `Expected boolean value. Given "maybe".`, param: "filter[lastName][empty]"},
			{name: "two operators on one field", path: p + "filter[lastName][starts_with]=1&filter[lastName][ends_with]=Kim", want: nth(c, 3, 4)},
			{name: "operators on two fields", path: p + "filter[lastName][contains]=Kim&filter[primaryEmail][contains]=_", want: nth(c, 3)},
			{name: "empty value", path: p + "filter[lastName]=", status: 400,
				detail: `Expected not empty string value. Given "".`, param: "filter[lastName]"},
			{name: "empty value with an operator", path: p + "filter[lastName][contains]=", status: 400,
				detail: `Expected not empty string value. Given "".`, param: "filter[lastName][contains]"},
			{name: "lt is not a string operator", path: p + "filter[lastName][lt]=M", status: 400,
				detail: `The operator "lt" is not supported.`, param: "filter[lastName][lt]"},
			{name: "unknown operator", path: p + "filter[lastName][like]=M", status: 400, param: "filter[lastName][like]"},
		})
	})
}

func TestFilterBoolean(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		var rows []storage.Row
		for i, enabled := range []bool{true, false, true, false} {
			n := strconv.Itoa(i + 1)
			rows = append(rows, storage.Row{"username": "bool" + n, "email": "bool" + n + "@example.com",
				"first_name": "B", "last_name": "User" + n, "enabled": enabled})
		}
		u := seedRows(t, a.store, "users", rows...)           // #1 and #3 enabled
		p := "/admin/api/users?filter[id][gte]=" + u[0] + "&" // leave the test principals out
		cases := []listCase{
			{name: "unknown value", path: p + "filter[enabled]=maybe", status: 400,
				detail: `Expected boolean value. Given "maybe".`, param: "filter[enabled]"},
			{name: "number other than 0 and 1", path: p + "filter[enabled]=2", status: 400, param: "filter[enabled]"},
			{name: "empty value", path: p + "filter[enabled]=", status: 400, param: "filter[enabled]"},
			{name: "lt is not a boolean operator", path: p + "filter[enabled][lt]=true", status: 400,
				detail: `The operator "lt" is not supported.`, param: "filter[enabled][lt]"},
			{name: "no range", path: p + "filter[enabled]=false..true", status: 400, param: "filter[enabled]"},
			{name: "neq true", path: p + "filter[enabled][neq]=true", want: nth(u, 2, 4)},
			{name: "neq_or_null false", path: p + "filter[enabled][neq_or_null]=0", want: nth(u, 1, 3)},
			{name: "exists", path: p + "filter[enabled][exists]=true", want: u},
			{name: "exists false", path: p + "filter[enabled][exists]=false", want: nil},
			{name: "with another filter", path: p + "filter[enabled]=yes&filter[id][gt]=" + u[0], want: nth(u, 3)},
		}
		for _, v := range []string{"true", "True", "1", "yes", "Yes"} {
			cases = append(cases, listCase{name: "users " + v, path: p + "filter[enabled]=" + v, want: nth(u, 1, 3)},
				listCase{name: "organizations " + v, path: "/admin/api/organizations?filter[enabled]=" + v, want: []string{"1"}})
		}
		for _, v := range []string{"false", "False", "0", "no", "No"} {
			cases = append(cases, listCase{name: "users " + v, path: p + "filter[enabled]=" + v, want: nth(u, 2, 4)},
				listCase{name: "organizations " + v, path: "/admin/api/organizations?filter[enabled]=" + v, want: nil})
		}
		cases = append(cases,
			listCase{name: "organizations neq false", path: "/admin/api/organizations?filter[enabled][neq]=false", want: []string{"1"}},
			listCase{name: "organizations bad value", path: "/admin/api/organizations?filter[enabled]=on", status: 400,
				detail: `Expected boolean value. Given "on".`, param: "filter[enabled]"},
			listCase{name: "organizations unsupported operator", path: "/admin/api/organizations?filter[enabled][gte]=1", status: 400,
				detail: `The operator "gte" is not supported.`, param: "filter[enabled][gte]"},
		)
		runListCases(t, a, cases)
	})
}

func TestFilterDateTime(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		var rows []storage.Row
		for i, at := range []string{
			"2025-12-31T23:30:00Z", // #1
			"2026-01-01T00:00:00Z", // #2
			"2026-11-22T09:59:59Z", // #3
			"2026-11-22T10:00:00Z", // #4
			"2026-11-22T10:30:15Z", // #5
			"2026-11-23T00:00:00Z", // #6
			"2026-12-01T08:00:00Z", // #7
			"2027-01-01T00:00:00Z", // #8
		} {
			rows = append(rows, storage.Row{"name": "Time " + strconv.Itoa(i+1), "created_at": utc(at), "updated_at": utc(at)})
		}
		acc := seedRows(t, a.store, "accounts", rows...)
		p := "/admin/api/accounts?"
		runListCases(t, a, []listCase{
			{name: "full with Z", path: p + "filter[createdAt]=2026-11-22T10:30:15Z", want: nth(acc, 5)},
			{name: "full without zone is UTC", path: p + "filter[createdAt]=2026-11-22T10:30:15", want: nth(acc, 5)},
			{name: "full with offset", path: p + "filter[createdAt]=2026-11-22T12:30:15%2B02:00", want: nth(acc, 5)},
			{name: "offset with an unencoded plus", path: p + "filter[createdAt]=2026-11-22T12:30:15+02:00", want: nth(acc, 5)},
			{name: "negative offset", path: p + "filter[createdAt]=2026-11-22T05:00:00-05:00", want: nth(acc, 4)},
			{name: "zero offset", path: p + "filter[createdAt]=2026-11-22T10:00:00%2B00:00", want: nth(acc, 4)},
			{name: "year", path: p + "filter[createdAt]=2026", want: nth(acc, 2, 3, 4, 5, 6, 7)},
			{name: "month", path: p + "filter[createdAt]=2026-11", want: nth(acc, 3, 4, 5, 6)},
			{name: "day", path: p + "filter[createdAt]=2026-11-22", want: nth(acc, 3, 4, 5)},
			{name: "hour", path: p + "filter[createdAt]=2026-11-22T10", want: nth(acc, 4, 5)},
			{name: "minute", path: p + "filter[createdAt]=2026-11-22T10:30", want: nth(acc, 5)},
			{name: "hour with offset", path: p + "filter[createdAt]=2026-11-22T12%2B02:00", want: nth(acc, 4, 5)},
			{name: "day explicit eq", path: p + "filter[createdAt][eq]=2026-11-22", want: nth(acc, 3, 4, 5)},
			{name: "neq day", path: p + "filter[createdAt][neq]=2026-11-22", want: nth(acc, 1, 2, 6, 7, 8)},
			{name: "neq full", path: p + "filter[createdAt][neq]=2026-11-22T10:00:00Z", want: nth(acc, 1, 2, 3, 5, 6, 7, 8)},
			{name: "range of days, both ends whole", path: p + "filter[createdAt]=2026-11-22..2026-11-23", want: nth(acc, 3, 4, 5, 6)},
			{name: "range of years", path: p + "filter[createdAt]=2026..2026", want: nth(acc, 2, 3, 4, 5, 6, 7)},
			{name: "range of months", path: p + "filter[createdAt]=2025-12..2026-01", want: nth(acc, 1, 2)},
			{name: "range of full times", path: p + "filter[createdAt]=2026-11-22T10:00:00Z..2026-11-22T10:30:15Z", want: nth(acc, 4, 5)},
			{name: "range with offsets", path: p + "filter[createdAt]=2026-11-22T11:00:00%2B01:00..2026-11-22T11:30:14%2B01:00", want: nth(acc, 4)},
			{name: "neq range", path: p + "filter[createdAt][neq]=2026-01-01..2026-12-31", want: nth(acc, 1, 8)},
			{name: "lt day", path: p + "filter[createdAt][lt]=2026-11-22", want: nth(acc, 1, 2)},
			{name: "lte day", path: p + "filter[createdAt][lte]=2026-11-22", want: nth(acc, 1, 2, 3, 4, 5)},
			{name: "gt day", path: p + "filter[createdAt][gt]=2026-11-22", want: nth(acc, 6, 7, 8)},
			{name: "gte day", path: p + "filter[createdAt][gte]=2026-11-22", want: nth(acc, 3, 4, 5, 6, 7, 8)},
			{name: "lt full", path: p + "filter[createdAt][lt]=2026-11-22T10:00:00Z", want: nth(acc, 1, 2, 3)},
			{name: "gte full with offset", path: p + "filter[createdAt][gte]=2026-11-22T11:00:00%2B01:00", want: nth(acc, 4, 5, 6, 7, 8)},
			{name: "lt year", path: p + "filter[createdAt][lt]=2026", want: nth(acc, 1)},
			{name: "gt year", path: p + "filter[createdAt][gt]=2026", want: nth(acc, 8)},
			{name: "gte and lt: one month", path: p + "filter[createdAt][gte]=2026-11&filter[createdAt][lt]=2026-12", want: nth(acc, 3, 4, 5, 6)},
			{name: "on updatedAt too", path: p + "filter[updatedAt]=2026-11-22T10", want: nth(acc, 4, 5)},
			{name: "exists", path: p + "filter[createdAt][exists]=true", want: acc},
			{name: "bad value", path: p + "filter[createdAt]=yesterday", status: 400,
				detail: `Expected datetime value. Given "yesterday".`, param: "filter[createdAt]"},
			{name: "month 13", path: p + "filter[createdAt]=2026-13", status: 400, param: "filter[createdAt]"},
			{name: "day 31 of November", path: p + "filter[createdAt]=2026-11-31", status: 400, param: "filter[createdAt]"},
			{name: "hour 25", path: p + "filter[createdAt]=2026-11-22T25", status: 400, param: "filter[createdAt]"},
			{name: "bad value with an operator", path: p + "filter[createdAt][gte]=soon", status: 400, param: "filter[createdAt][gte]"},
			{name: "bad range end", path: p + "filter[createdAt]=2026..later", status: 400, param: "filter[createdAt]"},
			{name: "empty value", path: p + "filter[createdAt]=", status: 400, param: "filter[createdAt]"},
			{name: "contains is not a date operator", path: p + "filter[createdAt][contains]=2026", status: 400,
				detail: `The operator "contains" is not supported.`, param: "filter[createdAt][contains]"},
		})
	})
}

func TestFilterToOne(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		var users []storage.Row
		for _, n := range []string{"1", "2", "3"} {
			users = append(users, storage.Row{"username": "owner" + n, "email": "owner" + n + "@example.com",
				"first_name": "O", "last_name": "Owner" + n, "enabled": true})
		}
		u := seedRows(t, a.store, "users", users...)
		c := seedRows(t, a.store, "contacts",
			storage.Row{"last_name": "A", "owner_id": num(u[0])}, // #1
			storage.Row{"last_name": "B", "owner_id": num(u[1])}, // #2
			storage.Row{"last_name": "C", "owner_id": num(u[2])}, // #3
			storage.Row{"last_name": "D"},                        // #4 no owner
			storage.Row{"last_name": "E", "owner_id": num(u[0])}, // #5
		)
		p := "/admin/api/contacts?"
		r := "/admin/api/regions?page[size]=100&"
		few := "&filter[id]=KI-G,WF-AL,BA-BRC"
		runListCases(t, a, []listCase{
			{name: "owner eq", path: p + "filter[owner]=" + u[0], want: nth(c, 1, 5)},
			{name: "owner eq explicit", path: p + "filter[owner][eq]=" + u[1], want: nth(c, 2)},
			{name: "owner list", path: p + "filter[owner]=" + u[1] + "," + u[2], want: nth(c, 2, 3)},
			{name: "owner unknown", path: p + "filter[owner]=999999", want: nil},
			{name: "owner neq leaves out null", path: p + "filter[owner][neq]=" + u[0], want: nth(c, 2, 3)},
			{name: "owner neq list", path: p + "filter[owner][neq]=" + u[0] + "," + u[1], want: nth(c, 3)},
			{name: "owner neq_or_null", path: p + "filter[owner][neq_or_null]=" + u[0], want: nth(c, 2, 3, 4)},
			{name: "owner exists false", path: p + "filter[owner][exists]=false", want: nth(c, 4)},
			{name: "owner exists true", path: p + "filter[owner][exists]=true", want: nth(c, 1, 2, 3, 5)},
			{name: "owner and another filter", path: p + "filter[owner]=" + u[0] + "&filter[lastName]=E", want: nth(c, 5)},
			{name: "owner bad value", path: p + "filter[owner]=abc", status: 400,
				detail: `Expected integer value. Given "abc".`, param: "filter[owner]"},
			{name: "owner bad value in a list", path: p + "filter[owner]=1,x", status: 400,
				detail: `Expected an array of integers. Given "1,x".`, param: "filter[owner]"},
			{name: "owner unsupported operator", path: p + "filter[owner][gt]=1", status: 400,
				detail: `The operator "gt" is not supported.`, param: "filter[owner][gt]"},
			{name: "owner empty value", path: p + "filter[owner]=", status: 400, param: "filter[owner]"},
			{name: "country eq", path: r + "filter[country]=KI", want: []string{"KI-G", "KI-L", "KI-P"}},
			{name: "country eq explicit", path: r + "filter[country][eq]=BA", want: []string{"BA-BIH", "BA-BRC", "BA-SRP"}},
			{name: "country list", path: r + "filter[country]=WF,KI", want: []string{"KI-G", "KI-L", "KI-P", "WF-AL", "WF-SG", "WF-UV"}},
			{name: "country unknown", path: r + "filter[country]=ZZ", want: nil},
			{name: "country neq", path: r + "filter[country][neq]=KI" + few, want: []string{"BA-BRC", "WF-AL"}},
			{name: "country neq list", path: r + "filter[country][neq]=KI,WF" + few, want: []string{"BA-BRC"}},
			{name: "country neq_or_null", path: r + "filter[country][neq_or_null]=WF" + few, want: []string{"BA-BRC", "KI-G"}},
			{name: "country exists false", path: r + "filter[country][exists]=false", want: nil},
			{name: "country exists true", path: r + "filter[country][exists]=true" + few, want: []string{"BA-BRC", "KI-G", "WF-AL"}},
			{name: "country unsupported operator", path: r + "filter[country][starts_with]=K", status: 400,
				detail: `The operator "starts_with" is not supported.`, param: "filter[country][starts_with]"},
			{name: "country empty value", path: r + "filter[country]=", status: 400, param: "filter[country]"},
			{name: "region id list", path: r + "filter[id]=WF-UV,KI-L", want: []string{"KI-L", "WF-UV"}},
			{name: "region id neq", path: r + "filter[id][neq]=KI-G&filter[country]=KI", want: []string{"KI-L", "KI-P"}},
		})
	})
}

func TestFilterToMany(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		k := seedRows(t, a.store, "contacts",
			storage.Row{"last_name": "K1"}, storage.Row{"last_name": "K2"}, storage.Row{"last_name": "K3"}, storage.Row{"last_name": "K4"})
		acc := seedRows(t, a.store, "accounts",
			storage.Row{"name": "A1"}, // #1: K1 K2
			storage.Row{"name": "A2"}, // #2: K2 K3
			storage.Row{"name": "A3"}, // #3: K1
			storage.Row{"name": "A4"}, // #4: none
			storage.Row{"name": "A5"}, // #5: K1 K2 K3
		)
		seedLinks(t, a.store, "account_contacts",
			[2]string{acc[0], k[0]}, [2]string{acc[0], k[1]},
			[2]string{acc[1], k[1]}, [2]string{acc[1], k[2]},
			[2]string{acc[2], k[0]},
			[2]string{acc[4], k[0]}, [2]string{acc[4], k[1]}, [2]string{acc[4], k[2]})
		p := "/admin/api/accounts?filter[contacts]"
		runListCases(t, a, []listCase{
			{name: "eq: has it", path: p + "=" + k[0], want: nth(acc, 1, 3, 5)},
			{name: "eq explicit", path: p + "[eq]=" + k[2], want: nth(acc, 2, 5)},
			{name: "eq list: any of", path: p + "=" + k[0] + "," + k[2], want: nth(acc, 1, 2, 3, 5)},
			{name: "eq nobody's", path: p + "=" + k[3], want: nil},
			{name: "neq: none of one", path: p + "[neq]=" + k[0], want: nth(acc, 2, 4)},
			{name: "neq list: none of", path: p + "[neq]=" + k[0] + "," + k[2], want: nth(acc, 4)},
			{name: "neq_or_null", path: p + "[neq_or_null]=" + k[2], want: nth(acc, 1, 3, 4)},
			{name: "contains one", path: p + "[contains]=" + k[0], want: nth(acc, 1, 3, 5)},
			{name: "contains: all of", path: p + "[contains]=" + k[0] + "," + k[1], want: nth(acc, 1, 5)},
			{name: "contains all three", path: p + "[contains]=" + k[2] + "," + k[1] + "," + k[0], want: nth(acc, 5)},
			{name: "contains a repeated value", path: p + "[contains]=" + k[1] + "," + k[1], want: nth(acc, 1, 2, 5)},
			{name: "contains one nobody has", path: p + "[contains]=" + k[0] + "," + k[3], want: nil},
			{name: "not_contains: not all of", path: p + "[not_contains]=" + k[0] + "," + k[1], want: nth(acc, 2, 3, 4)},
			{name: "not_contains one", path: p + "[not_contains]=" + k[2], want: nth(acc, 1, 3, 4)},
			{name: "exists true", path: p + "[exists]=true", want: nth(acc, 1, 2, 3, 5)},
			{name: "exists false", path: p + "[exists]=false", want: nth(acc, 4)},
			{name: "exists 1 with another filter", path: p + "[exists]=1&filter[name]=A3", want: nth(acc, 3)},
			{name: "any of and all of together", path: p + "=" + k[2] + "&filter[contacts][contains]=" + k[0] + "," + k[1], want: nth(acc, 5)},
			{name: "bad value in a list", path: p + "=1,a", status: 400,
				detail: `Expected an array of integers. Given "1,a".`, param: "filter[contacts]"},
			{name: "exists bad value", path: p + "[exists]=sometimes", status: 400,
				detail: `Expected boolean value. Given "sometimes".`, param: "filter[contacts][exists]"},
			{name: "unsupported operator", path: p + "[gt]=1", status: 400,
				detail: `The operator "gt" is not supported.`, param: "filter[contacts][gt]"},
			{name: "starts_with is not a relationship operator", path: p + "[starts_with]=1", status: 400,
				detail: `The operator "starts_with" is not supported.`, param: "filter[contacts][starts_with]"},
			{name: "the inverse side: contacts of accounts", path: "/admin/api/contacts?filter[accounts][contains]=" + acc[0] + "," + acc[1],
				want: nth(k, 2)},
			{name: "the inverse side: contacts of no account", path: "/admin/api/contacts?filter[accounts][exists]=false", want: nth(k, 4)},
		})
	})
}

func TestFilterErrors(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		p := "/admin/api/contacts?"
		runListCases(t, a, []listCase{
			{name: "unknown field", path: p + "filter[nothing]=1", status: 400,
				detail: "The filter is not supported.", param: "filter[nothing]"},
			{name: "unknown field with an operator", path: p + "filter[nothing][eq]=1", status: 400,
				detail: "The filter is not supported.", param: "filter[nothing][eq]"},
			{name: "field that is not filterable", path: p + "filter[jobTitle]=CEO", status: 400,
				detail: "The filter is not supported.", param: "filter[jobTitle]"},
			{name: "write-only field", path: "/admin/api/users?filter[password]=x", status: 400,
				detail: "The filter is not supported.", param: "filter[password]"},
			{name: "unsupported operator", path: p + "filter[id][contains]=1", status: 400,
				detail: `The operator "contains" is not supported.`, param: "filter[id][contains]"},
			{name: "bad integer", path: p + "filter[id]=aaa", status: 400,
				detail: `Expected integer value. Given "aaa".`, param: "filter[id]"},
			{name: "bad integer list", path: p + "filter[id]=1,a", status: 400,
				detail: `Expected an array of integers. Given "1,a".`, param: "filter[id]"},
			{name: "empty string value", path: p + "filter[primaryEmail]=", status: 400,
				detail: `Expected not empty string value. Given "".`, param: "filter[primaryEmail]"},
			{name: "not a filter key", path: p + "filter=1", status: 400, param: "filter"},
			{name: "the same on another resource", path: "/admin/api/regions?filter[name]=Bayern", status: 400,
				detail: "The filter is not supported.", param: "filter[name]"},
		})
		// Several wrong filters: one error each.
		r := a.do(http.MethodGet, p+"filter[nothing]=1&filter[id]=x", jsonAPI, "").want(t, 400)
		errs, _ := r.value("errors").([]any)
		var params []string
		for _, e := range errs {
			s, _ := get(e, "source/parameter").(string)
			params = append(params, s)
		}
		slices.Sort(params)
		if !slices.Equal(params, []string{"filter[id]", "filter[nothing]"}) {
			t.Errorf("errors for %v, want one per wrong filter\n%s", params, r.body)
		}
	})
}

func TestSort(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		var users []storage.Row
		for _, n := range []string{"1", "2"} {
			users = append(users, storage.Row{"username": "sorter" + n, "email": "sorter" + n + "@example.com",
				"first_name": "S", "last_name": "Sorter" + n, "enabled": n == "1"})
		}
		u := seedRows(t, a.store, "users", users...)
		// Names of capitals and letters only sort alike under every collation.
		c := seedRows(t, a.store, "contacts",
			storage.Row{"last_name": "Brown", "primary_email": "b@example.com", "created_at": utc("2026-03-01T00:00:00Z"), "owner_id": num(u[1])}, // #1
			storage.Row{"last_name": "Adams", "primary_email": "d@example.com", "created_at": utc("2026-01-01T00:00:00Z"), "owner_id": num(u[0])}, // #2
			storage.Row{"last_name": "Clark", "primary_email": "a@example.com", "created_at": utc("2026-02-01T00:00:00Z")},                        // #3
			storage.Row{"last_name": "Brown", "primary_email": "c@example.com", "created_at": utc("2026-01-01T00:00:00Z"), "owner_id": num(u[0])}, // #4
			storage.Row{"primary_email": "e@example.com", "created_at": utc("2026-02-01T00:00:00Z"), "owner_id": num(u[1])},                       // #5 no last name
		)
		p := "/admin/api/contacts?"
		runListCases(t, a, []listCase{
			{name: "default: id ascending", path: p, want: nth(c, 1, 2, 3, 4, 5)},
			{name: "id", path: p + "sort=id", want: nth(c, 1, 2, 3, 4, 5)},
			{name: "id descending", path: p + "sort=-id", want: nth(c, 5, 4, 3, 2, 1)},
			{name: "one field, ties by id", path: p + "sort=lastName", want: nth(c, 2, 1, 4, 3, 5)},
			{name: "descending, null first", path: p + "sort=-lastName", want: nth(c, 5, 3, 1, 4, 2)},
			{name: "two fields", path: p + "sort=lastName,-id", want: nth(c, 2, 4, 1, 3, 5)},
			{name: "two fields, both descending", path: p + "sort=-createdAt,-lastName", want: nth(c, 1, 5, 3, 4, 2)},
			{name: "time then text", path: p + "sort=createdAt,primaryEmail", want: nth(c, 4, 2, 3, 5, 1)},
			{name: "three fields", path: p + "sort=-createdAt,lastName,-primaryEmail", want: nth(c, 1, 3, 5, 2, 4)},
			{name: "to-one relationship", path: p + "sort=owner,-id", want: nth(c, 4, 2, 5, 1, 3)},
			{name: "sort with a filter", path: p + "sort=-primaryEmail&filter[lastName][starts_with]=B", want: nth(c, 4, 1)},
			{name: "sort with paging", path: p + "sort=-lastName&page[size]=2&page[number]=2", want: nth(c, 1, 4)},
			{name: "users by a boolean", path: "/admin/api/users?sort=-enabled,id&filter[id][gte]=" + u[0], want: u},
			{name: "regions by country descending", path: "/admin/api/regions?filter[country]=KI,WF&sort=-country,id", want: []string{"WF-AL", "WF-SG", "WF-UV", "KI-G", "KI-L", "KI-P"}},
			{name: "countries by iso3Code", path: "/admin/api/countries?filter[id]=DE,DK,DZ&sort=-iso3Code", want: []string{"DZ", "DK", "DE"}},
			{name: "unsortable field", path: p + "sort=jobTitle", status: 400, title: "sort constraint",
				detail: `Sorting by "jobTitle" field is not supported.`, param: "sort"},
			{name: "unsortable descending", path: p + "sort=lastName,-firstName", status: 400, title: "sort constraint",
				detail: `Sorting by "firstName" field is not supported.`, param: "sort"},
			{name: "unknown field", path: p + "sort=nothing", status: 400, title: "sort constraint",
				detail: `Sorting by "nothing" field is not supported.`, param: "sort"},
			{name: "to-many relationship", path: p + "sort=accounts", status: 400, title: "sort constraint", param: "sort"},
			{name: "empty item", path: p + "sort=lastName,", status: 400, title: "sort constraint", param: "sort"},
		})
	})
}
