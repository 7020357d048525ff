package sqlite

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// openFile opens a new SQLite file of the test's and returns its path, for
// a test that reads the file's log or shared memory and closes d itself
// (the order of the closes is what it checks).
func openFile(t *testing.T) (d *DB, path string) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "t.db")
	d, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return d, path
}

// open is a SQLite file of the test's with two tables, a parent and its
// child.
func open(t *testing.T) *DB {
	t.Helper()
	d, err := Open(filepath.Join(t.TempDir(), "t.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	for _, q := range []string{
		"CREATE TABLE parents (id INTEGER PRIMARY KEY, org INTEGER, code TEXT, UNIQUE (org, code))",
		"CREATE TABLE children (id INTEGER PRIMARY KEY, parent INTEGER REFERENCES parents (id))",
		"INSERT INTO parents (id, org, code) VALUES (1, 1, 'a')",
	} {
		if _, err := d.DB().Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	return d
}

func TestErrors(t *testing.T) {
	t.Parallel()
	d := open(t)
	tests := []struct {
		name       string
		stmt       string
		table      string
		columns    []string
		unique, fk bool
		constraint bool
	}{
		{"unique", "INSERT INTO parents (org, code) VALUES (1, 'a')", "parents", []string{"org", "code"}, true, false, true},
		{"primary key", "INSERT INTO parents (id) VALUES (1)", "parents", []string{"id"}, true, false, true},
		{"foreign key", "INSERT INTO children (parent) VALUES (9)", "", nil, false, true, true},
		{"syntax", "INSERT INTO", "", nil, false, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := d.DB().Exec(tt.stmt)
			if err == nil {
				t.Fatal("no error")
			}
			table, cols, ok := d.Unique(err)
			if table != tt.table || !reflect.DeepEqual(cols, tt.columns) || ok != tt.unique {
				t.Errorf("Unique = %q, %q, %v; want %q, %q, %v", table, cols, ok, tt.table, tt.columns, tt.unique)
			}
			if got := d.ForeignKey(err); got != tt.fk {
				t.Errorf("ForeignKey = %v, want %v", got, tt.fk)
			}
			if got := d.Constraint(err); got != tt.constraint {
				t.Errorf("Constraint = %v, want %v", got, tt.constraint)
			}
		})
	}
	if _, _, ok := d.Unique(errors.New("UNIQUE constraint failed: a.b")); ok {
		t.Error("Unique took a message for SQLite's error")
	}
}

func TestTimesAreWrittenInTimeLayout(t *testing.T) {
	t.Parallel()
	d := open(t)
	var got string
	q := d.DB().NewSelect().ColumnExpr("?", mustTime(t, "2026-01-02T03:04:05+02:00"))
	if err := q.Scan(context.Background(), &got); err != nil {
		t.Fatal(err)
	}
	if got != "2026-01-02 01:04:05" {
		t.Errorf("a time is written as %q, want UTC in TimeLayout", got)
	}
}

func TestDSN(t *testing.T) {
	t.Parallel()
	for path, want := range map[string]string{
		"a/b.db":   "file:a/b.db?",
		"a?%#b.db": "file:a%3f%25%23b.db?",
		":memory:": "file::memory:?",
	} {
		if got := DSN(path); !strings.HasPrefix(got, want) || !strings.HasSuffix(got, pragmas) {
			t.Errorf("DSN(%q) = %q, want %q + pragmas", path, got, want)
		}
	}
}

func TestSideDBAndBulkOfAFile(t *testing.T) {
	t.Parallel()
	d := open(t)
	if d.Bulk() == nil {
		t.Fatal("a file has no bulk connection")
	}
	slot := make(chan struct{}, 1)
	side, own, err := d.SideDB(func(ctx context.Context) (func(), error) {
		select {
		case slot <- struct{}{}:
			return func() { <-slot }, nil
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	})
	if err != nil || !own {
		t.Fatalf("SideDB: own %v, %v", own, err)
	}
	defer side.Close()
	slot <- struct{}{} // the store writing
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := side.ExecContext(ctx, "INSERT INTO parents (org, code) VALUES (2, 'b')"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a side statement beside a writer: %v, want to wait for the slot", err)
	}
	<-slot
	if _, err := side.ExecContext(context.Background(), "INSERT INTO parents (org, code) VALUES (2, 'b')"); err != nil {
		t.Fatal(err)
	}
}

func TestMemoryHasNoBulkAndSharesItsConnection(t *testing.T) {
	t.Parallel()
	d, err := Open(":memory:", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if d.Bulk() != nil {
		t.Error(":memory: has a bulk connection")
	}
	side, own, err := d.SideDB(nil)
	if err != nil || own || side != d.DB().DB {
		t.Errorf("SideDB of :memory: = own %v, %v; want the store's", own, err)
	}
	if err := d.Renew(context.Background()); err != nil {
		t.Error(err)
	}
}

func TestDescription(t *testing.T) {
	t.Parallel()
	d := &DB{}
	if d.Name() != "sqlite" || d.Types().Postgres || !d.Features().OneWriter || d.Features().OwnTxConn {
		t.Errorf("Name %q, Types %+v, Features %+v", d.Name(), d.Types(), d.Features())
	}
}

func mustTime(t *testing.T, s string) time.Time {
	t.Helper()
	tm, err := time.Parse(time.RFC3339, s)
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

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
