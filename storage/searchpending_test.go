package storage_test

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestSearchIndexFollowsEveryWrite writes accounts every way a transaction
// can (one write, several writes of one record, a record made and changed
// or removed in one transaction, a savepoint rolled back, SQL from outside
// the store) and checks after each commit that a search finds exactly the
// records whose text holds the word, on both databases. On SQLite the index
// is written from the triggers' notes before each commit (migration 0019),
// and a note keeps the text the index holds: a wrong one would leave a
// record found by a word it no longer holds.
func TestSearchIndexFollowsEveryWrite(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		accounts := storagetest.Table(t, s, "accounts")
		finds := func(word string) []any {
			t.Helper()
			rows, err := s.Find(ctx, storage.Query{Table: accounts, Org: 1, Columns: []string{"id"},
				Where: []storage.Cond{{Op: storage.Match, Values: []any{storage.Search{All: [][]string{{word}}}}}}})
			if err != nil {
				t.Fatal(err)
			}
			var out []any
			for _, r := range rows {
				out = append(out, r["id"])
			}
			return out
		}
		want := func(step, word string, keys ...any) {
			t.Helper()
			if got := finds(word); !slices.Equal(got, keys) {
				t.Errorf("%s: %q finds %v, want %v", step, word, got, keys)
			}
		}
		a, err := s.Insert(ctx, accounts, 1, storage.Row{"name": "Alpha"})
		if err != nil {
			t.Fatal(err)
		}
		want("one insert", "alpha", a)
		if err := s.Update(ctx, accounts, 1, a, storage.Row{"name": "Bravo"}); err != nil {
			t.Fatal(err)
		}
		want("one update", "alpha")
		want("one update", "bravo", a)
		if err := s.Update(ctx, accounts, 1, a, storage.Row{"external_id": "X-1"}); err != nil {
			t.Fatal(err)
		}
		want("another indexed column", "bravo", a)
		want("another indexed column", "x", a)

		var b, c any
		err = s.Tx(ctx, func(tx *storage.Conn) error {
			var err error
			if err = tx.Update(ctx, accounts, 1, a, storage.Row{"name": "Charlie"}); err != nil {
				return err
			}
			if err = tx.Update(ctx, accounts, 1, a, storage.Row{"name": "Delta"}); err != nil {
				return err
			}
			if b, err = tx.Insert(ctx, accounts, 1, storage.Row{"name": "Echo"}); err != nil {
				return err
			}
			if err = tx.Update(ctx, accounts, 1, b, storage.Row{"name": "Echo Foxtrot"}); err != nil {
				return err
			}
			if c, err = tx.Insert(ctx, accounts, 1, storage.Row{"name": "Golf"}); err != nil {
				return err
			}
			if err = tx.Delete(ctx, accounts, 1, c); err != nil {
				return err
			}
			err = tx.Tx(ctx, func(sp *storage.Conn) error {
				if err := sp.Update(ctx, accounts, 1, b, storage.Row{"name": "Hotel"}); err != nil {
					return err
				}
				return errors.New("rolled back")
			})
			if err == nil {
				return errors.New("the savepoint committed")
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		want("two updates in one transaction", "bravo")
		want("two updates in one transaction", "charlie")
		want("two updates in one transaction", "delta", a)
		want("made and changed in one transaction", "echo", b)
		want("made and changed in one transaction", "foxtrot", b)
		want("made and removed in one transaction", "golf")
		want("a savepoint rolled back", "hotel")

		if err := s.Tx(ctx, func(tx *storage.Conn) error {
			if err := tx.Update(ctx, accounts, 1, a, storage.Row{"name": "India"}); err != nil {
				return err
			}
			return tx.Delete(ctx, accounts, 1, a)
		}); err != nil {
			t.Fatal(err)
		}
		want("changed and removed in one transaction", "delta")
		want("changed and removed in one transaction", "india")

		if err := s.Tx(ctx, func(tx *storage.Conn) error {
			if err := tx.Update(ctx, accounts, 1, b, storage.Row{"name": "Juliett"}); err != nil {
				return err
			}
			return errors.New("rolled back")
		}); err == nil {
			t.Fatal("the transaction committed")
		}
		want("a transaction rolled back", "echo", b)
		want("a transaction rolled back", "juliett")

		// The single writes the service sends commit alone (SQLite's write
		// queue: in autocommit, or grouped with the writes queued beside
		// them), and their notes are written before they return.
		row, err := s.InsertRow(ctx, accounts, 1, storage.Row{"name": "Lima"})
		if err != nil {
			t.Fatal(err)
		}
		want("a single write", "lima", row["id"])
		if _, err := s.UpdateRow(ctx, accounts, 1, row["id"], storage.Row{"name": "Mike"}); err != nil {
			t.Fatal(err)
		}
		want("a single update", "lima")
		want("a single update", "mike", row["id"])
		var wg sync.WaitGroup
		grouped := make([]any, 16)
		for i := range grouped {
			wg.Add(1)
			go func() {
				defer wg.Done()
				r, err := s.InsertRow(ctx, accounts, 1, storage.Row{"name": "November " + strconv.Itoa(i)})
				if err != nil {
					t.Error(err)
					return
				}
				grouped[i] = r["id"]
			}()
		}
		wg.Wait()
		slices.SortFunc(grouped, func(x, y any) int { return int(x.(int64) - y.(int64)) })
		want("single writes side by side", "november", grouped...)

		// SQL from outside the store: on SQLite its notes wait for the
		// store's next transaction, or the next start's Migrate.
		if _, err := s.DB().ExecContext(ctx, "UPDATE accounts SET name = 'Kilo' WHERE id = ?", b); err != nil {
			t.Fatal(err)
		}
		if err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		want("SQL from outside, then Migrate", "echo")
		want("SQL from outside, then Migrate", "kilo", b)
	})
}

// TestSearchIndexWrittenOncePerTransaction: a transaction of many one-record
// writes finds them all once it commits. On SQLite it writes the index
// once, at its commit, not in each statement (FTS5 wrote a segment of its
// index at every statement, and a batch of 1,000,000 updates took 15 times
// as long as without the index): until the commit its records wait as
// notes, one each. PostgreSQL keeps its GIN index in each statement, and
// has no notes to count.
func TestSearchIndexWrittenOncePerTransaction(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) { writtenOncePerTransaction(t, s) })
}

