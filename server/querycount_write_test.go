package server_test

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// writeCase is one create or update whose statements are counted.
type writeCase struct {
	name   string
	method string
	path   string
	body   string
	status int
	want   int // statements, BEGIN and COMMIT included
	// inTx: the write is a transaction of several statements, which
	// begins on PostgreSQL by setting its actor (a single statement
	// carries it).
	inTx bool
	// notes: the write changes a searched attribute, and on SQLite one more
	// statement writes the full-text index from its triggers' notes
	// (storage/searchpending.go); a create writes it in its own statement.
	notes bool
	why   string // what they are
	shows string // a body path that must hold a value, or ""
}

// TestQueriesPerWrite bounds what a create and an update of one account cost
// the database (issue 16: a write at 0.6 of one INSERT ... RETURNING in a
// transaction): the record is read back by its own INSERT or UPDATE, which
// also records its change event (issue 19; SQLite: through its note
// trigger), a write of one statement is its own transaction (no BEGIN, no
// COMMIT), the linkage the request wrote is not read again, relationships to one type
// are checked in one query, and the caller's organization in none. Each
// answer's data must be what a GET of the record answers afterwards.
func TestQueriesPerWrite(t *testing.T) {
	t.Parallel()
	cases := []writeCase{
		{name: "create", method: "POST", path: "/admin/api/accounts", status: 201,
			body: `{"data":{"type":"accounts","attributes":{"name":"A"}}}`,
			want: 1, why: "INSERT ... RETURNING with its event, a transaction of its own", shows: "data/relationships/contacts/data"},
		{name: "create with relationships", method: "POST", path: "/admin/api/accounts", status: 201,
			body: `{"data":{"type":"accounts","attributes":{"name":"B"},"relationships":{"owner":{"data":{"type":"users","id":"1"}},` +
				`"organization":{"data":{"type":"organizations","id":"1"}},"contacts":{"data":[{"type":"contacts","id":"2"},{"type":"contacts","id":"1"},{"type":"contacts","id":"2"}]},` +
				`"defaultContact":{"data":{"type":"contacts","id":"1"}}}}}`,
			want: 7, notes: true, inTx: true, why: "users exist + contacts exist + BEGIN + INSERT ... RETURNING + contacts INSERT + its event + COMMIT",
			shows: "data/relationships/contacts/data/1/id"},
		{name: "update", method: "PATCH", path: "/admin/api/accounts/1", status: 200,
			body: `{"data":{"type":"accounts","id":"1","attributes":{"name":"C"}}}`,
			want: 1, notes: true, why: "UPDATE ... RETURNING with its event, a transaction of its own, the contacts linkage (not sent, so unknown) a subquery of its RETURNING",
			shows: "data/relationships/contacts/data/0/id"},
		{name: "update with relationships", method: "PATCH", path: "/admin/api/accounts/1", status: 200,
			body: `{"data":{"type":"accounts","id":"1","attributes":{"name":"D"},"relationships":{"owner":{"data":{"type":"users","id":"2"}},` +
				`"contacts":{"data":[{"type":"contacts","id":"2"}]}}}}`,
			want: 8, notes: true, inTx: true, why: "users exist + contacts exist + BEGIN + UPDATE ... RETURNING + contacts DELETE + contacts INSERT + its event + COMMIT",
			shows: "data/relationships/contacts/data/0/id"},
		{name: "update of a missing record", method: "PATCH", path: "/admin/api/accounts/999", status: 404,
			body: `{"data":{"type":"accounts","id":"999","attributes":{"name":"E"}}}`,
			want: 1, why: "UPDATE ... RETURNING (no row)"},
		{name: "update of a missing record naming a missing user", method: "PATCH", path: "/admin/api/accounts/999", status: 404,
			body: `{"data":{"type":"accounts","id":"999","relationships":{"owner":{"data":{"type":"users","id":"999"}}}}}`,
			want: 2, why: "users exist + the record (404 comes first, as when it was read first)"},
	}
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			store := storagetest.Open(t, dialect)
			seedCRM(t, store, 2, 2, 2)
			counter := &queryCounter{}
			store.AddStatementHook(counter)
			// No batch workers: their housekeeping would be counted too.
			a := newAPIWith(t, store, func(c *server.Config) { c.Jobs.NoWorkers = true })
			// Authentication costs queries only until the caller is cached: warm it up.
			a.do("GET", "/admin/api/organizations", jsonAPI, "").want(t, 200)
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) {
					sub := *a
					sub.t = t
					var r *result
					queries := counter.during(func() { r = sub.do(tc.method, tc.path, jsonAPI, tc.body).want(t, tc.status) })
					want, why := tc.want, tc.why
					if tc.notes && dialect == "sqlite" {
						want, why = want+1, why+" + the full-text index from its notes"
					}
					if tc.inTx && dialect == "postgres" {
						want, why = want+1, why+" + who writes, for the audit triggers (storage/audit.go)"
					}
					t.Logf("statements: %d (%s)", len(queries), why)
					if len(queries) != want {
						t.Errorf("%s %s: %d statements, want %d (%s):\n%s", tc.method, tc.path, len(queries), want, why, listQueries(queries))
					}
					if tc.shows != "" && r.value(tc.shows) == nil {
						t.Errorf("nothing at %s\n%.400s", tc.shows, r.body)
					}
					if tc.status >= 300 {
						return
					}
					id, _ := r.value("data/id").(string)
					again := sub.do("GET", "/admin/api/accounts/"+id, jsonAPI, "").want(t, 200)
					if !reflect.DeepEqual(r.value("data"), again.value("data")) {
						t.Errorf("the answer is not the record as read:\nwrite: %s\nread:  %s", jsonOf(r.value("data")), jsonOf(again.value("data")))
					}
				})
			}
		})
	}
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return strings.TrimSpace(string(b))
}
