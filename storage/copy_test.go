package storage_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestInsertManyLargeGroupIsAtomic: a group large enough for COPY on
// PostgreSQL fails whole on a unique clash, with the same UniqueError as a
// multi-row INSERT, and rolls back with its transaction.
func TestInsertManyLargeGroupIsAtomic(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		units := storagetest.Table(t, s, "weightunits")
		if _, err := s.InsertMany(ctx, units, 1, []storage.Row{{"code": "dup"}}); err != nil {
			t.Fatal(err)
		}
		rows := make([]storage.Row, 200)
		for i := range rows {
			rows[i] = storage.Row{"code": fmt.Sprintf("u%03d", i)}
		}
		rows[150] = storage.Row{"code": "dup"}
		var ue *storage.UniqueError
		if _, err := s.InsertMany(ctx, units, 1, rows); !errors.As(err, &ue) {
			t.Fatalf("a clash among 200 rows: %v, want UniqueError", err)
		}
		if _, err := s.Get(ctx, units, 1, "u000"); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("u000 was kept after the failed InsertMany: %v", err)
		}
		errRollback := errors.New("roll back")
		err := s.Tx(ctx, func(c *storage.Conn) error {
			if _, err := c.InsertMany(ctx, units, 1, rows[:100]); err != nil {
				return err
			}
			if _, err := c.Get(ctx, units, 1, "u099"); err != nil {
				t.Errorf("u099 is not seen in its own transaction: %v", err)
			}
			return errRollback
		})
		if !errors.Is(err, errRollback) {
			t.Fatalf("Tx = %v", err)
		}
		if _, err := s.Get(ctx, units, 1, "u001"); !errors.Is(err, storage.ErrNotFound) {
			t.Errorf("u001 was kept after its transaction rolled back: %v", err)
		}
	})
}
