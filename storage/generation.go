package storage

import "context"

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
func (s *Store) ReferenceGeneration(ctx context.Context) (int64, error) {
	var st sqlText
	st.add("SELECT COALESCE(SUM(generation), 0) FROM reference_generations")
	var g int64
	if err := s.Conn.queryRow(ctx, &st, &g); err != nil {
		return 0, s.mapError("read the reference generation", "reference_generations", err)
	}
	return g, nil
}

// primaryKey marks a context whose reads stay on the primary (OnPrimary).
type primaryKey struct{}

// OnPrimary is ctx whose reads go to the primary even when a replica is
// fresh (ReadConn): an answer the cache keeps is tagged with the primary's
// generation, so it must show the primary's rows.
func OnPrimary(ctx context.Context) context.Context {
	return context.WithValue(ctx, primaryKey{}, true)
}
