package storage_test

import (
	"context"
	"slices"
	"testing"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestReadTextsRepeat checks that the reads behind the API's pages send the
// same statement text every time, so that they are prepared once per
// connection, for any number of keys: a list is one parameter (an array on
// PostgreSQL, a JSON array read with json_each on SQLite). On SQLite the
// statement is then held in the prepared statement cache.
func TestReadTextsRepeat(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		log := &statementLog{}
		s.AddStatementHook(log)
		countries, regions, accounts := storagetest.Table(t, s, "countries"), storagetest.Table(t, s, "regions"), storagetest.Table(t, s, "accounts")
		a := insert(t, s, "accounts", 1, storage.Row{"name": "a"})
		c1 := insert(t, s, "contacts", 1, storage.Row{"last_name": "c1"})
		c2 := insert(t, s, "contacts", 1, storage.Row{"last_name": "c2"})
		c3 := insert(t, s, "contacts", 1, storage.Row{"last_name": "c3"})
		ac := joinTable(t, s, "account_contacts")
		if err := s.Link(ctx, ac, [][2]any{{a, c1}, {a, c3}}); err != nil {
			t.Fatal(err)
		}
		reads := []struct {
			name string
			read func(keys []any) error
			keys [2][]any // two calls with different numbers of keys
		}{
			{"get", func(keys []any) error { _, err := s.Get(ctx, countries, 0, keys[0]); return err },
				[2][]any{{"US"}, {"DE"}}},
			{"page", func(keys []any) error {
				_, err := s.Find(ctx, storage.Query{Table: countries, Limit: len(keys) * 10})
				return err
			}, [2][]any{{1}, {1, 2}}},
			{"linkage", func(keys []any) error { _, err := s.Linkage(ctx, regions, 0, "country_code", keys); return err },
				[2][]any{{"US", "DE"}, {"US", "DE", "FR"}}},
			{"pairs", func(keys []any) error { _, err := s.Pairs(ctx, ac, "contact_id", keys); return err },
				[2][]any{{c1, c2}, {c1, c2, c3}}},
			{"via", func(keys []any) error {
				_, err := s.Find(ctx, storage.Query{Table: accounts, Org: 1, Where: []storage.Cond{{Op: storage.Eq,
					Via: &storage.Via{Table: "account_contacts", Column: "account_id", Target: "contact_id"}, Values: keys}}})
				return err
			}, [2][]any{{c1, c2}, {c1, c2, c3}}},
		}
		log.take() // the inserts
		for _, r := range reads {
			var texts [][]string
			for _, keys := range [][]any{r.keys[0], r.keys[0], r.keys[1]} {
				if err := r.read(keys); err != nil {
					t.Fatalf("%s %v: %v", r.name, keys, err)
				}
				texts = append(texts, log.take())
			}
			if len(texts[0]) != 1 || !slices.Equal(texts[0], texts[1]) {
				t.Errorf("%s: the same read sent %q, then %q", r.name, texts[0], texts[1])
				continue
			}
			// On SQLite a LIMIT is part of the text (sqlCount); a list is
			// one parameter on both databases.
			if r.name != "get" && (r.name != "page" || s.Dialect() != "sqlite") && !slices.Equal(texts[0], texts[2]) {
				t.Errorf("%s: more keys sent %q, fewer %q", r.name, texts[2], texts[0])
			}
			if s.Dialect() != "sqlite" {
				continue
			}
			if !s.PreparedStatement(texts[0][0]) {
				t.Errorf("%s: %q is not held prepared", r.name, texts[0][0])
			}
		}
	})
}
