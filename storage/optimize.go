package storage

import (
	"context"
)

// Optimize refreshes the planner's statistics where the database does not by
// itself (the dialect's Optimize: SQLite's PRAGMA optimize, with its analysis
// limit; on PostgreSQL an ANALYZE of the tables that about doubled since
// their last analysis, where autovacuum is off or behind), under the write
// slot. Without them SQLite takes organization_id for a selective index: a
// page of related records (the key IN a subquery, see viaCond) then scans
// every row of the organization and sorts it, where with them it looks up
// the keys (issue 15, 20,000 accounts); PostgreSQL keeps the plans of
// prepared statements it made when a table was small (issue 30, item 7).
// The housekeeping runs it every minute; SQLite analyzes only tables never
// analyzed or changed 25-fold since.
func (s *Store) Optimize(ctx context.Context) error {
	release, err := s.acquireWrite(ctx) // ANALYZE writes (SQLite: sqlite_stat1)
	if err != nil {
		return err
	}
	defer release()
	return s.d.Optimize(ctx)
}
