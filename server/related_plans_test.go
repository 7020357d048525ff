package server_test

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// Sizes of the tables TestRelatedFieldPlansAtScale reads plans against
// (issue 32: 100,000 accounts and 400,000 contacts).
const (
	scaleAccounts = 100_000
	scaleContacts = 400_000
)

// relatedPlanRequests are lists filtered on related records' fields, each
// with the names (tables, or the aliases storage gives the related rows:
// p1, p2, j1) none of its statements may read whole.
var relatedPlanRequests = []struct {
	path  string
	large []string
}{
	{"/admin/api/accounts?filter[owner.username]=crm3&page[size]=20", []string{"accounts"}},
	{"/admin/api/accounts?filter[contacts.lastName]=Smith%204&page[size]=20", []string{"accounts", "contacts", "account_contacts", "p1", "j1"}},
	// A pattern reads the related field as the field's own filter does (on
	// PostgreSQL a btree does not serve LIKE under the database's
	// collation): the path adds no whole read of the tables it links.
	{"/admin/api/accounts?filter[contacts.lastName][starts_with]=Lee&page[size]=20", []string{"accounts", "account_contacts", "j1"}},
	{"/admin/api/accounts?filter[contacts.owner.username]=crm3&page[size]=20", []string{"accounts", "contacts", "account_contacts", "p1", "j1"}},
	{"/admin/api/contacts?filter[accounts.name]=Account%207&page[size]=20", []string{"contacts", "accounts", "account_contacts", "p1", "j1"}},
	{"/admin/api/contacts?filter[reportsTo.lastName]=Smith%204&page[size]=20", []string{"contacts", "p1"}},
	{"/admin/api/accounts?filter[defaultContact.lastName]=Smith%204&page[size]=20", []string{"accounts", "contacts", "p1"}},
	// Full-text search (docs/queries.md, "Search"): the full-text index
	// finds the records, the key their rows.
	{"/admin/api/accounts?filter[searchText]=grown%2077777&page[size]=20", []string{"accounts"}},
	{"/admin/api/contacts?filter[searchText]=grown%20123456&page[size]=20", []string{"contacts"}},
	{"/admin/api/contacts?filter[searchText]=smith%20-grown&page[size]=20", []string{"contacts"}},
	{"/admin/api/search?filter[searchText]=grown%2077777&page[size]=20", []string{"accounts", "contacts"}},
}

// TestRelatedFieldPlansAtScale holds filters on related records' fields to
// index walks (docs/queries.md, "Related fields"): with 100,000 accounts and
// 400,000 contacts, each linked to an account, no statement of these
// requests reads a large table whole: no Seq Scan and no scan reading more
// than readBound rows on PostgreSQL (the plan for the values and the
// generic plan), no SCAN of it on SQLite. The plans are read after the
// housekeeping's Optimize (the statistics of the grown tables).
func TestRelatedFieldPlansAtScale(t *testing.T) {
	if testing.Short() {
		t.Skip("builds tables of 100,000 and 400,000 rows on each database")
	}
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			store := storagetest.Open(t, dialect)
			a := newAPIWith(t, store, func(c *server.Config) { c.Jobs.NoWorkers = true })
			ctx := context.Background()
			seedCRM(t, a.store, 6, 50, 200)
			growLinkedContacts(t, a.store, scaleAccounts, scaleContacts)
			if err := a.store.Optimize(ctx); err != nil {
				t.Fatal(err)
			}
			hook := &paramsRecorder{}
			a.store.AddStatementHook(hook)
			a.do("GET", "/admin/api/organizations", jsonAPI, "").want(t, 200) // the caller is cached from here
			for _, r := range relatedPlanRequests {
				sent := hook.during(func() { a.do("GET", r.path, jsonAPI, "").want(t, 200) })
				if len(sent) == 0 {
					t.Fatalf("%s: no statement seen", r.path)
				}
				for _, st := range sent {
					for _, p := range plansOf(ctx, t, a.store, st) {
						if p.kind == "generic" && strings.Contains(st.query, "to_tsquery(") && !strings.HasPrefix(st.query, "SELECT entity, k, score") {
							// A list's search is planned for its query at every run
							// (storage's planEach, TestSearchMatches); the search
							// across types keeps its prepared plan, read here too.
							continue
						}
						for _, name := range r.large {
							if scan := wholeScan(p.text, name); scan != "" {
								t.Errorf("%s: the %s plan of\n%s\nreads %s whole (%s):\n%s", r.path, p.kind, st.query, name, scan, p.text)
							}
							if walk := organizationWalk(p.text, name); walk != "" {
								t.Errorf("%s: the %s plan of\n%s\nwalks every record of %s in the organization (%s):\n%s", r.path, p.kind, st.query, name, walk, p.text)
							}
						}
					}
				}
			}
		})
	}
}

// organizationWalk names a line of a SQLite plan that walks table (or the
// rows of an alias) by the organization alone: "SEARCH accounts USING INDEX
// accounts_organization_id_id_idx (organization_id=?)". SQLite's plans do
// not count the rows read, and such a walk, in key order to spare a sort,
// stops at a page's end only when matches are many: for these filters,
// which match a few records of a large table, it reads the organization's
// records, the whole table here.
func organizationWalk(plan, table string) string {
	for _, line := range strings.Split(plan, "\n") {
		line = strings.TrimSpace(line)
		if m := orgWalk.FindStringSubmatch(line); m != nil && m[1] == table {
			return line
		}
	}
	return ""
}

var orgWalk = regexp.MustCompile(`^SEARCH (\S+) USING (?:COVERING )?INDEX \S+ \(organization_id=\?\)$`)

// growLinkedContacts adds accounts and contacts to organization 1, each
// contact in one of the new accounts, in three statements.
func growLinkedContacts(t testing.TB, s *storage.Store, accounts, contacts int) {
	t.Helper()
	ctx := context.Background()
	series := func(n int, insert string) string {
		if s.Dialect() == "sqlite" {
			return "WITH RECURSIVE g(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM g WHERE i < " + strconv.Itoa(n) + ") " + insert + " FROM g"
		}
		return insert + " FROM generate_series(1, " + strconv.Itoa(n) + ") AS g(i)"
	}
	start := time.Now()
	for _, q := range []string{
		series(accounts, "INSERT INTO accounts (organization_id, name) SELECT 1, 'Grown ' || i"),
		series(contacts, "INSERT INTO contacts (organization_id, first_name, last_name) SELECT 1, 'Grown', 'Grown ' || i"),
		"INSERT INTO account_contacts (account_id, contact_id) " +
			"SELECT (SELECT min(id) FROM accounts WHERE name = 'Grown 1') + c.id % " + strconv.Itoa(accounts) + ", c.id " +
			"FROM contacts AS c WHERE c.first_name = 'Grown'",
	} {
		if _, err := s.DB().ExecContext(ctx, q); err != nil {
			t.Fatalf("growing the tables: %v\n%s", err, q)
		}
	}
	t.Logf("%d accounts, %d contacts in %v", accounts, contacts, time.Since(start).Round(time.Millisecond))
}
