package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// TestUnavailable: a full disk (here a database held to two pages by
// max_page_count, SQLITE_FULL) is the file's condition; a constraint
// violation is the statement's fault.
func TestUnavailable(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	d, err := Open(filepath.Join(t.TempDir(), "full.db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	conn, err := d.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for _, q := range []string{"CREATE TABLE t (k TEXT PRIMARY KEY, v TEXT)", "INSERT INTO t VALUES ('a', 'x')"} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	_, dup := conn.ExecContext(ctx, "INSERT INTO t VALUES ('a', 'y')")
	if dup == nil || d.Unavailable(dup) {
		t.Errorf("a duplicate key: %v, Unavailable %v; want an error that is not unavailability", dup, d.Unavailable(dup))
	}
	if _, err := conn.ExecContext(ctx, "PRAGMA max_page_count = 3"); err != nil {
		t.Fatal(err)
	}
	_, full := conn.ExecContext(ctx, "INSERT INTO t VALUES ('b', ?)", strings.Repeat("x", 64<<10))
	if full == nil || !d.Unavailable(full) {
		t.Errorf("a full database: %v, Unavailable %v; want SQLITE_FULL read as unavailable", full, full != nil && d.Unavailable(full))
	}
}
