package server_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// queryCounter is a statement hook counting the queries that complete while
// it is on, and keeping their SQL for failure messages.
type queryCounter struct {
	mu      sync.Mutex
	on      bool
	queries []string
}

var _ storage.StatementHook = (*queryCounter)(nil)

func (q *queryCounter) BeforeStatement(ctx context.Context, _ string) context.Context {
	return ctx
}

func (q *queryCounter) AfterStatement(_ context.Context, query string, err error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.on {
		q.queries = append(q.queries, query)
	}
}

// during counts the queries fn sends; it returns their SQL.
func (q *queryCounter) during(fn func()) []string {
	q.mu.Lock()
	q.on, q.queries = true, nil
	q.mu.Unlock()
	defer func() {
		q.mu.Lock()
		q.on = false
		q.mu.Unlock()
	}()
	fn()
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]string(nil), q.queries...)
}

// TestQueriesPerRequest proves docs/decisions.md §5's bound: a list costs at most 1
// query for the primary records, 1 per to-many relationship whose linkage it
// shows, 1 per include path segment and 1 for totalCount, whatever the page size.
// It asserts the exact count the engine spends. Linkage shown by included
// records counts too: the engine loads it in one query per to-many
// relationship per include path segment, so it stays constant in the page size.
func TestQueriesPerRequest(t *testing.T) {
	t.Parallel()
	totalCount := map[string]string{"Accept": "application/vnd.api+json", "X-Include": "totalCount"}
	runQueryCases(t, nil, []queryCase{
		{name: "countries page 5", path: "/admin/api/countries?page[size]=5", want: 2, records: 5,
			why: "rows + regions linkage", same: "countries"},
		{name: "countries page 200", path: "/admin/api/countries?page[size]=200", want: 2, records: 200,
			why: "rows + regions linkage", same: "countries"},
		{name: "countries page 200 with totalCount", path: "/admin/api/countries?page[size]=200", headers: totalCount, want: 3, records: 200,
			why: "count + rows + regions linkage", same: "countries+total"},
		{name: "countries page 5 with totalCount", path: "/admin/api/countries?page[size]=5", headers: totalCount, want: 3, records: 5,
			why: "count + rows + regions linkage", same: "countries+total"},
		{name: "countries plain page 100", path: "/admin/api/countries?page[size]=100", headers: plain, want: 2, records: 100,
			why: "rows + regions linkage (the plain format always shows it)"},
		{name: "countries without the to-many relationship", path: "/admin/api/countries?fields[countries]=name", want: 1, records: 10,
			why: "rows only: no linkage when regions is not shown"},
		{name: "countries including regions", path: "/admin/api/countries?page[size]=20&include=regions", want: 3, records: 20,
			why: "rows + regions linkage + regions segment"},
		// Regions have no to-many relationship, but the included countries
		// show their regions linkage, which costs one query (constant in the
		// page size). Leaving regions out of the countries' fields saves it.
		{name: "regions page 10 with country", path: "/admin/api/regions?page[size]=10&include=country", want: 3, records: 10,
			why: "rows + country segment + regions linkage of the included countries", same: "regions.country",
			shows: "included/0/relationships/regions/data/0/id"},
		{name: "regions page 100 with country", path: "/admin/api/regions?page[size]=100&include=country", want: 3, records: 100,
			why: "rows + country segment + regions linkage of the included countries", same: "regions.country",
			shows: "included/0/relationships/regions/data/0/id"},
		{name: "regions page 100 with country, countries without regions",
			path: "/admin/api/regions?page[size]=100&include=country&fields[countries]=name", want: 2, records: 100,
			why: "rows + country segment"},
		{name: "regions page 10 with country.regions", path: "/admin/api/regions?include=country.regions&page[size]=10", want: 4, records: 10,
			why: "rows + country segment + regions linkage of the included countries + regions segment", same: "regions.country.regions"},
		{name: "regions page 50 with country.regions", path: "/admin/api/regions?include=country.regions&page[size]=50", want: 4, records: 50,
			why: "rows + country segment + regions linkage of the included countries + regions segment", same: "regions.country.regions"},
		{name: "regions page 100 with country.regions", path: "/admin/api/regions?include=country.regions&page[size]=100", want: 4, records: 100,
			why: "rows + country segment + regions linkage of the included countries + regions segment", same: "regions.country.regions"},
		{name: "one country", path: "/admin/api/countries/US", want: 1, records: -1,
			why: "row with its regions linkage (a subquery of the same statement)", shows: "data/relationships/regions/data/0/id"},
		{name: "one country, plain", path: "/admin/api/countries/US", headers: plain, want: 1, records: -1,
			why: "row with its regions linkage", shows: "regions/0"},
		{name: "one country without the to-many relationship", path: "/admin/api/countries/US?fields[countries]=name", want: 1, records: -1,
			why: "row only"},
		{name: "one country including regions", path: "/admin/api/countries/US?include=regions", want: 2, records: -1,
			why: "row with its regions linkage + regions segment", shows: "included/0/attributes/name"},
	})
}

