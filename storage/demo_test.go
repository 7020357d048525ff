package storage_test

import (
	"context"
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
		for table, want := range map[string]int{"accounts": 3, "weightunits": 2, "taxjurisdictions": 2} {
			tb, _ := s.Table(table)
			n, err := s.Count(ctx, storage.Query{Table: tb, Org: 1})
			if err != nil || n != want {
				t.Errorf("%s: %d rows (%v), want %d", table, n, err, want)
			}
		}
	})
}
