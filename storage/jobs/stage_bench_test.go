package jobs_test

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/entityapi/entityapi/storage/jobs"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// BenchmarkStageChunks is an upload's staging: 10 chunks of 100 staged
// accounts (about 8 kB of JSON each) in one StageChunks, as a batch of
// 100,000 stages a hundred times while its body is read. Run it with:
//
//	go test ./storage/jobs -run '^$' -bench StageChunks -benchmem
func BenchmarkStageChunks(b *testing.B) {
	for _, dialect := range storagetest.Dialects() {
		b.Run(dialect, func(b *testing.B) {
			s := storagetest.Open(b, dialect)
			ctx := context.Background()
			op := &jobs.Operation{OrganizationID: 1, EntityType: "accounts"}
			if err := jobs.CreateOperation(ctx, s.Conn, op); err != nil {
				b.Fatal(err)
			}
			items := make([]jobs.ChunkItem, 100)
			for i := range items {
				items[i] = jobs.ChunkItem{Index: i, Raw: json.RawMessage(`{"type":"accounts","attributes":{"name":"Batch 1 ` +
					strconv.Itoa(i) + `"}}`)}
			}
			raw, err := json.Marshal(items)
			if err != nil {
				b.Fatal(err)
			}
			number := 0
			for b.Loop() {
				chunks := make([]*jobs.Chunk, 10)
				for i := range chunks {
					number++
					chunks[i] = &jobs.Chunk{OperationID: op.ID, Number: number, Items: raw}
				}
				if err := jobs.StageChunks(ctx, s.Conn, chunks); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
