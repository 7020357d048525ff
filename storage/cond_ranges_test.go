package storage_test

import (
	"context"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestSeveralRanges: a filter naming several periods matches any of them, its
// negations none of them (NotRangeOrNull also NULL).
func TestSeveralRanges(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		accounts, _ := s.Table("accounts")
		at := func(v string) time.Time { tm, _ := time.Parse(time.RFC3339, v); return tm }
		keys, err := s.InsertMany(ctx, accounts, 1, []storage.Row{
			{"name": "a", "created_at": at("2026-11-22T09:59:59Z")},
			{"name": "b", "created_at": at("2026-11-22T10:30:15Z")},
			{"name": "c", "created_at": at("2026-12-01T08:00:00Z")},
			{"name": "d", "created_at": at("2027-01-01T00:00:00Z")},
		})
		if err != nil {
			t.Fatal(err)
		}
		days := []any{at("2026-11-22T00:00:00Z"), at("2026-11-22T23:59:59Z"), at("2026-12-01T00:00:00Z"), at("2026-12-01T23:59:59Z")}
		for _, tc := range []struct {
			op   storage.Op
			want []any
		}{
			{storage.Range, keys[:3]},
			{storage.NotRange, keys[3:]},
			{storage.NotRangeOrNull, keys[3:]},
		} {
			rows, err := s.Find(ctx, storage.Query{Table: accounts, Org: 1, Where: []storage.Cond{{Column: "created_at", Op: tc.op, Values: days}}})
			if err != nil {
				t.Fatal(err)
			}
			var got []any
			for _, r := range rows {
				got = append(got, r["id"])
			}
			if len(got) != len(tc.want) {
				t.Fatalf("op %d: %v, want %v", tc.op, got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("op %d: %v, want %v", tc.op, got, tc.want)
				}
			}
		}
		if _, err := s.Find(ctx, storage.Query{Table: accounts, Org: 1, Where: []storage.Cond{{Column: "created_at", Op: storage.Range, Values: days[:3]}}}); err == nil {
			t.Error("an odd number of range ends is accepted")
		}
	})
}
