package storage_test

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

func TestInsertManyKeepsInputOrder(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		accounts := storagetest.Table(t, s, "accounts")
		// A row inserted first moves the sequence off its start.
		if _, err := s.Insert(ctx, accounts, 1, storage.Row{"name": "first"}); err != nil {
			t.Fatal(err)
		}
		const n = 1200
		rows := make([]storage.Row, n)
		for i := range rows {
			rows[i] = storage.Row{"name": fmt.Sprintf("bulk-%04d", i)}
			if i%3 == 0 { // a second column set, inserted by statements of its own
				rows[i]["external_id"] = fmt.Sprintf("X-%d", i)
			}
		}
		keys, err := s.InsertMany(ctx, accounts, 1, rows)
		if err != nil {
			t.Fatalf("InsertMany: %v", err)
		}
		if len(keys) != n {
			t.Fatalf("got %d keys, want %d", len(keys), n)
		}
		found, err := s.Find(ctx, storage.Query{Table: accounts, Org: 1,
			Where: []storage.Cond{{Column: "name", Op: storage.StartsWith, Values: []any{"bulk-"}}}})
		if err != nil {
			t.Fatal(err)
		}
		byID := map[int64]storage.Row{}
		for _, r := range found {
			byID[r["id"].(int64)] = r
		}
		if len(byID) != n {
			t.Fatalf("found %d rows, want %d", len(byID), n)
		}
		for i, k := range keys {
			r := byID[k.(int64)]
			if r["name"] != rows[i]["name"] {
				t.Fatalf("key %d (%v) is row %v, want %v", i, k, r["name"], rows[i]["name"])
			}
		}
		// The sequence continues after explicit keys.
		next, err := s.Insert(ctx, accounts, 1, storage.Row{"name": "after"})
		if err != nil {
			t.Fatalf("Insert after InsertMany: %v", err)
		}
		for _, k := range keys {
			if k.(int64) >= next.(int64) {
				t.Fatalf("key %v of InsertMany not below the next generated key %v", k, next)
			}
		}
	})
}

func TestInsertManyIsAtomic(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		units := storagetest.Table(t, s, "weightunits")
		rows := []storage.Row{{"code": "a"}, {"code": "b"}, {"code": "a"}}
		keys, err := s.InsertMany(ctx, units, 1, rows[:2])
		if err != nil || !reflect.DeepEqual(keys, []any{"a", "b"}) {
			t.Fatalf("InsertMany = %v, %v", keys, err)
		}
		var ue *storage.UniqueError
		if _, err := s.InsertMany(ctx, units, 1, []storage.Row{{"code": "c"}, {"code": "a"}}); !errors.As(err, &ue) {
			t.Fatalf("duplicate in InsertMany: %v, want UniqueError", err)
		}
		if _, err := s.Get(ctx, units, 1, "c"); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("c was kept after the failed InsertMany: %v", err)
		}
	})
}

func TestDeleteWhere(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		fixtures(t, s)
		accounts := storagetest.Table(t, s, "accounts")
		withA := storage.Query{Table: accounts, Org: 1,
			Where: []storage.Cond{{Column: "name", Op: storage.Contains, Values: []any{"a"}}}}
		before, err := s.Count(ctx, withA)
		if err != nil || before != 5 {
			t.Fatalf("Count = %d, %v; want 5", before, err)
		}
		if _, err := s.DeleteWhere(ctx, withA, before-1, nil); !errors.Is(err, storage.ErrTooMany) {
			t.Fatalf("DeleteWhere above max: %v, want ErrTooMany", err)
		}
		if n, _ := s.Count(ctx, withA); n != before {
			t.Fatalf("%d rows left after a refused DeleteWhere, want %d", n, before)
		}
		if n, err := s.DeleteWhere(ctx, storage.Query{Table: accounts, Org: 2}, 0, nil); err != nil || n != 0 {
			t.Errorf("DeleteWhere in an empty organization = %d, %v", n, err)
		}
		n, err := s.DeleteWhere(ctx, withA, before, nil)
		if err != nil || n != before {
			t.Fatalf("DeleteWhere at max = %d, %v; want %d", n, err, before)
		}
		left := names(t, s, storage.Query{Table: accounts, Org: 1})
		if want := []string{"50% off", "under_score", "wow!"}; !reflect.DeepEqual(left, want) {
			t.Errorf("left %q, want %q", left, want)
		}
	})
}

