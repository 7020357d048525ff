package storage_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestListsKeepTheirKind holds lists of values (one JSON array read with
// json_each on SQLite, one array parameter on PostgreSQL) to the matches of
// their values one by one: integers, text with JSON's specials and non-ASCII
// letters, and times in other zones and with fractions, which SQLite
// compares as the text it stores.
func TestListsKeepTheirKind(t *testing.T) {
	t.Parallel()
	at := func(h int) time.Time { return base.Add(time.Duration(h) * time.Hour) }
	tokyo := time.FixedZone("JST", 9*3600)
	all := append(fixtureNames, `say "hi"`, "ünïcode <&>")
	// Lists long enough to be more than a few marks, padded with values
	// that match nothing.
	pad := func(vals ...any) []any {
		for i := range 300 {
			vals = append(vals, "nope "+string(rune('a'+i%26))+string(rune('a'+i/26)))
		}
		return vals
	}
	tests := []struct {
		name string
		cond func(ids map[string]int64) storage.Cond
		want []string
	}{
		{"text", str("name", storage.Eq, pad(`back\slash`, `say "hi"`, "ünïcode <&>", "50% off")...),
			[]string{"50% off", `back\slash`, `say "hi"`, "ünïcode <&>"}},
		{"text not", str("name", storage.Neq, pad(`back\slash`, `say "hi"`)...), without(all, `back\slash`, `say "hi"`)},
		{"text number-like", str("name", storage.Eq, "1", "2"), []string{}},
		{"text or null", str("external_id", storage.NeqOrNull, pad("E-1", "E-2")...), without(all, "alpha", "beta")},
		{"int", idCond(storage.Eq, "beta", "wow!", `say "hi"`), []string{"beta", "wow!", `say "hi"`}},
		{"int not", idCond(storage.Neq, "beta", "wow!", "alpha"), without(all, "alpha", "beta", "wow!")},
		{"time", timeCond(storage.Eq, at(1), at(2).In(tokyo), at(3).Add(time.Second), at(6)), []string{"beta", "gamma", "wow!"}},
		{"time fraction", timeCond(storage.Eq, at(1).Add(time.Millisecond), at(4)), []string{"under_score"}},
		{"time not", timeCond(storage.Neq, at(0).In(tokyo), at(7)), without(all, "alpha", "Alpha caps")},
	}
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ids := fixtures(t, s)
		ids[`say "hi"`] = insert(t, s, "accounts", 1, storage.Row{"name": `say "hi"`, "created_at": at(8)})
		ids["ünïcode <&>"] = insert(t, s, "accounts", 1, storage.Row{"name": "ünïcode <&>", "created_at": at(9)})
		accounts := storagetest.Table(t, s, "accounts")
		for _, tc := range tests {
			got := names(t, s, storage.Query{Table: accounts, Org: 1, Where: []storage.Cond{tc.cond(ids)}})
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
			}
		}
	})
}