// queryCase is one GET whose queries are counted.
type queryCase struct {
	name    string
	path    string
	headers map[string]string // jsonAPI when nil
	want    int
	records int // length of data (or of the plain array); -1: one object
	why     string
	same    string // cases with the same key differ only in page size: their counts must be equal
	shows   string // a body path that must hold a value (the data a query loaded)
}

// runQueryCases counts the queries of each case on every test database, after
// seed (when not nil) has filled the store.
func runQueryCases(t *testing.T, seed func(t *testing.T, s *storage.Store), cases []queryCase) {
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			store := storagetest.Open(t, dialect)
			if seed != nil {
				seed(t, store)
			}
			counter := &queryCounter{}
			store.AddStatementHook(counter)
			// No batch workers: their housekeeping would be counted too.
			// No kept answers: the cases count the engine's queries
			// (TestKeptAnswers holds the reads answered from memory).
			a := newAPIWith(t, store, func(c *server.Config) { c.Jobs.NoWorkers, c.AnswerCache = true, -1 })
			// Authentication costs queries only until the caller is cached: warm it up.
			a.do("GET", "/admin/api/organizations", jsonAPI, "").want(t, 200)
			counts := map[string][]int{}
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					sub := *a // a.do fails the test it holds: this one
					sub.t = t
					h := tc.headers
					if h == nil {
						h = jsonAPI
					}
					var r *result
					queries := counter.during(func() { r = sub.do("GET", tc.path, h, "").want(t, 200) })
					t.Logf("queries: %d (%s)", len(queries), tc.why)
					if tc.same != "" {
						counts[tc.same] = append(counts[tc.same], len(queries))
					}
					if len(queries) != tc.want {
						t.Errorf("%s: %d queries, want %d (%s):\n%s", tc.path, len(queries), tc.want, tc.why, listQueries(queries))
					}
					if tc.shows != "" && r.value(tc.shows) == nil {
						t.Errorf("%s: nothing at %s\n%.300s", tc.path, tc.shows, r.body)
					}
					switch {
					case tc.records < 0:
						idPath := "data/id"
						if tc.headers["Accept"] == "application/json" {
							idPath = "id" // the plain format's object is the document
						}
						if r.doc == nil || get(r.doc, idPath) == nil {
							t.Errorf("want one record\n%.300s", r.body)
						}
					case r.list != nil:
						if len(r.list) != tc.records {
							t.Errorf("%d records, want %d", len(r.list), tc.records)
						}
					default:
						if data, _ := get(r.doc, "data").([]any); len(data) != tc.records {
							t.Errorf("%d records, want %d", len(data), tc.records)
						}
					}
				})
			}
			for key, n := range counts {
				for _, c := range n[1:] {
					if c != n[0] {
						t.Errorf("%s: the query count changes with the page size: %v", key, n)
						break
					}
				}
			}
		})
	}
}

