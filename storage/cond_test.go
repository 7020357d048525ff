package storage_test

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// base is the created_at of the first fixture account; the others follow
// an hour apart.
var base = time.Date(2024, 3, 1, 8, 0, 0, 0, time.UTC)

// fixtureNames are the accounts' names in insertion (and id) order. They
// hold the LIKE specials %, _, \ and the escape character !, and a capital
// letter to show that matching is case-sensitive.
var fixtureNames = []string{"alpha", "beta", "gamma", "50% off", "under_score", `back\slash`, "wow!", "Alpha caps"}

// fixtureExternal are the accounts' external ids, nil for NULL.
var fixtureExternal = []any{"E-1", "E-2", nil, "E-4", nil, "E-6", "E-7", nil}

// fixtures inserts the accounts and returns their ids by name.
func fixtures(t *testing.T, s *storage.Store) map[string]int64 {
	t.Helper()
	ids := map[string]int64{}
	accounts := storagetest.Table(t, s, "accounts")
	for i, name := range fixtureNames {
		key, err := s.Insert(context.Background(), accounts, 1, storage.Row{
			"name": name, "external_id": fixtureExternal[i], "created_at": base.Add(time.Duration(i) * time.Hour),
		})
		if err != nil {
			t.Fatalf("insert %s: %v", name, err)
		}
		ids[name] = key.(int64)
	}
	return ids
}

// names runs a query and returns the names found, in result order.
func names(t *testing.T, s *storage.Store, q storage.Query) []string {
	t.Helper()
	rows, err := s.Find(context.Background(), q)
	if err != nil {
		t.Fatalf("Find: %v", err)
	}
	out := []string{}
	for _, r := range rows {
		out = append(out, r["name"].(string))
	}
	return out
}

