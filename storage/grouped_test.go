package storage_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestGroupedLinkageOrder checks that Linkage and Pairs, which read each
// owner's members as one JSON array, give the members the database's own
// key order (the order of a row-by-row ORDER BY), whatever order they were
// written in, and keys that JSON must escape unchanged.
func TestGroupedLinkageOrder(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		regions := storagetest.Table(t, s, "regions")
		// Written in reverse of any plausible order, with a quote, a
		// backslash, a control character, non-ASCII and mixed case.
		for _, code := range []string{"AD-~", "AD-z", "AD-é", "AD-\\n", "AD-\"q\"", "AD-\t", "AD-Z", "AD-0"} {
			if _, err := s.Insert(ctx, regions, 0, storage.Row{"code": code, "country_code": "AD", "sub_code": "x",
				"name_en": code, "name_de": code, "name_fr": code, "name_es": code}); err != nil {
				t.Fatalf("insert region %q: %v", code, err)
			}
		}
		for _, country := range []string{"AD", "LU"} {
			rows, err := s.Find(ctx, storage.Query{Table: regions,
				Where:   []storage.Cond{{Column: "country_code", Op: storage.Eq, Values: []any{country}}},
				OrderBy: []storage.Order{{Column: "code"}}})
			if err != nil {
				t.Fatal(err)
			}
			var want []any
			for _, r := range rows {
				want = append(want, r["code"])
			}
			links, err := s.Linkage(ctx, regions, 0, "country_code", []any{country})
			if err != nil {
				t.Fatal(err)
			}
			var got []any
			for _, l := range links {
				if l[1] != country {
					t.Errorf("%s: a link to %v", country, l[1])
				}
				got = append(got, l[0])
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: linkage %q,\nwant the rows' order %q", country, got, want)
			}
		}

		ac := joinTable(t, s, "account_contacts")
		contact := insert(t, s, "contacts", 1, storage.Row{"last_name": "c"})
		var accounts []int64
		for range 12 {
			accounts = append(accounts, insert(t, s, "accounts", 1, storage.Row{"name": "a"}))
		}
		for i := len(accounts) - 1; i >= 0; i-- { // linked from the highest id down
			if err := s.Link(ctx, ac, [][2]any{{accounts[i], contact}}); err != nil {
				t.Fatal(err)
			}
		}
		pairs, err := s.Pairs(ctx, ac, "contact_id", []any{contact})
		if err != nil {
			t.Fatal(err)
		}
		var got []int64
		for _, p := range pairs {
			got = append(got, p[0].(int64))
		}
		if !reflect.DeepEqual(got, accounts) {
			t.Errorf("pairs %v, want the accounts in key order %v", got, accounts)
		}
	})
}
