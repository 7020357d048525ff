package storage_test

import (
	"context"
	"slices"
	"testing"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestSearchInLanguages searches the storefront's reference data (migration
// 0018): tables of text keys, in no organization, with an index per language
// of their localized names; a language without an index of its own (en, or
// one the table does not know) reads the default one. The same searches
// answer the same rows on both databases, through a list's condition
// (storage.Match) and through the search across tables (FindMatches).
func TestSearchInLanguages(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		countries, regions := storagetest.Table(t, s, "countries"), storagetest.Table(t, s, "regions")
		for _, tc := range []struct {
			name, lang string
			words      []string
			table      *storage.Table
			want       []any
		}{
			{"English by default", "", []string{"germany"}, countries, []any{"DE"}},
			{"the English index for en", "en", []string{"germany"}, countries, []any{"DE"}},
			{"a language the table has no index of", "ja", []string{"germany"}, countries, []any{"DE"}},
			{"German in German", "de", []string{"deutschland"}, countries, []any{"DE"}},
			{"not English in German", "de", []string{"germany"}, countries, nil},
			{"not German in English", "", []string{"deutschland"}, countries, nil},
			{"the code in every language", "fr", []string{"deu"}, countries, []any{"DE"}},
			{"French with its accent", "fr", []string{"bavière"}, regions, []any{"DE-BY"}},
			{"accents are letters", "fr", []string{"baviere"}, regions, nil},
			{"a region's code and name", "", []string{"by", "bayern"}, regions, []any{"DE-BY"}},
		} {
			q := storage.Search{All: [][]string{tc.words[:1]}, Lang: tc.lang}
			for _, w := range tc.words[1:] {
				q.All = append(q.All, []string{w})
			}
			rows, err := s.Find(ctx, storage.Query{Table: tc.table, Columns: []string{"code"},
				Where: []storage.Cond{{Op: storage.Match, Values: []any{q}}}})
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			var got []any
			for _, r := range rows {
				got = append(got, r["code"])
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("%s: list %v, want %v", tc.name, got, tc.want)
			}
			hits, err := s.FindMatches(ctx, []*storage.Table{countries, regions}, 0, q, storage.ByRelevance, 10, 0)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			got = nil
			for _, h := range hits {
				if h.Table == tc.table.Name {
					got = append(got, h.Key)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("%s: search %v, want %v", tc.name, got, tc.want)
			}
		}
	})
}

// TestSearchMixesKeyKinds searches a table of integer keys and one of text
// keys in one union: each hit's key comes back as its table holds it.
func TestSearchMixesKeyKinds(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		accounts, countries := storagetest.Table(t, s, "accounts"), storagetest.Table(t, s, "countries")
		keys, err := s.InsertMany(ctx, accounts, 1, []storage.Row{{"name": "Germany Trading"}})
		if err != nil {
			t.Fatal(err)
		}
		hits, err := s.FindMatches(ctx, []*storage.Table{accounts, countries}, 1, storage.Search{All: [][]string{{"germany"}}}, storage.ByTable, 10, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 2 || hits[0].Key != keys[0] || hits[1].Key != "DE" {
			t.Fatalf("hits %+v, want account %v (int64) then country DE (string)", hits, keys[0])
		}
	})
}

// TestSearchTiesGoByKey: records that rank the same come in the order of
// their keys, as their tables hold them: 2 before 10, not "10" before "2".
func TestSearchTiesGoByKey(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		accounts := storagetest.Table(t, s, "accounts")
		rows := make([]storage.Row, 12)
		for i := range rows {
			rows[i] = storage.Row{"name": "Tango"}
		}
		keys, err := s.InsertMany(ctx, accounts, 1, rows)
		if err != nil {
			t.Fatal(err)
		}
		hits, err := s.FindMatches(ctx, []*storage.Table{accounts, storagetest.Table(t, s, "contacts")}, 1,
			storage.Search{All: [][]string{{"tango"}}}, storage.ByRelevance, 20, 0)
		if err != nil {
			t.Fatal(err)
		}
		var got []any
		for _, h := range hits {
			got = append(got, h.Key)
		}
		if !slices.Equal(got, keys) {
			t.Errorf("ties in the order %v, want %v", got, keys)
		}
	})
}
