package sqlite

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func TestJSONList(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.FixedZone("x", 3600))
	tests := []struct {
		name string
		vals []any
		want string
		ok   bool
	}{
		{"integers", []any{int64(1), int64(-20)}, "[1,-20]", true},
		{"text", []any{"a", `b"c`}, `["a","b\"c"]`, true},
		{"times in the stored form", []any{at}, `["2026-03-04 04:06:07"]`, true},
		{"JSON and bytes as text", []any{json.RawMessage(`{"a":1}`), []byte("b")}, `["{\"a\":1}","b"]`, true},
		{"none", []any{}, "[]", true},
		{"a float", []any{1.5}, "", false},
		{"a boolean", []any{true}, "", false},
		{"not UTF-8", []any{"\xff"}, "", false},
		{"a NUL", []any{"a\x00"}, "", false},
		{"integers and text", []any{int64(1), "a"}, "", false},
	}
	for _, tc := range tests {
		got, ok := jsonList(tc.vals)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: jsonList = %q, %v; want %q, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// TestKeyListsOnSQLite runs the list conditions the features give on SQLite:
// json_each gives the array's values back as the table holds them.
func TestKeyListsOnSQLite(t *testing.T) {
	t.Parallel()
	d := open(t)
	if _, err := d.DB().Exec("INSERT INTO parents (id, org, code) VALUES (2, 1, 'b'), (3, 2, 'c')"); err != nil {
		t.Fatal(err)
	}
	arr, ok := jsonList([]any{"a", "c"})
	if !ok {
		t.Fatal("text does not fit a JSON array")
	}
	count := func(q string, args ...any) int {
		t.Helper()
		var n int
		if err := d.DB().QueryRow(q, args...).Scan(&n); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return n
	}
	cond := func(c string) string { return "SELECT count(*) FROM parents WHERE " + c }
	if n := count(cond("code IN (SELECT value FROM json_each(?))"), arr); n != 2 {
		t.Errorf("anyOf matched %d rows, want 2", n)
	}
	if n := count(cond("code NOT IN (SELECT value FROM json_each(?))"), arr); n != 1 {
		t.Errorf("noneOf matched %d rows, want 1", n)
	}
	if _, err := d.DB().Exec("INSERT INTO children (id, parent) VALUES (10, 1), (11, 2), (12, 3)"); err != nil {
		t.Fatal(err)
	}
	// keysIn's marks, but the array's, are identifiers the store quotes in.
	names := []string{"x", "parent", "", "children", "x", "x", "parent", "x", "parent", "x", "parent"}
	sub := keysIn
	for _, name := range names {
		if name != "" {
			sub = strings.Replace(sub, "?", `"`+name+`"`, 1)
		} else {
			sub = strings.Replace(sub, "?", "$keys", 1)
		}
	}
	keys, _ := jsonList([]any{int64(1), int64(3)})
	if n := count("SELECT count(*) FROM parents WHERE id "+strings.Replace(sub, "$keys", "?", 1), keys); n != 2 {
		t.Errorf("keysIn matched %d parents, want 2", n)
	}
	if n := count("SELECT count(*) FROM parents WHERE id NOT "+strings.Replace(sub, "$keys", "?", 1), keys); n != 1 {
		t.Errorf("NOT keysIn matched %d parents, want 1", n)
	}
}
