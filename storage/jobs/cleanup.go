package jobs

import (
	"context"
	"time"

	"github.com/uptrace/bun"

	"github.com/entityapi/entityapi/storage"
)

// This file holds the housekeeping of operations (Queue.maintain): what
// has lived past its lifetime or stopped moving is found, deleted or
// touched.

// DeleteFinishedBefore deletes the operations that ended before t
// and have not changed since (with their chunks and errors) and returns how
// many it deleted: the periodic cleanup after the operation lifetime.
func DeleteFinishedBefore(ctx context.Context, c *storage.Conn, t time.Time) (int, error) {
	var n int64
	err := c.Atomic(ctx, func(c *storage.Conn) error {
		res, err := c.Bun().NewDelete().Table(opTable).
			Where("status IN (?) AND updated_at < ? AND finished_at < ?", bun.In(finalStatuses), t.UTC(), t.UTC()).Exec(ctx)
		if err != nil {
			return c.MapError("delete", opTable, err)
		}
		n, err = res.RowsAffected()
		return err
	})
	return int(n), err
}

// StaleStaging returns the ids of staging operations untouched (neither
// created nor given a chunk) since before, in id order: uploads that were
// abandoned, or whose process died before publishing them.
func StaleStaging(ctx context.Context, c *storage.Conn, before time.Time) ([]int64, error) {
	ids := []int64{}
	err := c.Bun().NewSelect().Table(opTable).Column("id").
		Where("status = ? AND updated_at < ?", StatusStaging, before.UTC()).
		OrderExpr("id ASC").Scan(ctx, &ids)
	if err != nil {
		return nil, c.MapError("select", opTable, err)
	}
	return ids, nil
}

// DeleteOperation deletes an operation in any state with its chunks and
// errors: an upload that failed or was abandoned, or a synchronous batch
// answered in time. storage.ErrNotFound when it is missing.
func DeleteOperation(ctx context.Context, c *storage.Conn, id int64) error {
	return c.Atomic(ctx, func(c *storage.Conn) error {
		for _, table := range []string{errTable, chunkTable} {
			if _, err := c.Bun().NewDelete().Table(table).Where("operation_id = ?", id).Exec(ctx); err != nil {
				return c.MapError("delete", table, err)
			}
		}
		res, err := c.Bun().NewDelete().Table(opTable).Where("id = ?", id).Exec(ctx)
		return c.Affected("delete", opTable, res, err)
	})
}

// Stalled returns the new and running operations unchanged since
// before, oldest first: their chunks were never enqueued or their process
// died (see Queue.maintain).
func Stalled(ctx context.Context, c *storage.Conn, before time.Time) ([]Operation, error) {
	ops := []Operation{}
	err := c.Bun().NewSelect().Model(&ops).
		Where("status IN (?, ?) AND updated_at < ?", StatusNew, StatusRunning, before.UTC()).
		OrderExpr("id ASC").Limit(1000).Scan(ctx)
	if err != nil {
		return nil, c.MapError("select", opTable, err)
	}
	return ops, nil
}

// TouchOperation sets an operation's updated_at to now, so that a stalled
// operation whose chunks were just re-enqueued is not re-enqueued again at
// once. storage.ErrNotFound when it is missing.
func TouchOperation(ctx context.Context, c *storage.Conn, id int64) error {
	return c.Atomic(ctx, func(c *storage.Conn) error {
		res, err := c.Bun().NewUpdate().Table(opTable).Set("updated_at = ?", storage.Now()).Where("id = ?", id).Exec(ctx)
		return c.Affected("update", opTable, res, err)
	})
}
