package storage_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestGetMembers checks that GetMembers reads the record GetColumns reads
// and, for each relationship, the keys Linkage or Pairs give for that one
// owner, in the same order: members through a table and through a join
// table, written out of order and with keys JSON must escape; none at all;
// another organization's record; and no record.
func TestGetMembers(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		regions, countries := storagetest.Table(t, s, "regions"), storagetest.Table(t, s, "countries")
		for _, code := range []string{"AD-~", "AD-z", "AD-é", "AD-\\n", "AD-\"q\"", "AD-\t", "AD-Z", "AD-0"} {
			if _, err := s.Insert(ctx, regions, 0, storage.Row{"code": code, "country_code": "AD", "sub_code": "AD",
				"name_en": code, "name_de": code, "name_fr": code, "name_es": code}); err != nil {
				t.Fatalf("insert region %q: %v", code, err)
			}
		}
		// By sub_code too, which no index orders: SQLite meets those
		// rows in the order they were written.
		byCountry := []storage.Members{{Table: regions, Column: "country_code"}, {Table: regions, Column: "sub_code"}}
		for _, country := range []string{"AD", "US", "AQ"} {
			pairs, err := s.Linkage(ctx, regions, 0, "country_code", []any{country})
			if err != nil {
				t.Fatal(err)
			}
			bySub, err := s.Linkage(ctx, regions, 0, "sub_code", []any{country})
			if err != nil {
				t.Fatal(err)
			}
			want := firstOfPairs(pairs)
			wantRow, err := s.GetColumns(ctx, countries, 0, country, []string{"code", "name_en"})
			if err != nil {
				t.Fatal(err)
			}
			row, keys, err := s.GetMembers(ctx, countries, 0, country, []string{"code", "name_en"}, byCountry)
			if err != nil {
				t.Fatalf("%s: %v", country, err)
			}
			if !reflect.DeepEqual(row, wantRow) {
				t.Errorf("%s: row %v, want %v", country, row, wantRow)
			}
			if len(keys) != 2 || !reflect.DeepEqual(keys[0], want) || !reflect.DeepEqual(keys[1], firstOfPairs(bySub)) {
				t.Errorf("%s: members %q, want Linkage's %q and %q", country, keys, want, firstOfPairs(bySub))
			}
		}
		if len(firstOfPairs(must(s.Linkage(ctx, regions, 0, "country_code", []any{"US"})))) == 0 {
			t.Fatal("the demo data has no regions of US: the case above proves nothing")
		}

		ac := joinTable(t, s, "account_contacts")
		contacts := storagetest.Table(t, s, "contacts")
		contact := insert(t, s, "contacts", 1, storage.Row{"last_name": "c"})
		lonely := insert(t, s, "contacts", 1, storage.Row{"last_name": "l"})
		var accounts []any
		for range 12 {
			accounts = append(accounts, insert(t, s, "accounts", 1, storage.Row{"name": "a"}))
		}
		for i := len(accounts) - 1; i >= 0; i-- {
			if err := s.Link(ctx, ac, [][2]any{{accounts[i], contact}}); err != nil {
				t.Fatal(err)
			}
		}
		throughJoin := []storage.Members{{Join: ac, Column: "contact_id"}, {Join: ac, Column: "contact_id"}}
		row, keys, err := s.GetMembers(ctx, contacts, 1, contact, []string{"last_name"}, throughJoin)
		if err != nil {
			t.Fatal(err)
		}
		if row["last_name"] != "c" || !reflect.DeepEqual(keys, [][]any{accounts, accounts}) {
			t.Errorf("contact: %v, members %v, want the accounts in key order twice %v", row, keys, accounts)
		}
		if _, keys, err = s.GetMembers(ctx, contacts, 1, lonely, []string{"last_name"}, throughJoin); err != nil || !reflect.DeepEqual(keys, [][]any{nil, nil}) {
			t.Errorf("a contact without accounts: members %v, %v", keys, err)
		}
		for name, org := range map[string]int64{"another organization's contact": 2, "no contact": 1} {
			key := contact
			if org == 1 {
				key = contact + 1000
			}
			if _, _, err := s.GetMembers(ctx, contacts, org, key, nil, throughJoin); !errors.Is(err, storage.ErrNotFound) {
				t.Errorf("%s: %v, want ErrNotFound", name, err)
			}
		}
		if _, _, err := s.GetMembers(ctx, contacts, 1, contact, nil, []storage.Members{{Table: regions, Column: "nope"}}); err == nil {
			t.Error("members by an undeclared column: no error")
		}
	})
}

func firstOfPairs(pairs [][2]any) []any {
	var out []any
	for _, p := range pairs {
		out = append(out, p[0])
	}
	return out
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestUpdateRowMembers: the UPDATE answers the row UpdateRow answers and the
// keys Pairs gives; a missing row is ErrNotFound, a duplicate a UniqueError.
func TestUpdateRowMembers(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		ac := joinTable(t, s, "account_contacts")
		accounts := storagetest.Table(t, s, "accounts")
		account := insert(t, s, "accounts", 1, storage.Row{"name": "a"})
		var contacts []any
		for range 3 {
			contacts = append(contacts, insert(t, s, "contacts", 1, storage.Row{"last_name": "c"}))
		}
		for i := len(contacts) - 1; i >= 0; i-- {
			if err := s.Link(ctx, ac, [][2]any{{account, contacts[i]}}); err != nil {
				t.Fatal(err)
			}
		}
		members := []storage.Members{{Join: ac, Column: "account_id"}}
		row, keys, err := s.UpdateRowMembers(ctx, accounts, 1, account, storage.Row{"name": "b"}, members)
		if err != nil {
			t.Fatal(err)
		}
		want, err := s.Get(ctx, accounts, 1, account)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(row, want) || row["name"] != "b" {
			t.Errorf("row %v, want %v", row, want)
		}
		if !reflect.DeepEqual(keys, [][]any{contacts}) {
			t.Errorf("members %v, want %v", keys, contacts)
		}
		if _, _, err := s.UpdateRowMembers(ctx, accounts, 2, account, storage.Row{"name": "x"}, members); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("another organization's record: %v, want ErrNotFound", err)
		}
		insert(t, s, "accounts", 1, storage.Row{"name": "o", "external_id": "E1"})
		var unique *storage.UniqueError
		if _, _, err := s.UpdateRowMembers(ctx, accounts, 1, account, storage.Row{"external_id": "E1"}, members); !errors.As(err, &unique) {
			t.Errorf("a duplicate external id: %v, want a UniqueError", err)
		}
	})
}
