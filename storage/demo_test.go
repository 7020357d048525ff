package storage_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

func TestLoadDemoRecordsOnceOnly(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		for range 2 {
			if err := s.LoadDemoRecords(ctx); err != nil {
				t.Fatal(err)
			}
		}
		for table, want := range map[string]int{"accounts": 3, "contacts": 2, "businessunits": 2, "weightunits": 2, "taxjurisdictions": 2} {
			tb, _ := s.Table(table)
			n, err := s.Count(ctx, storage.Query{Table: tb, Org: 1})
			if err != nil || n != want {
				t.Errorf("%s: %d rows (%v), want %d", table, n, err, want)
			}
		}
	})
}

// TestDemoRecordKeys: the documents' examples name demo records by key
// (accounts/1 is Acme Corporation, its default contact contacts/1, ...), and
// the contract tests generated from them (scripts/contract) run on both
// databases, so a fresh demo has the same keys and links on each.
func TestDemoRecordKeys(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		if err := s.LoadDemoRecords(ctx); err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			table  string
			key    any
			column string
			want   string
		}{
			{"accounts", int64(1), "name", "Acme Corporation"},
			{"accounts", int64(1), "default_contact_id", "1"},
			{"accounts", int64(2), "external_id", "GLOBEX-7"},
			{"accounts", int64(2), "default_contact_id", "2"},
			{"accounts", int64(3), "name", "Initech"},
			{"accounts", int64(3), "referred_by_id", "2"},
			{"contacts", int64(1), "external_id", "CRM-0012"},
			{"contacts", int64(2), "last_name", "Scorpio"},
			{"businessunits", int64(1), "name", "Main"},
			{"businessunits", int64(2), "owner_id", "1"},
			{"weightunits", "kg", "code", "kg"},
			{"taxjurisdictions", int64(1), "code", "US-NY-NYC"},
			{"taxjurisdictions", int64(2), "code", "DE-BY"},
		} {
			tb, _ := s.Table(tc.table)
			row, err := s.Get(ctx, tb, 1, tc.key)
			if err != nil {
				t.Errorf("%s %v: %v", tc.table, tc.key, err)
				continue
			}
			if got := fmt.Sprint(row[tc.column]); got != tc.want {
				t.Errorf("%s %v: %s = %s, want %s", tc.table, tc.key, tc.column, got, tc.want)
			}
		}
		links, _ := s.JoinTable("account_contacts")
		pairs, err := s.Pairs(ctx, links, "account_id", []any{int64(1), int64(2), int64(3)})
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprint(pairs); got != "[[1 1] [2 2]]" {
			t.Errorf("account_contacts (contact, account) = %s, want [[1 1] [2 2]]", got)
		}
	})
}
