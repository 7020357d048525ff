package storage_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestViaPlansRunOnce holds conditions on related rows to plans whose cost
// grows with the rows and keys once, not with their product: no subquery that
// the database runs again for each row of the queried table. SQLite reruns a
// correlated subquery, IN list included, for every row, and probes every key
// for every row when it turns EXISTS into a join: `accounts?filter
// [contacts]=<5,000 ids>` over 20,000 accounts took 223 s (issue 15).
// PostgreSQL decorrelates [NOT] EXISTS into joins; a plain (not hashed)
// SubPlan is its per-row form.
func TestViaPlansRunOnce(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		accounts, units := storagetest.Table(t, s, "accounts"), storagetest.Table(t, s, "businessunits")
		contactsOf := &storage.Via{Table: "account_contacts", Column: "account_id", Target: "contact_id"}
		usersOf := &storage.Via{Table: "users", Column: "owner_id", Target: "id"}
		referred := &storage.Via{Table: "accounts", Column: "referred_by_id", Target: "id"}
		many := make([]any, 300)
		for i := range many {
			many[i] = int64(i + 1)
		}
		tests := []struct {
			name  string
			table *storage.Table
			cond  storage.Cond
		}{
			{"join table eq", accounts, storage.Cond{Via: contactsOf, Op: storage.Eq, Values: many}},
			{"join table neq", accounts, storage.Cond{Via: contactsOf, Op: storage.Neq, Values: many}},
			{"join table neq or null", accounts, storage.Cond{Via: contactsOf, Op: storage.NeqOrNull, Values: many}},
			{"join table contains", accounts, storage.Cond{Via: contactsOf, Op: storage.Contains, Values: many}},
			{"join table not contains", accounts, storage.Cond{Via: contactsOf, Op: storage.NotContains, Values: many}},
			{"foreign key eq", units, storage.Cond{Via: usersOf, Op: storage.Eq, Values: many}},
			{"foreign key neq", units, storage.Cond{Via: usersOf, Op: storage.Neq, Values: many}},
			{"same table eq", accounts, storage.Cond{Via: referred, Op: storage.Eq, Values: many}},
			{"same table neq", accounts, storage.Cond{Via: referred, Op: storage.Neq, Values: many}},
		}
		for _, tc := range tests {
			q := storage.Query{Table: tc.table, Org: 1, Where: []storage.Cond{tc.cond}, Limit: 10}
			plan, err := s.ExplainFind(context.Background(), q)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			if perRow(plan, tc.cond.Via.Column) {
				t.Errorf("%s: a subquery runs once per row:\n%s", tc.name, plan)
			}
		}
	})
}

var subPlan = regexp.MustCompile(`SubPlan \d+`)

// perRow tells whether a plan runs a subquery, or a search of the related
// table, once per row of the queried table: a CORRELATED subquery (SQLite), a
// search of the related rows by their reference to that row (SQLite's
// "(account_id=? AND contact_id=?)", which an EXISTS turned into a join probes
// for every row and every key), or a PostgreSQL SubPlan that is never used
// hashed (a hashed SubPlan is built once and probed).
func perRow(plan, column string) bool {
	if strings.Contains(plan, "CORRELATED") || strings.Contains(plan, "("+column+"=?") {
		return true
	}
	for _, sp := range subPlan.FindAllString(plan, -1) {
		if !strings.Contains(plan, "hashed "+sp) {
			return true
		}
	}
	return false
}

// TestOptimizeKeepsPlansOnKeys: with planner statistics (Optimize, run by the
// housekeeping) SQLite reads the related records of a page by their keys;
// without them it took organization_id for a selective index and scanned and
// sorted the whole organization for each include path segment (issue 15). On
// PostgreSQL Optimize analyzes grown tables (server/growth_plans_test.go
// holds its plans).
func TestOptimizeKeepsPlansOnKeys(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		accounts, contacts := storagetest.Table(t, s, "accounts"), storagetest.Table(t, s, "contacts")
		rows := make([]storage.Row, 4000)
		for i := range rows {
			rows[i] = storage.Row{"name": "a"}
		}
		acc, err := s.InsertMany(ctx, accounts, 1, rows)
		if err != nil {
			t.Fatal(err)
		}
		con, err := s.InsertMany(ctx, contacts, 1, make([]storage.Row, 1000))
		if err != nil {
			t.Fatal(err)
		}
		var pairs [][2]any
		for i, c := range con {
			for k := range 4 {
				pairs = append(pairs, [2]any{acc[i+k*len(con)], c})
			}
		}
		if err := s.Link(ctx, joinTable(t, s, "account_contacts"), pairs); err != nil {
			t.Fatal(err)
		}
		if err := s.Optimize(ctx); err != nil {
			t.Fatal(err)
		}
		if s.Dialect() != "sqlite" {
			return
		}
		contactsOf := &storage.Via{Table: "account_contacts", Column: "account_id", Target: "contact_id"}
		q := storage.Query{Table: accounts, Org: 1, Where: []storage.Cond{{Via: contactsOf, Op: storage.Eq, Values: con[:500]}}}
		plan, err := s.ExplainFind(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(plan, "SEARCH accounts USING INTEGER PRIMARY KEY") {
			t.Errorf("the related accounts are not read by their keys:\n%s", plan)
		}
	})
}

// TestPagesComeInKeyOrder: a page of a scoped table in key order, and the
// accounts of a page of contacts, are read from an index in order: no
// sort of every row of the organization to return a page (SQLite sorted the
// whole organization's contacts before migration 0008; issue 16).
func TestPagesComeInKeyOrder(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		if s.Dialect() != "sqlite" {
			return // PostgreSQL's plan depends on its statistics of a small table; the index serves it likewise
		}
		ctx := context.Background()
		contacts := storagetest.Table(t, s, "contacts")
		if _, err := s.InsertMany(ctx, contacts, 1, make([]storage.Row, 500)); err != nil {
			t.Fatal(err)
		}
		if err := s.Optimize(ctx); err != nil {
			t.Fatal(err)
		}
		page, err := s.ExplainFind(ctx, storage.Query{Table: contacts, Org: 1, Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(page, "TEMP B-TREE") {
			t.Errorf("a page of contacts sorts the organization's rows:\n%s", page)
		}
		plan, err := s.ExplainPairs(ctx, joinTable(t, s, "account_contacts"), "contact_id", []any{int64(1), int64(2), int64(3)})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(plan, "COVERING INDEX") || strings.Contains(plan, "TEMP B-TREE") {
			t.Errorf("the accounts of contacts are not read from a covering index in order:\n%s", plan)
		}
	})
}
