package storage

import (
	"context"
	"fmt"
	"time"
)

// This file holds the figures an operator watches (issue 9, metrics): the
// connection pool, batch operations by state and the depth of the job queue.
// They are plain values, read when asked: storage knows nothing of the
// metrics format, and the server reads them only when /metrics is scraped, so
// no API request pays a query for them.

// PoolStats describes the connection pool at one moment. WaitCount and
// WaitDuration add up since the start: how often, and how long, a query had to
// wait for a free connection.
type PoolStats struct {
	MaxOpen, Open, InUse, Idle int
	WaitCount                  int64
	WaitDuration               time.Duration
}

// PoolStats reports the pool that holds the connections: on PostgreSQL the
// pgx pool Bun and River share (database/sql over it only borrows them, so its
// own figures would say nothing), on SQLite database/sql's.
func (s *Store) PoolStats() PoolStats {
	if s.pool != nil {
		st := s.pool.Stat()
		return PoolStats{MaxOpen: int(st.MaxConns()), Open: int(st.TotalConns()), InUse: int(st.AcquiredConns()),
			Idle: int(st.IdleConns()), WaitCount: st.EmptyAcquireCount(), WaitDuration: st.EmptyAcquireWaitTime()}
	}
	st := s.db.DB.Stats()
	return PoolStats{MaxOpen: st.MaxOpenConnections, Open: st.OpenConnections, InUse: st.InUse, Idle: st.Idle,
		WaitCount: st.WaitCount, WaitDuration: st.WaitDuration}
}

// OperationStates lists every state an operation can be in, staging included.
var OperationStates = []string{OperationStaging, OperationNew, OperationRunning, OperationSuccess, OperationFailed, OperationCancelled}

// CountOperationsByState counts the batch operations of every organization by
// state; every state of OperationStates is in the map, 0 when none. One
// grouped query over the (status, updated_at) index.
func (s *Store) CountOperationsByState(ctx context.Context) (map[string]int, error) {
	counts := make(map[string]int, len(OperationStates))
	for _, st := range OperationStates {
		counts[st] = 0
	}
	if err := s.groupCount(ctx, counts, "SELECT status, COUNT(*) FROM "+opTable+" GROUP BY status"); err != nil {
		return nil, fmt.Errorf("storage: count operations by state: %w", err)
	}
	return counts, nil
}

// JobStates are the states of River jobs CountJobsByState reports: waiting
// to be taken, and being worked on.
var JobStates = []string{"available", "running"}

// CountJobsByState counts the job queue's jobs (chunks and housekeeping) that
// are available or running, over every process; both keys are always present.
// It reads River's own table, whose state index makes this cheap.
func (s *Store) CountJobsByState(ctx context.Context) (map[string]int, error) {
	counts := map[string]int{}
	for _, st := range JobStates {
		counts[st] = 0
	}
	err := s.groupCount(ctx, counts, "SELECT CAST(state AS TEXT), COUNT(*) FROM river_job WHERE state IN ('available', 'running') GROUP BY state")
	if err != nil {
		return nil, fmt.Errorf("storage: count jobs by state: %w", err)
	}
	return counts, nil
}

// groupCount runs a query of (key, count) rows into counts.
func (s *Store) groupCount(ctx context.Context, counts map[string]int, query string) error {
	rows, err := s.db.QueryContext(ctx, query)
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
