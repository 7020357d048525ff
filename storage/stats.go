package storage

import "github.com/entityapi/entityapi/storage/dialect"

// This file holds the figures an operator watches of the database (issue 9,
// metrics): the connection pool (batch operations by state and the depth of
// the job queue are storage/jobs'). They are plain values, read when asked: storage knows nothing of the
// metrics format, and the server reads them only when /metrics is scraped, so
// no API request pays a query for them.

// PoolStats describes the connection pool at one moment. WaitCount and
// WaitDuration add up since the start: how often, and how long, a query had to
// wait for a free connection.
type PoolStats = dialect.PoolStats

// PoolStats reports the pool that holds the connections: on PostgreSQL the
// pgx pool Bun and River share (database/sql over it only borrows them, so its
// own figures would say nothing), on SQLite database/sql's.
func (s *Store) PoolStats() PoolStats { return s.d.PoolStats() }
