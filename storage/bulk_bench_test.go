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
// (server/batch/chunk/write.go), in a transaction: without change events (plain),
// with one per row (noted: storage.Conn.Noting), and with one per row in a
// transaction of Store.Bulk (bulk, as a batch job writes them: on SQLite a
// connection without note triggers). Run it with:
//
//	go test ./storage -run '^$' -bench InsertMany -benchmem
func BenchmarkInsertMany1000(b *testing.B) {
	eachBenchDialect(b, func(b *testing.B, dialect string) {
		for _, name := range []string{"plain", "noted", "bulk"} {
			b.Run(name, func(b *testing.B) {
				s := storagetest.Open(b, dialect)
				accounts := storagetest.Table(b, s, "accounts")
				ctx := context.Background()
				one := int64(1)
				note := storage.Event{Org: 1, Type: "accounts", Action: storage.EventCreated, Table: accounts,
					Version: &one, Attributes: []string{"name"}, Client: "bench", User: 1}
				conn := s.Conn
				if name == "bulk" {
					conn = s.Bulk()
				}
				rows := make([]storage.Row, 1000)
				n := 0
				for b.Loop() {
					for i := range rows {
						n++
						rows[i] = storage.Row{"name": "Bulk " + strconv.Itoa(n)}
					}
					err := conn.Tx(ctx, func(c *storage.Conn) error {
						if name != "plain" {
							c = c.Noting(note)
						}
						_, err := c.InsertMany(ctx, accounts, 1, rows)
						return err
					})
					if err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "rows/s")
			})
		}
	})
}
