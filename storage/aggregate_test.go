package storage_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestAggregate: both databases hand back the same values and Go types for
// every function (an integer sum as an int64, an average as a float64, a
// time as a time), in and out of a transaction; counts leave NULL out and
// order by frequency then value; the organization and the conditions bound
// the rows; a function the column's kind has no meaning for is refused
// before any SQL runs.
func TestAggregate(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		users := storagetest.Table(t, s, "users")
		early := time.Date(2024, 3, 1, 12, 30, 45, 0, time.UTC)
		late := early.Add(50 * time.Hour)
		user(t, s, 1, "agg-a", storage.Row{"login_count": 3, "last_login": late, "birthday": time.Date(1990, 5, 17, 0, 0, 0, 0, time.UTC), "enabled": false})
		user(t, s, 1, "agg-b", storage.Row{"login_count": 4, "last_login": early, "enabled": true})
		user(t, s, 1, "agg-c", storage.Row{"login_count": 4, "enabled": true})
		user(t, s, 1, "other", storage.Row{"login_count": 100})
		elsewhere := insert(t, s, "organizations", 0, storage.Row{"name": "Elsewhere"})
		user(t, s, elsewhere, "agg-elsewhere", storage.Row{"login_count": 1000})
		q := storage.Query{Table: users, Org: 1, Limit: 1, Offset: 1, // ignored
			Where: []storage.Cond{{Column: "username", Op: storage.StartsWith, Values: []any{"agg-"}}}}
		terms := []storage.AggTerm{
			{Column: "login_count", Func: storage.AggSum}, {Column: "login_count", Func: storage.AggAvg},
			{Column: "login_count", Func: storage.AggMin}, {Column: "last_login", Func: storage.AggMax},
			{Column: "last_login", Func: storage.AggMin}, {Column: "login_count", Func: storage.AggCount},
			{Column: "enabled", Func: storage.AggCount}, {Column: "birthday", Func: storage.AggCount},
		}
		want := []any{int64(11), 11.0 / 3, int64(3), late, early,
			[]storage.ValueCount{{Value: int64(4), Count: 2}, {Value: int64(3), Count: 1}},
			[]storage.ValueCount{{Value: true, Count: 2}, {Value: false, Count: 1}},
			[]storage.ValueCount{{Value: time.Date(1990, 5, 17, 0, 0, 0, 0, time.UTC), Count: 1}},
		}
		for _, within := range []bool{false, true} {
			var got []any
			read := func(c *storage.Conn) (err error) { got, err = c.Aggregate(ctx, q, terms, 10); return err }
			var err error
			if within {
				err = s.Atomic(ctx, read)
			} else {
				err = read(s.Conn)
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("in a transaction %v:\n got %#v\nwant %#v", within, got, want)
			}
		}
		none := q
		none.Where = []storage.Cond{{Column: "username", Op: storage.Eq, Values: []any{"nobody"}}}
		got, err := s.Aggregate(ctx, none, terms[:6], 10)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, []any{nil, nil, nil, nil, nil, []storage.ValueCount(nil)}) {
			t.Errorf("over no row: %#v", got)
		}
		got, err = s.Aggregate(ctx, storage.Query{Table: users, Org: 1}, []storage.AggTerm{{Column: "login_count", Func: storage.AggCount}}, 1)
		if err != nil || !reflect.DeepEqual(got, []any{[]storage.ValueCount{{Value: int64(4), Count: 2}}}) {
			t.Errorf("a count capped at 1: %#v (%v)", got, err)
		}
		for _, bad := range []storage.AggTerm{
			{Column: "username", Func: storage.AggSum}, {Column: "enabled", Func: storage.AggMax},
			{Column: "emails", Func: storage.AggCount}, {Column: "no_such", Func: storage.AggMin},
		} {
			before := s.Statements()
			if _, err := s.Aggregate(ctx, q, []storage.AggTerm{bad}, 10); err == nil || !strings.Contains(err.Error(), bad.Column) {
				t.Errorf("%+v: error %v, want one naming the column", bad, err)
			}
			if s.Statements() != before {
				t.Errorf("%+v: a statement ran", bad)
			}
		}
	})
}
