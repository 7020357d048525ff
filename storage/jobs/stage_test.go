package jobs_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// StageChunks writes chunks of one operation all or none: a number staged
// before makes none of them staged, and publishing counts what was staged.
func TestStageChunks(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		op := stageOperation(t, s, 1, nil, 1, false)
		chunk := func(k int) *jobs.Chunk {
			items, err := json.Marshal([]jobs.ChunkItem{{Index: k - 1, Raw: json.RawMessage(`{"type":"accounts"}`)}})
			if err != nil {
				t.Fatal(err)
			}
			return &jobs.Chunk{OperationID: op.ID, Number: k, Items: items}
		}
		var ue *storage.UniqueError
		if err := jobs.StageChunks(ctx, s.Conn, []*jobs.Chunk{chunk(2), chunk(1)}); !errors.As(err, &ue) {
			t.Fatalf("StageChunks with a number staged before = %v, want a UniqueError", err)
		}
		if err := jobs.StageChunks(ctx, s.Conn, []*jobs.Chunk{chunk(2), chunk(3), chunk(4)}); err != nil {
			t.Fatalf("StageChunks: %v", err)
		}
		other := chunk(5)
		other.OperationID++
		if err := jobs.StageChunks(ctx, s.Conn, []*jobs.Chunk{chunk(5), other}); err == nil {
			t.Fatal("StageChunks took chunks of two operations")
		}
		if err := jobs.PublishOperation(ctx, s.Conn, op.ID, 4, nil); err != nil {
			t.Fatalf("PublishOperation(4 chunks) after StageChunks: %v", err)
		}
		chunks, err := jobs.LoadChunks(ctx, s.Conn, op.ID, 1, 10)
		if err != nil || len(chunks) != 4 {
			t.Fatalf("Chunks = %d chunks, %v; want 4", len(chunks), err)
		}
	})
}

// TestStageChunksKeepsTheItems: a staged chunk's items and included items
// come back byte for byte (quotes, backslashes, a question mark, non-ASCII
// text), and a chunk without included items has none.
func TestStageChunksKeepsTheItems(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		op := stageOperation(t, s, 1, nil, 0, false)
		items := json.RawMessage(`[{"index":0,"raw":{"type":"accounts","attributes":{"name":"O'Brien \"Ltd\" ? \\ Zürich ✓"}}}]`)
		included := json.RawMessage(`[{"index":0,"raw":{"type":"contacts","attributes":{"last_name":"'?'"}}}]`)
		staged := []*jobs.Chunk{
			{OperationID: op.ID, Number: 1, Items: items, Included: included},
			{OperationID: op.ID, Number: 2, Items: items},
		}
		if err := jobs.StageChunks(ctx, s.Conn, staged); err != nil {
			t.Fatal(err)
		}
		if err := jobs.PublishOperation(ctx, s.Conn, op.ID, 2, nil); err != nil {
			t.Fatal(err)
		}
		chunks, err := jobs.LoadChunks(ctx, s.Conn, op.ID, 1, 2)
		if err != nil || len(chunks) != 2 {
			t.Fatalf("LoadChunks = %d chunks, %v; want 2", len(chunks), err)
		}
		for i, ch := range chunks {
			if string(ch.Items) != string(items) || string(ch.Included) != string(staged[i].Included) || ch.Done {
				t.Errorf("chunk %d: items %s, included %s, done %v; want %s, %s, false", ch.Number, ch.Items, ch.Included, ch.Done,
					items, staged[i].Included)
			}
		}
	})
}
