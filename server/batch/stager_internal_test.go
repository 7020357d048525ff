package batch

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestStagerGroupsBySize stages chunks as an upload does, through the
// stager: 300 chunks of about 10 KB go in transactions of at least
// stageBytes (the last one aside), so 7 INSERTs rather than one per chunk or
// handful of chunks; a chunk larger than stageQueued, after a small one, is staged
// too rather than waiting for room forever; every chunk is stored once,
// whole.
func TestStagerGroupsBySize(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		op, inserts := stagingOperation(t, s)
		sizes := make(map[int]int)
		st := startStaging(ctx, s.Conn)
		stage := func(number, bytes int) {
			t.Helper()
			ch := &jobs.Chunk{OperationID: op.ID, Number: number, Items: stagedItems(number, bytes)}
			sizes[number] = len(ch.Items)
			if err := st.stage(ch); err != nil {
				t.Fatal(err)
			}
		}
		const small = 300
		for k := 1; k <= small; k++ {
			stage(k, 10<<10)
		}
		stage(small+1, stageQueued+1<<20) // larger than the room itself
		stage(small+2, 1<<10)
		if err := st.wait(); err != nil {
			t.Fatal(err)
		}
		// 300 × 10 KB in groups of at least 512 KB: 5 groups of 52
		// chunks, the 40 left with the large one (which fills a group),
		// then the last small one. (More only if the test stalled for
		// stageWait between two chunks.)
		if n := inserts.count(); n > 7 {
			t.Errorf("%d INSERTs of staged chunks for %d chunks, want 7 (groups of at least %d bytes)", n, small+2, stageBytes)
		}
		chunks, err := jobs.LoadChunks(ctx, s.Conn, op.ID, 1, small+2)
		if err != nil {
			t.Fatal(err)
		}
		if len(chunks) != small+2 {
			t.Fatalf("%d chunks staged, want %d", len(chunks), small+2)
		}
		for i, ch := range chunks {
			if ch.Number != i+1 || len(ch.Items) != sizes[ch.Number] {
				t.Fatalf("staged chunk %d is number %d of %d bytes, want number %d of %d", i, ch.Number, len(ch.Items), i+1, sizes[i+1])
			}
		}
		if st.queued != 0 {
			t.Errorf("%d bytes still counted as queued after the upload", st.queued)
		}
	})
}

// stagedItems is a staged chunk's items of about size bytes: one item whose
// name fills it.
func stagedItems(number, size int) []byte {
	name := strings.Repeat("x", max(0, size-80))
	return []byte(`[{"index":` + strconv.Itoa(number) + `,"raw":{"type":"accounts","attributes":{"name":"` + name + `"}}}]`)
}

// TestStagingManySmallChunks stages 14,000 chunks of one small item
// (200 KB in all, under stageBytes, so one transaction): jobs.StageChunks
// splits their rows into statements within storage.MaxParams, which both
// databases take (one statement of them all would pass SQLite's 32,766 and
// PostgreSQL's 65,535 parameters).
func TestStagingManySmallChunks(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		op, inserts := stagingOperation(t, s)
		const total = 14_000
		st := startStaging(ctx, s.Conn)
		for k := 1; k <= total; k++ {
			if err := st.stage(&jobs.Chunk{OperationID: op.ID, Number: k, Items: []byte(`[{"index":0,"raw":{}}]`)}); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.wait(); err != nil {
			t.Fatalf("staging %d small chunks: %v", total, err)
		}
		if least := total * 5 / storage.MaxParams; inserts.count() < least {
			t.Errorf("%d INSERTs for %d chunks, want at least %d", inserts.count(), total, least)
		}
		var staged int
		if err := s.DB().NewSelect().Table("async_operation_chunks").ColumnExpr("count(*)").
			Where("operation_id = ?", op.ID).Scan(ctx, &staged); err != nil || staged != total {
			t.Errorf("%d chunks staged (%v), want %d", staged, err, total)
		}
	})
}

// stagingOperation creates an operation to stage chunks under and counts
// the statements that stage them.
func stagingOperation(t *testing.T, s *storage.Store) (*jobs.Operation, *statementCount) {
	t.Helper()
	op := &jobs.Operation{OrganizationID: 1, EntityType: "accounts"}
	if err := jobs.CreateOperation(context.Background(), s.Conn, op); err != nil {
		t.Fatal(err)
	}
	inserts := &statementCount{match: func(q string) bool { return strings.HasPrefix(q, "INSERT INTO async_operation_chunks") }}
	s.AddStatementHook(inserts)
	return op, inserts
}
