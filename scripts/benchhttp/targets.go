package main

import (
	"net/http"
	"strconv"
)

// targetKind says what a target measures and which floors it has.
type targetKind int

const (
	readTarget  targetKind = iota // req/s; bytes floor and database floor; goal against the database floor
	writeTarget                   // req/s; write floor
	batchTarget                   // rows/s; raw multi-row INSERT (and COPY on PostgreSQL)
)

// target is one line of the table.
type target struct {
	name  string // for -targets
	label string
	kind  targetKind
	uri   string  // what wrk requests (PATCH: of the first account; see request)
	goal  float64 // least ratio of the service to its floor; 0: none (keyed: shown beside POST)
	// bytesGoal, when set, is the least ratio of the service to the bytes
	// floor, on a line of its own: a read of reference data the service
	// answers from memory (issue 34, item 1; docs/answers.md).
	bytesGoal float64
}

// The targets of issue 16, with the URLs of server/bench_test.go.
var targets = []target{
	{name: "one", label: "GET one country", kind: readTarget, uri: "/admin/api/countries/US", goal: 0.8, bytesGoal: 0.6},
	{name: "list", label: "GET list of 10 regions", kind: readTarget, uri: "/admin/api/regions?page[size]=10", goal: 0.8, bytesGoal: 0.6},
	{name: "filtered", label: "filtered + sorted list of 20 contacts", kind: readTarget,
		uri: "/admin/api/contacts?filter[lastName][starts_with]=L&sort=-createdAt,lastName&page[size]=20", goal: 0.8},
	{name: "related", label: "list of 20 contacts filtered on their owner's username", kind: readTarget,
		uri: "/admin/api/contacts?filter[owner.username]=crm3&page[size]=20", goal: 0.8},
	{name: "search", label: "GET /api/search of one word, a page of 20", kind: readTarget,
		uri: "/admin/api/search?filter[searchText]=smith&page[size]=20", goal: 0.8},
	{name: "include", label: "contacts?include=accounts,owner&page[size]=50", kind: readTarget,
		uri: "/admin/api/contacts?include=accounts,owner&page[size]=50", goal: 0.8},
	{name: "post", label: "POST create account", kind: writeTarget, uri: "/admin/api/accounts", goal: 0.6},
	// Issue 33: the cost of Idempotency-Key, each request with a key of its
	// own (the key held, the write and its answer in one transaction),
	// shown beside the POST without (its goal cell: keyed / POST) and
	// against the same write floor; no goal of its own.
	{name: "keyed", label: "POST create account with an Idempotency-Key", kind: writeTarget, uri: "/admin/api/accounts"},
	{name: "patch", label: "PATCH one account", kind: writeTarget, uri: "/admin/api/accounts/", goal: 0.6},
	{name: "batch", label: "async batch of %s accounts (first byte to success)", kind: batchTarget, goal: 0.5},
}

func targetNames() []string {
	names := make([]string, len(targets))
	for i, t := range targets {
		names[i] = t.name
	}
	return names
}

func targetByName(name string) *target {
	for i := range targets {
		if targets[i].name == name {
			return &targets[i]
		}
	}
	return nil
}

// postBody is the account every POST creates.
const postBody = `{"data":{"type":"accounts","attributes":{"name":"Bench account"}}}`

// request is what wrk sends for t; PATCH goes through the seeded accounts in
// turn (each wrk thread from another one), so that requests do not all wait
// for the lock of one row.
func (t target) request(token string, accounts []string) request {
	switch t.name {
	case "post":
		return request{method: http.MethodPost, token: token, bodies: []string{postBody}, targets: []string{t.uri}}
	case "keyed":
		return request{method: http.MethodPost, token: token, bodies: []string{postBody}, targets: []string{t.uri}, keyed: true}
	case "patch":
		r := request{method: http.MethodPatch, token: token}
		for _, id := range accounts {
			r.targets = append(r.targets, t.uri+id)
			r.bodies = append(r.bodies, patchBody(id))
		}
		return r
	}
	return request{method: http.MethodGet, token: token, targets: []string{t.uri}}
}

func patchBody(id string) string {
	return `{"data":{"type":"accounts","id":` + strconv.Quote(id) + `,"attributes":{"name":"Patched account"}}}`
}
