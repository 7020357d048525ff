package server_test

import (
	"context"
	"slices"
	"testing"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestReferenceTablesFollowTheDocuments holds three lists in step: the
// tables the documents' reference types read (resource.Registry.Reference),
// storage.ReferenceTables, and the counters migration 0023 made, whose
// triggers raise the generation the kept answers are checked against. A
// reference type whose table had no counter would be served stale after a
// change.
func TestReferenceTablesFollowTheDocuments(t *testing.T) {
	t.Parallel()
	var documents []string
	for _, reg := range documentRegistries(t) {
		documents = append(documents, reg.ReferenceTables()...)
	}
	slices.Sort(documents)
	documents = slices.Compact(documents)
	if !slices.Equal(documents, storage.ReferenceTables) {
		t.Errorf("the documents' reference data reads %v, storage.ReferenceTables lists %v", documents, storage.ReferenceTables)
	}
	for _, dialect := range storagetest.Dialects() {
		s := storagetest.Open(t, dialect)
		rows, err := s.DB().QueryContext(context.Background(), "SELECT table_name FROM reference_generations ORDER BY table_name")
		if err != nil {
			t.Fatal(err)
		}
		var counted []string
		for rows.Next() {
			var name string
			if err := rows.Scan(&name); err != nil {
				t.Fatal(err)
			}
			counted = append(counted, name)
		}
		rows.Close()
		if !slices.Equal(counted, storage.ReferenceTables) {
			t.Errorf("%s: reference_generations counts %v, storage.ReferenceTables lists %v", dialect, counted, storage.ReferenceTables)
		}
	}
}
