package storage_test

import (
	"context"
	"testing"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestLongArraysArePlannedForTheirValues checks, on PostgreSQL, that a
// statement whose array parameter is long is not kept prepared under a name
// (where PostgreSQL may settle on a generic plan costed for a short array:
// an include three steps deep took 4 s instead of 20 ms), while one with a
// short array is, so that pages of keys keep their prepared statement.
func TestLongArraysArePlannedForTheirValues(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		if s.Dialect() != "postgres" {
			return // SQLite has no plan cache of this kind: its lists are json_each
		}
		longArrays(t, s)
	})
}

func longArrays(t *testing.T, s *storage.Store) {
	ctx := context.Background()
	contacts := storagetest.Table(t, s, "contacts")
	var keys []any
	for i := range 200 {
		keys = append(keys, int64(i+1))
	}
	// The two texts differ in their condition's column, so that each can be
	// told apart in pg_prepared_statements.
	short := storage.Query{Table: contacts, Org: 1, Where: []storage.Cond{{Column: "owner_id", Op: storage.Eq, Values: keys[:3]}}}
	long := storage.Query{Table: contacts, Org: 1, Where: []storage.Cond{{Column: "reports_to_id", Op: storage.Eq, Values: keys}}}
	err := s.Tx(ctx, func(c *storage.Conn) error { // one connection for all
		for range 7 { // past the five runs after which a generic plan may be kept
			for _, q := range []storage.Query{short, long} {
				if _, err := c.Find(ctx, q); err != nil {
					return err
				}
			}
		}
		want := map[string]int{`"owner_id" = ANY`: 1, `"reports_to_id" = ANY`: 0, "": -1}
		if s.Pooler() == storage.PoolerTransaction {
			want = map[string]int{`"owner_id" = ANY`: 0, `"reports_to_id" = ANY`: 0, "": 0}
		}
		for part, want := range want {
			if want < 0 {
				continue
			}
			n, err := c.PreparedStatements(ctx, part)
			if err != nil {
				return err
			}
			if n != want {
				t.Errorf("%d named statements hold %s, want %d", n, part, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