func writtenOncePerTransaction(t *testing.T, s *storage.Store) {
	ctx := context.Background()
	accounts := storagetest.Table(t, s, "accounts")
	rows := make([]storage.Row, 200)
	for i := range rows {
		rows[i] = storage.Row{"name": "Lima " + strconv.Itoa(i)}
	}
	keys, err := s.InsertMany(ctx, accounts, 1, rows)
	if err != nil {
		t.Fatal(err)
	}
	pending := func(c *storage.Conn) int {
		t.Helper()
		if s.Dialect() != "sqlite" {
			return 0
		}
		var n int
		if err := c.Bun().NewRaw("SELECT count(*) FROM search_pending").Scan(ctx, &n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	err = s.Tx(ctx, func(tx *storage.Conn) error {
		for _, k := range keys {
			if err := tx.Update(ctx, accounts, 1, k, storage.Row{"name": "Mike"}); err != nil {
				return err
			}
		}
		if n := pending(tx); s.Dialect() == "sqlite" && n != len(keys) {
			t.Errorf("%d notes before the commit, want %d", n, len(keys))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := pending(s.Conn); n != 0 {
		t.Errorf("%d notes after the commit, want 0", n)
	}
	found, err := s.Find(ctx, storage.Query{Table: accounts, Org: 1, Columns: []string{"id"},
		Where: []storage.Cond{{Op: storage.Match, Values: []any{storage.Search{All: [][]string{{"mike"}}}}}}})
	if err != nil || len(found) != len(keys) {
		t.Fatalf("mike finds %d records (%v), want %d", len(found), err, len(keys))
	}
}