func TestConditions(t *testing.T) {
	t.Parallel()
	at := func(h int) time.Time { return base.Add(time.Duration(h) * time.Hour) }
	berlin := time.FixedZone("CET", 3600)
	all := fixtureNames
	tests := []struct {
		name string
		cond func(ids map[string]int64) storage.Cond
		want []string
	}{
		{"eq string", str("name", storage.Eq, "beta"), []string{"beta"}},
		{"eq list", str("name", storage.Eq, "gamma", "alpha", "nope"), []string{"alpha", "gamma"}},
		{"eq empty list", str("name", storage.Eq), []string{}},
		{"eq with null", str("external_id", storage.Eq, "E-1", nil), []string{"alpha", "gamma", "under_score", "Alpha caps"}},
		{"neq string", str("name", storage.Neq, "beta"), without(all, "beta")},
		{"neq list", str("name", storage.Neq, "beta", "gamma"), without(all, "beta", "gamma")},
		{"neq empty list", str("name", storage.Neq), all},
		{"neq skips null", str("external_id", storage.Neq, "E-1"), []string{"beta", "50% off", `back\slash`, "wow!"}},
		{"neq or null", str("external_id", storage.NeqOrNull, "E-1", "E-2"), without(all, "alpha", "beta")},
		{"exists", str("external_id", storage.Exists), []string{"alpha", "beta", "50% off", `back\slash`, "wow!"}},
		{"not exists", str("external_id", storage.NotExists), []string{"gamma", "under_score", "Alpha caps"}},
		{"lt string", str("name", storage.Lt, "b"), []string{"alpha", "50% off", "Alpha caps"}},
		{"contains %", str("name", storage.Contains, "%"), []string{"50% off"}},
		{"contains _", str("name", storage.Contains, "_"), []string{"under_score"}},
		{`contains \`, str("name", storage.Contains, `\`), []string{`back\slash`}},
		{"contains !", str("name", storage.Contains, "!"), []string{"wow!"}},
		{"contains is case-sensitive", str("name", storage.Contains, "lph"), []string{"alpha", "Alpha caps"}},
		{"not contains", str("name", storage.NotContains, "a"), []string{"50% off", "under_score", "wow!"}},
		{"starts with", str("name", storage.StartsWith, "al"), []string{"alpha"}},
		{"not starts with", str("name", storage.NotStartsWith, "a"), without(all, "alpha")},
		{"ends with", str("name", storage.EndsWith, "ta"), []string{"beta"}},
		{"ends with %", str("name", storage.EndsWith, "%"), []string{}},
		{"not ends with", str("name", storage.NotEndsWith, "a"), without(all, "alpha", "beta", "gamma")},
		{"eq int", idCond(storage.Eq, "beta"), []string{"beta"}},
		{"lt int", idCond(storage.Lt, "gamma"), []string{"alpha", "beta"}},
		{"lte int", idCond(storage.Lte, "beta"), []string{"alpha", "beta"}},
		{"gt int", idCond(storage.Gt, "wow!"), []string{"Alpha caps"}},
		{"gte int", idCond(storage.Gte, "wow!"), []string{"wow!", "Alpha caps"}},
		{"range int", idCond(storage.Range, "beta", "50% off"), []string{"beta", "gamma", "50% off"}},
		{"not range int", idCond(storage.NotRange, "beta", "wow!"), []string{"alpha", "Alpha caps"}},
		{"eq time", timeCond(storage.Eq, at(2)), []string{"gamma"}},
		{"eq time other zone", timeCond(storage.Eq, at(2).In(berlin)), []string{"gamma"}},
		{"neq time", timeCond(storage.Neq, at(0), at(7)), without(all, "alpha", "Alpha caps")},
		{"lt time", timeCond(storage.Lt, at(1)), []string{"alpha"}},
		{"lte time", timeCond(storage.Lte, at(1)), []string{"alpha", "beta"}},
		{"gt time", timeCond(storage.Gt, at(6)), []string{"Alpha caps"}},
		{"gte time", timeCond(storage.Gte, at(6).In(berlin)), []string{"wow!", "Alpha caps"}},
		{"gte time fraction", timeCond(storage.Gte, at(6).Add(500*time.Millisecond)), []string{"Alpha caps"}},
		{"lt time fraction", timeCond(storage.Lt, at(1).Add(time.Millisecond)), []string{"alpha", "beta"}},
		{"range time", timeCond(storage.Range, at(1), at(3)), []string{"beta", "gamma", "50% off"}},
		{"not range time", timeCond(storage.NotRange, at(1), at(6)), []string{"alpha", "Alpha caps"}},
		{"exists time", timeCond(storage.Exists), all},
	}
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ids := fixtures(t, s)
		accounts := storagetest.Table(t, s, "accounts")
		gamma, err := s.Get(context.Background(), accounts, 1, ids["gamma"])
		if err != nil {
			t.Fatal(err)
		}
		if got := gamma["created_at"].(time.Time); got != at(2) {
			t.Errorf("created_at reads back as %v, want %v", got, at(2))
		}
		for _, tc := range tests {
			got := names(t, s, storage.Query{Table: accounts, Org: 1, Where: []storage.Cond{tc.cond(ids)}})
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
			}
			n, err := s.Count(context.Background(), storage.Query{Table: accounts, Org: 1, Where: []storage.Cond{tc.cond(ids)}})
			if err != nil || n != len(tc.want) {
				t.Errorf("%s: Count = %d, %v; want %d", tc.name, n, err, len(tc.want))
			}
		}
		// Conditions combine with AND and never see another organization.
		got := names(t, s, storage.Query{Table: accounts, Org: 1, Where: []storage.Cond{
			{Column: "name", Op: storage.Contains, Values: []any{"a"}},
			{Column: "external_id", Op: storage.Exists},
		}})
		if want := []string{"alpha", "beta", `back\slash`}; !reflect.DeepEqual(got, want) {
			t.Errorf("two conditions: got %q, want %q", got, want)
		}
		if got := names(t, s, storage.Query{Table: accounts, Org: 2}); len(got) != 0 {
			t.Errorf("organization 2 sees %q", got)
		}
	})
}

func TestConditionErrors(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		accounts := storagetest.Table(t, s, "accounts")
		// organization_id is a condition column of scoped tables only.
		if _, err := s.Find(context.Background(), storage.Query{Table: storagetest.Table(t, s, "countries"),
			Where: []storage.Cond{{Column: "organization_id", Op: storage.Eq, Values: []any{int64(1)}}}}); err == nil {
			t.Error("organization_id accepted on countries")
		}
		for _, c := range []storage.Cond{
			{Column: "organization_id", Op: storage.Eq, Values: []any{"1"}},
			{Column: "name", Op: storage.Empty, Values: []any{"x"}},
			{Column: "name; DROP TABLE accounts", Op: storage.Eq, Values: []any{"x"}},
			{Column: "name", Op: storage.Lt, Values: []any{"a", "b"}},
			{Column: "name", Op: storage.Range, Values: []any{"a"}},
			{Column: "name", Op: storage.Exists, Values: []any{"a"}},
			{Column: "name", Op: storage.Eq, Values: []any{int64(1)}},
			{Column: "id", Op: storage.Contains, Values: []any{"1"}},
			{Column: "name", Op: storage.Lt, Values: []any{nil}},
			{Column: "created_at", Op: storage.Gt, Values: []any{"2024-01-01"}},
		} {
			if _, err := s.Find(context.Background(), storage.Query{Table: accounts, Org: 1, Where: []storage.Cond{c}}); err == nil {
				t.Errorf("condition %+v accepted", c)
			}
		}
		for _, col := range []string{"nope", "organization_id"} {
			if _, err := s.Find(context.Background(), storage.Query{Table: accounts, Org: 1,
				OrderBy: []storage.Order{{Column: col}}}); err == nil {
				t.Errorf("ordering by %s accepted", col)
			}
		}
	})
}

func TestOrderAndPaging(t *testing.T) {
	t.Parallel()
	// Capitals sort differently under the databases' collations, so the
	// ordering cases leave "Alpha caps" out.
	lower := storage.Cond{Column: "name", Op: storage.Neq, Values: []any{"Alpha caps"}}
	tests := []struct {
		name  string
		order []storage.Order
		limit int
		skip  int
		want  []string
	}{
		{"default is key order", nil, 0, 0, []string{"alpha", "beta", "gamma", "50% off", "under_score", `back\slash`, "wow!"}},
		{"by name", []storage.Order{{Column: "name"}}, 0, 0, []string{"50% off", "alpha", `back\slash`, "beta", "gamma", "under_score", "wow!"}},
		{"by name desc", []storage.Order{{Column: "name", Desc: true}}, 3, 0, []string{"wow!", "under_score", "gamma"}},
		{"nulls last, then key", []storage.Order{{Column: "external_id"}}, 0, 0, []string{"alpha", "beta", "50% off", `back\slash`, "wow!", "gamma", "under_score"}},
		{"nulls first when descending", []storage.Order{{Column: "external_id", Desc: true}}, 3, 0, []string{"gamma", "under_score", "wow!"}},
		{"by time desc", []storage.Order{{Column: "created_at", Desc: true}}, 2, 1, []string{`back\slash`, "under_score"}},
		{"page 2", []storage.Order{{Column: "name"}}, 3, 3, []string{"beta", "gamma", "under_score"}},
		{"last page", []storage.Order{{Column: "name"}}, 3, 6, []string{"wow!"}},
		{"offset without limit", []storage.Order{{Column: "id", Desc: true}}, 0, 5, []string{"beta", "alpha"}},
		{"beyond the end", nil, 10, 50, []string{}},
	}
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		fixtures(t, s)
		accounts := storagetest.Table(t, s, "accounts")
		for _, tc := range tests {
			got := names(t, s, storage.Query{Table: accounts, Org: 1, Where: []storage.Cond{lower},
				OrderBy: tc.order, Limit: tc.limit, Offset: tc.skip})
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
			}
		}
	})
}

func str(col string, op storage.Op, values ...any) func(map[string]int64) storage.Cond {
	return func(map[string]int64) storage.Cond { return storage.Cond{Column: col, Op: op, Values: values} }
}

func timeCond(op storage.Op, values ...time.Time) func(map[string]int64) storage.Cond {
	vs := make([]any, len(values))
	for i, v := range values {
		vs[i] = v
	}
	return str("created_at", op, vs...)
}

// idCond compares the id with the ids of the named fixtures.
func idCond(op storage.Op, names ...string) func(map[string]int64) storage.Cond {
	return func(ids map[string]int64) storage.Cond {
		vs := make([]any, len(names))
		for i, n := range names {
			vs[i] = ids[n]
		}
		return storage.Cond{Column: "id", Op: op, Values: vs}
	}
}

func without(all []string, drop ...string) []string {
	out := []string{}
	for _, n := range all {
		keep := true
		for _, d := range drop {
			keep = keep && n != d
		}
		if keep {
			out = append(out, n)
		}
	}
	return out
}