func TestLinkage(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		regions := storagetest.Table(t, s, "regions")
		links, err := s.Linkage(ctx, regions, 0, "country_code", []any{"LU", "AD", "ZZ"})
		if err != nil {
			t.Fatalf("Linkage: %v", err)
		}
		perCountry := map[string]int{}
		for i, l := range links {
			code, country := l[0].(string), l[1].(string)
			if code[:2] != country {
				t.Errorf("region %s linked to %s", code, country)
			}
			perCountry[country]++
			if i > 0 {
				prev := links[i-1]
				if prev[1].(string) > country || (prev[1] == country && prev[0].(string) >= code) {
					t.Errorf("links not ordered by country then code: %v before %v", prev, l)
				}
			}
		}
		for _, c := range []string{"AD", "LU"} {
			want, err := s.Count(ctx, storage.Query{Table: regions,
				Where: []storage.Cond{{Column: "country_code", Op: storage.Eq, Values: []any{c}}}})
			if err != nil || want == 0 || perCountry[c] != want {
				t.Errorf("%s: %d links, want %d (%v)", c, perCountry[c], want, err)
			}
		}
		if links, err := s.Linkage(ctx, regions, 0, "country_code", nil); err != nil || len(links) != 0 {
			t.Errorf("Linkage of nothing = %v, %v", links, err)
		}
		if _, err := s.Linkage(ctx, regions, 0, "nope", []any{"AD"}); err == nil {
			t.Error("Linkage on an unknown column accepted")
		}
	})
}

func TestTxRollsBack(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		accounts := storagetest.Table(t, s, "accounts")
		boom := errors.New("boom")
		err := s.Tx(ctx, func(c *storage.Conn) error {
			if !c.InTx() {
				t.Error("InTx() = false inside Tx")
			}
			if _, err := c.Insert(ctx, accounts, 1, storage.Row{"name": "gone"}); err != nil {
				return err
			}
			if n, err := c.Count(ctx, storage.Query{Table: accounts, Org: 1}); err != nil || n != 1 {
				t.Errorf("Count inside Tx = %d, %v; want 1", n, err)
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatalf("Tx = %v, want boom", err)
		}
		if n, err := s.Count(ctx, storage.Query{Table: accounts, Org: 1}); err != nil || n != 0 {
			t.Errorf("Count after rollback = %d, %v; want 0", n, err)
		}
	})
}

// TestConcurrentWrites runs writers in parallel with readers: none may fail
// (on SQLite they take turns in the process instead of meeting SQLITE_BUSY).
func TestConcurrentWrites(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		accounts := storagetest.Table(t, s, "accounts")
		const writers, each = 8, 25
		var wg sync.WaitGroup
		errs := make(chan error, writers*2)
		for w := range writers {
			wg.Add(2)
			go func() {
				defer wg.Done()
				for i := range each {
					err := s.Tx(ctx, func(c *storage.Conn) error {
						_, err := c.Insert(ctx, accounts, 1, storage.Row{"name": fmt.Sprintf("w%d-%d", w, i)})
						return err
					})
					if err != nil {
						errs <- err
						return
					}
				}
			}()
			go func() {
				defer wg.Done()
				for range each {
					if _, err := s.Find(ctx, storage.Query{Table: accounts, Org: 1, Limit: 10}); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if n, err := s.Count(ctx, storage.Query{Table: accounts, Org: 1}); err != nil || n != writers*each {
			t.Errorf("Count = %d, %v; want %d", n, err, writers*each)
		}
	})
}

// TestInsertManyLongStatements: on SQLite (LongInserts) a batch's run of
// 3,000 records goes in one INSERT, and a run with a record fewer in two
// (2,500 and 499), not in statements of 500 rows: FTS5 writes a segment of
// the full-text index per statement. Every row is written either way, on
// PostgreSQL by COPY.
func TestInsertManyLongStatements(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		accounts := storagetest.Table(t, s, "accounts")
		log := &statementLog{}
		s.AddStatementHook(log)
		for _, tc := range []struct {
			rows, inserts int
		}{{3000, 1}, {2999, 2}} {
			prefix := fmt.Sprintf("long-%d-", tc.rows)
			rows := make([]storage.Row, tc.rows)
			for i := range rows {
				rows[i] = storage.Row{"name": fmt.Sprintf("%s%04d", prefix, i)}
			}
			sent := log.during(func() {
				if _, err := s.InsertMany(ctx, accounts, 1, rows); err != nil {
					t.Fatalf("InsertMany of %d: %v", tc.rows, err)
				}
			})
			inserts := 0
			for _, text := range sent {
				if strings.HasPrefix(text, `INSERT INTO "accounts"`) {
					inserts++
				}
			}
			if s.Dialect() == "sqlite" && inserts != tc.inserts {
				t.Errorf("%d rows went in %d INSERTs, want %d", tc.rows, inserts, tc.inserts)
			}
			found, err := s.Count(ctx, storage.Query{Table: accounts, Org: 1,
				Where: []storage.Cond{{Column: "name", Op: storage.StartsWith, Values: []any{prefix}}}})
			if err != nil || found != tc.rows {
				t.Errorf("%d rows found of %d (%v)", found, tc.rows, err)
			}
		}
	})
}