// TestQueriesPerRequestWithRelations holds the bound on records related
// through a join table and foreign keys, included two levels deep: 6 users
// (each with a role and a business unit), 60 accounts and 60 contacts owned by
// them, each contact in one to three accounts (seedCRM), so that every
// relationship the include paths follow holds data on every page. For
// contacts?include=accounts,owner the bound of docs/decisions.md §5 is 1 (rows) + 3
// to-many relationships whose linkage is shown (contacts.accounts, and of the
// included records accounts.contacts and users.userRoles) + 2 include path
// segments = 6, and the engine spends exactly that; likewise for
// accounts?include=contacts.owner.
func TestQueriesPerRequestWithRelations(t *testing.T) {
	t.Parallel()
	runQueryCases(t, func(t *testing.T, s *storage.Store) { seedCRM(t, s, 6, 60, 60) }, []queryCase{
		{name: "contacts page 10 with accounts and owner", path: "/admin/api/contacts?include=accounts,owner&page[size]=10", want: 6, records: 10,
			why:  "rows + accounts linkage + accounts segment + contacts linkage of the included accounts + owner segment + userRoles linkage of the included users",
			same: "contacts.accounts,owner", shows: "included/0/relationships/contacts/data/0/id"},
		{name: "contacts page 50 with accounts and owner", path: "/admin/api/contacts?include=accounts,owner&page[size]=50", want: 6, records: 50,
			why:  "rows + accounts linkage + accounts segment + contacts linkage of the included accounts + owner segment + userRoles linkage of the included users",
			same: "contacts.accounts,owner", shows: "data/49/relationships/accounts/data/0/id"},
		{name: "accounts page 10 with contacts.owner", path: "/admin/api/accounts?include=contacts.owner&page[size]=10", want: 6, records: 10,
			why:  "rows + contacts linkage + contacts segment + accounts linkage of the included contacts + contacts.owner segment + userRoles linkage of the included users",
			same: "accounts.contacts.owner", shows: "data/9/relationships/contacts/data/0/id"},
		{name: "accounts page 50 with contacts.owner", path: "/admin/api/accounts?include=contacts.owner&page[size]=50", want: 6, records: 50,
			why:  "rows + contacts linkage + contacts segment + accounts linkage of the included contacts + contacts.owner segment + userRoles linkage of the included users",
			same: "accounts.contacts.owner", shows: "data/49/relationships/contacts/data/0/id"},
		{name: "accounts page 50 with contacts.owner and totalCount", path: "/admin/api/accounts?include=contacts.owner&page[size]=50",
			headers: map[string]string{"Accept": "application/vnd.api+json", "X-Include": "totalCount"}, want: 7, records: 50,
			why: "count + the six above"},
		// Issue 15 item 9's shapes (times: BenchmarkBigRead): every record at
		// once, an include path three segments deep, and a filter on a to-many
		// relationship naming many records, still one query per step.
		{name: "every contact with accounts", path: "/admin/api/contacts?page[size]=-1&include=accounts", want: 4, records: 60,
			why: "rows + accounts linkage + accounts segment + contacts linkage of the included accounts"},
		{name: "every contact with accounts.contacts.accounts", path: "/admin/api/contacts?page[size]=-1&include=accounts.contacts.accounts", want: 8, records: 60,
			why: "rows + accounts linkage + for each of the 3 segments: the segment + the linkage of its records (contacts of accounts, accounts of contacts)"},
		{name: "accounts filtered by 60 contacts", path: "/admin/api/accounts?page[size]=-1&filter[contacts]=" + crmContactIDs(60), want: 2, records: 60,
			why: "rows (the filter is a subquery of the same statement) + contacts linkage"},
		{name: "one contact", path: "/admin/api/contacts/1", want: 1, records: -1,
			why: "row with its accounts linkage through the join table", shows: "data/relationships/accounts/data/0/id"},
		{name: "one contact with accounts and owner", path: "/admin/api/contacts/1?include=accounts,owner", want: 5, records: -1,
			why:   "row with its accounts linkage + accounts segment + contacts linkage of the included accounts + owner segment + userRoles linkage of the included user",
			shows: "included/0/relationships/contacts/data/0/id"},
		{name: "contacts page 50 without linkage", path: "/admin/api/contacts?include=owner&page[size]=50&fields[contacts]=lastName,owner&fields[users]=username",
			want: 2, records: 50, why: "rows + owner segment: no to-many linkage shown"},
	})
}

// crmContactIDs lists the identifiers 1 to n, which seedCRM's contacts take
// in a fresh store, for a filter value.
func crmContactIDs(n int) string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = strconv.Itoa(i + 1)
	}
	return strings.Join(ids, ",")
}

func listQueries(queries []string) string {
	var sb strings.Builder
	for i, q := range queries {
		fmt.Fprintf(&sb, "  %d. %.300s\n", i+1, q)
	}
	return sb.String()
}
