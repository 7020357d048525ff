package storage

import (
	"context"
)

// sqliteAnalysisLimit bounds the rows ANALYZE reads per index, so that keeping
// the statistics fresh costs milliseconds however large the tables grow
// (SQLite's recommended setting for PRAGMA optimize).
const sqliteAnalysisLimit = 400

// Optimize refreshes SQLite's planner statistics where they are missing or
// stale (PRAGMA optimize; PostgreSQL's autovacuum does this by itself). Without
// them SQLite takes organization_id for a selective index: a page of related
// records (the key IN a subquery, see viaCond) then scans every row of the
// organization and sorts it, where with them it looks up the keys (issue 15,
// 20,000 accounts). The housekeeping runs it every minute; it analyzes only
// tables never analyzed or changed 25-fold since.
func (s *Store) Optimize(ctx context.Context) error {
	release, err := s.acquireWrite(ctx) // ANALYZE writes sqlite_stat1
	if err != nil {
		return err
	}
	defer release()
	return s.d.Optimize(ctx)
}
