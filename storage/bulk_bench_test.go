package storage_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// BenchmarkInsertMany1000 is the write of a batch job: 1,000 new accounts
// (a name each) in one InsertMany, as ten chunks of a batch write them
// (server/batchjob.go). Run it with:
//
//	go test ./storage -run '^$' -bench InsertMany -benchmem
func BenchmarkInsertMany1000(b *testing.B) {
	eachBenchDialect(b, func(b *testing.B, dialect string) {
		s := storagetest.Open(b, dialect)
		accounts := storagetest.Table(b, s, "accounts")
		ctx := context.Background()
		rows := make([]storage.Row, 1000)
		n := 0
		for b.Loop() {
			for i := range rows {
				n++
				rows[i] = storage.Row{"name": "Bulk " + strconv.Itoa(n)}
			}
			if _, err := s.InsertMany(ctx, accounts, 1, rows); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "rows/s")
	})
}
