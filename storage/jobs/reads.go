package jobs

import (
	"context"
	"database/sql"
	"errors"
	"math"

	"github.com/entityapi/entityapi/storage"
)

// This file holds the reads of an operation's parts: its staged chunks, for
// the workers, and its errors, for the asyncoperationerrors resource.

// PendingChunks returns the chunks of an operation that are not done, by
// number (none: empty).
func PendingChunks(ctx context.Context, c *storage.Conn, opID int64) ([]Chunk, error) {
	chunks := []Chunk{}
	err := c.Bun().NewSelect().Model(&chunks).
		Where("operation_id = ? AND done = ?", opID, false).
		OrderExpr("number ASC").Scan(ctx)
	if err != nil {
		return nil, c.MapError("select", chunkTable, err)
	}
	return chunks, nil
}

// LoadChunk loads one chunk of an operation, done or not; storage.ErrNotFound when there
// is none.
func LoadChunk(ctx context.Context, c *storage.Conn, opID int64, number int) (*Chunk, error) {
	ch := new(Chunk)
	err := c.Bun().NewSelect().Model(ch).Where("operation_id = ? AND number = ?", opID, number).Limit(1).Scan(ctx)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, storage.ErrNotFound
	}
	if err != nil {
		return nil, c.MapError("select", chunkTable, err)
	}
	return ch, nil
}

// LoadChunks loads the chunks of an operation numbered from first to
// first+count-1, done or not, by number; missing ones are left out.
func LoadChunks(ctx context.Context, c *storage.Conn, opID int64, first, count int) ([]Chunk, error) {
	chunks := []Chunk{}
	err := c.Bun().NewSelect().Model(&chunks).
		Where("operation_id = ? AND number >= ? AND number < ?", opID, first, first+count).
		OrderExpr("number ASC").Scan(ctx)
	if err != nil {
		return nil, c.MapError("select", chunkTable, err)
	}
	return chunks, nil
}

// PendingChunkNumbers returns the numbers of an operation's chunks that are
// not done, in order (none: empty).
func PendingChunkNumbers(ctx context.Context, c *storage.Conn, opID int64) ([]int, error) {
	numbers := []int{}
	err := c.Bun().NewSelect().Table(chunkTable).Column("number").
		Where("operation_id = ? AND done = ?", opID, false).
		OrderExpr("number ASC").Scan(ctx, &numbers)
	if err != nil {
		return nil, c.MapError("select", chunkTable, err)
	}
	return numbers, nil
}

// Errors returns a page of an operation's errors in chunk, then n
// order; limit 0 means no limit. None: empty.
func Errors(ctx context.Context, c *storage.Conn, opID int64, limit, offset int) ([]OperationError, error) {
	errs := []OperationError{}
	q := c.Bun().NewSelect().Model(&errs).
		Where("operation_id = ?", opID).
		OrderExpr("chunk ASC, n ASC")
	if limit > 0 {
		q = q.Limit(int64(limit))
	}
	if offset > 0 {
		if limit <= 0 && c.Features().OffsetWithoutLimit != "" {
			q = q.Limit(math.MaxInt64) // SQLite has OFFSET only after a LIMIT (Bun drops -1)
		}
		q = q.Offset(int64(offset))
	}
	if err := q.Scan(ctx); err != nil {
		return nil, c.MapError("select", errTable, err)
	}
	return errs, nil
}

// CountErrors returns how many errors an operation has.
func CountErrors(ctx context.Context, c *storage.Conn, opID int64) (int, error) {
	n, err := c.Bun().NewSelect().Table(errTable).Where("operation_id = ?", opID).Count(ctx)
	if err != nil {
		return 0, c.MapError("count", errTable, err)
	}
	return int(n), nil
}
