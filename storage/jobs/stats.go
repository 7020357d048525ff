package jobs

import (
	"context"
	"fmt"

	"github.com/entityapi/entityapi/storage"
)

// This file holds the figures an operator watches of batch work (issue 9,
// metrics): operations by state and the depth of the job queue. They are
// plain values, read when asked: the server reads them only when /metrics
// is scraped, so no API request pays a query for them.

// Statuses lists every state an operation can be in, staging included.
var Statuses = []string{StatusStaging, StatusNew, StatusRunning, StatusSuccess, StatusFailed, StatusCancelled}

// CountByState counts the batch operations of every organization by state;
// every state of Statuses is in the map, 0 when none. One grouped query over
// the (status, updated_at) index.
func CountByState(ctx context.Context, c *storage.Conn) (map[string]int, error) {
	counts := make(map[string]int, len(Statuses))
	for _, st := range Statuses {
		counts[st] = 0
	}
	if err := groupCount(ctx, c, counts, "SELECT status, COUNT(*) FROM "+opTable+" GROUP BY status"); err != nil {
		return nil, fmt.Errorf("jobs: count operations by state: %w", err)
	}
	return counts, nil
}

// QueueStates are the states of River jobs CountQueued reports: waiting to
// be taken, and being worked on.
var QueueStates = []string{"available", "running"}

// CountQueued counts the job queue's jobs (chunks and housekeeping) that are
// available or running, over every process; both keys are always present.
// It reads River's own table, whose state index makes this cheap.
func CountQueued(ctx context.Context, c *storage.Conn) (map[string]int, error) {
	counts := map[string]int{}
	for _, st := range QueueStates {
		counts[st] = 0
	}
	err := groupCount(ctx, c, counts, "SELECT CAST(state AS TEXT), COUNT(*) FROM river_job WHERE state IN ('available', 'running') GROUP BY state")
	if err != nil {
		return nil, fmt.Errorf("jobs: count jobs by state: %w", err)
	}
	return counts, nil
}

// groupCount runs a query of (key, count) rows into counts.
func groupCount(ctx context.Context, c *storage.Conn, counts map[string]int, query string) error {
	rows, err := c.Bun().QueryContext(ctx, query)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var key string
		var n int
		if err := rows.Scan(&key, &n); err != nil {
			return err
		}
		counts[key] = n
	}
	return rows.Err()
}
