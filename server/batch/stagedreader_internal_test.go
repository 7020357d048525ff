package batch

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestStagedReaderReadsAsRunsNeed: a job of 120 chunks, asked for runs of
// ten in order, reads its staged chunks 50 at a time (three queries, not one
// of 120 at its start nor one per run), hands each run its own chunks in
// order, and never holds more than 50 read and not handed over.
func TestStagedReaderReadsAsRunsNeed(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		op := &jobs.Operation{OrganizationID: 1, EntityType: "accounts"}
		if err := jobs.CreateOperation(ctx, s.Conn, op); err != nil {
			t.Fatal(err)
		}
		const total = 120
		for k := 1; k <= total; k++ {
			items, err := json.Marshal([]jobs.ChunkItem{{Index: k - 1, Raw: json.RawMessage(`{"type":"accounts"}`)}})
			if err != nil {
				t.Fatal(err)
			}
			if err := jobs.StageChunk(ctx, s.Conn, &jobs.Chunk{OperationID: op.ID, Number: k, Items: items}); err != nil {
				t.Fatal(err)
			}
		}
		reads := &chunkReads{}
		s.AddStatementHook(reads)
		r := &stagedReader{conn: s.Conn, op: op.ID, end: 1 + total}
		for first := 1; first <= total; first += chunksPerTx {
			run, err := r.run(ctx, first, chunksPerTx)
			if err != nil {
				t.Fatal(err)
			}
			if len(run) != chunksPerTx {
				t.Fatalf("run from %d: %d chunks, want %d", first, len(run), chunksPerTx)
			}
			for i, ch := range run {
				if ch.Number != first+i || len(ch.Items) == 0 {
					t.Fatalf("run from %d: chunk %d is number %d with %d bytes of items", first, i, ch.Number, len(ch.Items))
				}
			}
			if len(r.read) > chunksPerRead {
				t.Fatalf("after the run from %d the reader holds %d chunks, want at most %d", first, len(r.read), chunksPerRead)
			}
		}
		if n := reads.count(); n != 3 {
			t.Errorf("%d reads of staged chunks for 120 chunks, want 3 (50, 50, 20)", n)
		}
	})
}

// chunkReads counts the statements that read staged chunks.
type chunkReads struct {
	mu sync.Mutex
	n  int
}

func (c *chunkReads) BeforeStatement(ctx context.Context, query string) context.Context {
	if strings.HasPrefix(query, "SELECT") && strings.Contains(query, `FROM "async_operation_chunks"`) {
		c.mu.Lock()
		c.n++
		c.mu.Unlock()
	}
	return ctx
}

func (c *chunkReads) AfterStatement(context.Context, string, error) {}

func (c *chunkReads) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}
