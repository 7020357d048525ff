package batch

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestStagedReaderReadsAsRunsNeed: a job of 120 chunks, asked for its runs
// in order, reads its staged chunks 50 at a time (three queries, not one of
// 120 at its start nor one per run), hands each run its own chunks in
// order, and never holds more than 50 read and not handed over; a run
// longer than a read (70 chunks) gets all its chunks, read twice.
func TestStagedReaderReadsAsRunsNeed(t *testing.T) {
	for _, runSize := range []int{chunksPerTx, 70} {
		t.Run(strconv.Itoa(runSize), func(t *testing.T) { testStagedReader(t, runSize) })
	}
}

func testStagedReader(t *testing.T, runSize int) {
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
		reads := &statementCount{match: func(q string) bool {
			return strings.HasPrefix(q, "SELECT") && strings.Contains(q, `FROM "async_operation_chunks"`)
		}}
		s.AddStatementHook(reads)
		r := &stagedReader{conn: s.Conn, op: op.ID, end: 1 + total}
		for first := 1; first <= total; first += runSize {
			want := min(runSize, total+1-first)
			run, err := r.run(ctx, first, want)
			if err != nil {
				t.Fatal(err)
			}
			if len(run) != want {
				t.Fatalf("run from %d: %d chunks, want %d", first, len(run), want)
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

// statementCount counts the statements a store runs that match.
type statementCount struct {
	match func(query string) bool
	mu    sync.Mutex
	n     int
}

func (c *statementCount) BeforeStatement(ctx context.Context, query string) context.Context {
	if c.match(query) {
		c.mu.Lock()
		c.n++
		c.mu.Unlock()
	}
	return ctx
}

func (c *statementCount) AfterStatement(context.Context, string, error) {}

func (c *statementCount) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}
