package storage_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestReadsAlikeInAndOutOfTx reads the same rows outside a transaction (on
// PostgreSQL through pgx itself) and inside one (through database/sql) and
// wants the very same values, Go types included: every kind, and NULLs.
func TestReadsAlikeInAndOutOfTx(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		users := storagetest.Table(t, s, "users")
		login := time.Date(2024, 3, 1, 12, 30, 45, 0, time.UTC)
		a := user(t, s, 1, "alike", storage.Row{
			"birthday": time.Date(1990, 5, 17, 0, 0, 0, 0, time.UTC), "emails": json.RawMessage(`[{"email":"a@x.org"}]`),
			"last_login": login, "login_count": 7, "enabled": false,
		})
		b := user(t, s, 1, "bare", nil) // NULL birthday, emails, last_login
		q := storage.Query{Table: users, Org: 1, OrderBy: []storage.Order{{Column: "id"}}}
		type reads struct {
			rows    []storage.Row
			n       int
			linkage [][2]any
			pairs   [][2]any
			exist   []any
		}
		read := func(c *storage.Conn) (r reads) {
			var err error
			if r.rows, err = c.Find(ctx, q); err != nil {
				t.Fatal(err)
			}
			if r.n, err = c.Count(ctx, q); err != nil {
				t.Fatal(err)
			}
			if r.linkage, err = c.Linkage(ctx, users, 1, "organization_id", []any{int64(1)}); err != nil {
				t.Fatal(err)
			}
			j, _ := s.JoinTable("user_userroles")
			if r.pairs, err = c.Pairs(ctx, j, "role_code", []any{"ROLE_USER", "ROLE_ADMINISTRATOR"}); err != nil {
				t.Fatal(err)
			}
			if r.exist, err = c.Existing(ctx, users, 1, "id", []any{a, b, int64(1 << 40)}); err != nil {
				t.Fatal(err)
			}
			return r
		}
		out := read(s.Conn)
		var in reads
		if err := s.Tx(ctx, func(c *storage.Conn) error { in = read(c); return nil }); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(out, in) {
			t.Errorf("outside a transaction:\n%#v\ninside one:\n%#v", out, in)
		}
		if len(out.rows) != 2 || out.n != 2 || len(out.exist) != 2 {
			t.Fatalf("read %d rows, count %d, %d existing; want 2 of each", len(out.rows), out.n, len(out.exist))
		}
		got, none := out.rows[0], out.rows[1]
		if got["last_login"] != login || got["login_count"] != int64(7) || got["enabled"] != false {
			t.Errorf("last_login %#v, login_count %#v, enabled %#v", got["last_login"], got["login_count"], got["enabled"])
		}
		sameJSON(t, got["emails"], `[{"email":"a@x.org"}]`)
		for _, col := range []string{"birthday", "emails", "last_login"} {
			if v, ok := none[col]; !ok || v != nil {
				t.Errorf("NULL %s reads as %#v (present %v)", col, v, ok)
			}
		}
	})
}
