package storage_test

import (
	"context"
	"slices"
	"testing"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestSearchMatches runs full-text conditions (storage.Match) on both
// databases, and checks on PostgreSQL that a statement holding one is
// planned for its query at every run, never kept prepared under a name: a
// generic plan cannot know how many records a search matches, and walked a
// whole table for a search that matched none.
func TestSearchMatches(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		accounts := storagetest.Table(t, s, "accounts")
		keys, err := s.InsertMany(ctx, accounts, 1, []storage.Row{
			{"name": "Acme Corporation", "external_id": "ACME-001"}, {"name": "Acme Rockets"}, {"name": "Globex"},
		})
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			name string
			q    storage.Search
			want []any
		}{
			{"a word", storage.Search{All: [][]string{{"acme"}}}, keys[:2]},
			{"a phrase", storage.Search{All: [][]string{{"acme 001"}}}, keys[:1]},
			{"either", storage.Search{All: [][]string{{"rockets", "globex"}}}, keys[1:]},
			{"all and none", storage.Search{All: [][]string{{"acme"}}, Not: []string{"rockets"}}, keys[:1]},
			{"none only", storage.Search{Not: []string{"acme"}}, keys[2:]},
		} {
			rows, err := s.Find(ctx, storage.Query{Table: accounts, Org: 1, Columns: []string{"id"},
				Where: []storage.Cond{{Op: storage.Match, Values: []any{tc.q}}}})
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			var got []any
			for _, r := range rows {
				got = append(got, r["id"])
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
			}
		}
		if _, err := s.Find(ctx, storage.Query{Table: storagetest.Table(t, s, "weightunits"), Columns: []string{"code"},
			Where: []storage.Cond{{Op: storage.Match, Values: []any{storage.Search{All: [][]string{{"x"}}}}}}}); err == nil {
			t.Error("a search of a table without a full-text index ran")
		}
		if s.Dialect() != "postgres" {
			return
		}
		q := storage.Query{Table: accounts, Org: 1, Columns: []string{"id"},
			Where: []storage.Cond{{Op: storage.Match, Values: []any{storage.Search{All: [][]string{{"acme"}}}}}}}
		err = s.Tx(ctx, func(c *storage.Conn) error { // one connection for all
			for range 7 { // past the five runs after which a generic plan may be kept
				if _, err := c.Find(ctx, q); err != nil {
					return err
				}
			}
			n, err := c.PreparedStatements(ctx, "to_tsquery")
			if err != nil {
				return err
			}
			if n != 0 {
				t.Errorf("%d named statements hold a search, want 0", n)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	})
}
