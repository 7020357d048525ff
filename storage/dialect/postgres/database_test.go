package postgres

import (
	"context"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// open is the database of TEST_DATABASE_URL with a table of the test's in a
// schema of its own, dropped afterwards. Without one the test is skipped on
// a developer's machine and fails in CI (CI=true), which must provide it.
func open(t *testing.T) (*DB, string) {
	t.Helper()
	url := os.Getenv("TEST_DATABASE_URL")
	if url == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI must set TEST_DATABASE_URL: the PostgreSQL dialect is tested on PostgreSQL")
		}
		t.Skip("the PostgreSQL dialect's tests need a PostgreSQL server: set TEST_DATABASE_URL")
	}
	ctx := context.Background()
	d, err := Open(ctx, url, "TEST_DATABASE_URL", Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })
	schema := fmt.Sprintf("dialect_test_%d", time.Now().UnixNano())
	table := schema + ".widgets"
	for _, q := range []string{
		"CREATE SCHEMA " + schema,
		"CREATE TABLE " + table + " (id BIGINT PRIMARY KEY, org BIGINT, code TEXT, CONSTRAINT " + schema + "_code UNIQUE (org, code))",
	} {
		if _, err := d.DB().ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _, _ = d.DB().ExecContext(context.Background(), "DROP SCHEMA "+schema+" CASCADE") })
	return d, schema
}

func TestUniqueReadsTheCatalogWithoutADetail(t *testing.T) {
	t.Parallel()
	d, schema := open(t)
	_, cols, ok := d.Unique(&pgconn.PgError{Code: "23505", ConstraintName: schema + "_code"})
	if !ok || !reflect.DeepEqual(cols, []string{"org", "code"}) {
		t.Errorf("Unique = %q, %v; want the constraint's columns", cols, ok)
	}
	if _, cols, _ := d.Unique(&pgconn.PgError{Code: "23505", ConstraintName: schema + "_none"}); cols == nil || len(cols) != 0 {
		t.Errorf("an unknown constraint's columns = %#v, want none", cols)
	}
}

func TestCopyFromAndPoolStats(t *testing.T) {
	t.Parallel()
	d, schema := open(t)
	ctx := context.Background()
	conn, err := d.DB().DB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET search_path TO "+schema); err != nil {
		t.Fatal(err)
	}
	if st := d.PoolStats(); st.MaxOpen < minPoolConns || st.InUse < 1 {
		t.Errorf("PoolStats = %+v, want the pool's size and this connection in use", st)
	}
	rows := [][]any{{int64(1), int64(1), "a"}, {int64(2), int64(1), "b"}}
	n, err := d.CopyFrom(ctx, conn, "widgets", []string{"id", "org", "code"}, rows)
	if err != nil || n != 2 {
		t.Fatalf("CopyFrom = %d, %v", n, err)
	}
	_, err = d.CopyFrom(ctx, conn, "widgets", []string{"id", "org", "code"}, rows)
	if _, _, ok := d.Unique(err); !ok {
		t.Errorf("copying the rows again: %v, want a unique violation", err)
	}
}

// TestAnyOfAndNoneOf runs the list conditions with one array parameter.
func TestAnyOfAndNoneOf(t *testing.T) {
	t.Parallel()
	d, schema := open(t)
	ctx := context.Background()
	if _, err := d.DB().ExecContext(ctx, "INSERT INTO "+schema+".widgets (id, org, code) VALUES (1, 1, 'a'), (2, 1, 'b'), (3, 1, 'c')"); err != nil {
		t.Fatal(err)
	}
	for cond, want := range map[string]int{features.AnyOf: 2, features.NoneOf: 1} {
		q := "SELECT count(*) FROM " + schema + ".widgets WHERE " + strings.Replace(strings.Replace(cond, "?", "code", 1), "?", "$1", 1)
		var n int
		if err := d.DB().DB.QueryRowContext(ctx, q, []string{"a", "c"}).Scan(&n); err != nil || n != want {
			t.Errorf("%s: %d rows, %v; want %d", cond, n, err, want)
		}
	}
}

// TestNextKeysLookUpTheSequenceOnce draws keys from a serial table's
// sequence and reads the statement's plan: the sequence is named by an
// InitPlan, run once, not per key (called per row, the lookup cost five
// times the keys themselves).
func TestNextKeysLookUpTheSequenceOnce(t *testing.T) {
	t.Parallel()
	d, schema := open(t)
	ctx := context.Background()
	table := schema + ".serials"
	if _, err := d.DB().ExecContext(ctx, "CREATE TABLE "+table+" (id BIGSERIAL PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	text := dollars(features.NextKeys)
	rows, err := d.DB().DB.QueryContext(ctx, text, table, "id", 3)
	if err != nil {
		t.Fatal(err)
	}
	var keys []int64
	for rows.Next() {
		var k int64
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(keys, []int64{1, 2, 3}) {
		t.Errorf("keys %v, want 1, 2, 3 from the fresh sequence", keys)
	}
	var plan strings.Builder
	prows, err := d.DB().DB.QueryContext(ctx, "EXPLAIN (VERBOSE, COSTS OFF) "+text, table, "id", 3)
	if err != nil {
		t.Fatal(err)
	}
	defer prows.Close()
	for prows.Next() {
		var line string
		if err := prows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		plan.WriteString(line + "\n")
	}
	if !strings.Contains(plan.String(), "InitPlan") {
		t.Errorf("the sequence is looked up per key; the plan:\n%s", plan.String())
	}
}
