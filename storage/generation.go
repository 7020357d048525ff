package storage

import (
	"context"

	"github.com/entityapi/entityapi/storage/dialect"
)

// ReferenceTables are the tables of reference data (issue 34; docs/answers.md):
// those of the resources whose answers are the same for every organization
// (resource.Registry.ReferenceTables of each application). Migration 0023
// gives each a counter in reference_generations and the triggers that raise
// it; TestReferenceTablesFollowTheDocuments holds this list to the
// documents and the schema.
var ReferenceTables = []string{"countries", "currencies", "localizations", "regions", "userroles"}

// ReferenceGeneration is the sum of the reference tables' counters as
// committed now, on the primary: it grows with every committed change to
// any of them, whoever made it. The answer cache reads it before serving a
// kept answer; a read on a replica could be behind a change the client has
// seen.
//
// In a database of this process (Features.InProcess) the reading drops
// ctx's deadline: a deadline makes the driver and database/sql watch the
// context with a goroutine each, which costs more than the reading, and
// busy_timeout already bounds its only wait. Its callers still stop
// waiting for it at their own deadline (answercache.rounds).
func (s *Store) ReferenceGeneration(ctx context.Context) (int64, error) {
	if s.f.InProcess {
		ctx = context.WithoutCancel(ctx)
	}
	var st sqlText
	st.add(referenceGenerationQuery)
	var g int64
	if err := s.Conn.queryRow(ctx, &st, &g); err != nil {
		return 0, s.mapError("read the reference generation", "reference_generations", err)
	}
	return g, nil
}

// CommitMark is a value that every commit to the database, by any process,
// changes, read without a statement; ok is false where the database cannot
// tell so (PostgreSQL, ":memory:") or not now. The answer cache takes one
// before each reading of ReferenceGeneration: while the mark stays, nothing
// was committed, and that reading still holds (docs/answers.md).
func (s *Store) CommitMark() (CommitMark, bool) {
	if s.marks == nil {
		return CommitMark{}, false
	}
	return s.marks.CommitMark()
}

// CommitMark is what Store.CommitMark reads; equal marks read at two
// moments mean no commit between them.
type CommitMark = dialect.CommitMark

// referenceGenerationQuery reads the generation: the sum of the counters.
const referenceGenerationQuery = "SELECT COALESCE(SUM(generation), 0) FROM reference_generations"

// primaryKey marks a context whose reads stay on the primary (OnPrimary).
type primaryKey struct{}

// OnPrimary is ctx whose reads go to the primary even when a replica is
// fresh (ReadConn): an answer the cache keeps is tagged with the primary's
// generation, so it must show the primary's rows.
func OnPrimary(ctx context.Context) context.Context {
	return context.WithValue(ctx, primaryKey{}, true)
}
