package storage_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestSideConnectionQueuesForTheWriteSlot: River's connection to a SQLite
// file (SideDB) takes the store's write slot for each of its transactions,
// and for each statement outside one until its rows are closed, so that it
// waits for the store's writers in Go, woken when the slot frees, instead of
// sleeping in SQLite's busy handler (sideconn.go). A wait that outlasts its
// context fails with the slot's error, where SQLite's would be "database is
// locked" or "interrupted". PostgreSQL has no side connection: River uses
// the store's pgx pool there.
func TestSideConnectionQueuesForTheWriteSlot(t *testing.T) {
	t.Parallel()
	s := storagetest.Open(t, "sqlite")
	side, own, err := s.SideDB()
	if err != nil {
		t.Fatal(err)
	}
	if !own {
		t.Fatal("a SQLite file's side connection is the store's own")
	}
	t.Cleanup(func() { _ = side.Close() })
	ctx := context.Background()
	if _, err := side.ExecContext(ctx, "CREATE TABLE side_probe (n INTEGER)"); err != nil {
		t.Fatal(err)
	}
	// waits reports whether fn, given 50 ms, failed waiting for the slot.
	waits := func(t *testing.T, what string, fn func(ctx context.Context) error) {
		t.Helper()
		short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		err := fn(short)
		if err == nil {
			t.Fatalf("%s went ahead while the write slot was held", what)
		}
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "waiting for the SQLite writer") {
			t.Fatalf("%s: %v, want the write slot's wait to run out", what, err)
		}
	}
	sideExec := func(ctx context.Context) error {
		_, err := side.ExecContext(ctx, "INSERT INTO side_probe (n) VALUES (1)")
		return err
	}
	sideTx := func(ctx context.Context) error {
		tx, err := side.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		return tx.Rollback()
	}
	storeTx := func(ctx context.Context) error {
		return s.Tx(ctx, func(*storage.Conn) error { return nil })
	}

	t.Run("the store writing", func(t *testing.T) {
		err := s.Tx(ctx, func(*storage.Conn) error {
			waits(t, "a side statement", sideExec)
			waits(t, "a side transaction", sideTx)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if err := sideExec(ctx); err != nil {
			t.Fatalf("a side statement after the store's transaction: %v", err)
		}
	})

	t.Run("a side transaction", func(t *testing.T) {
		tx, err := side.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = tx.Rollback() }) // the connection free again, even on a failure
		if _, err := tx.ExecContext(ctx, "INSERT INTO side_probe (n) VALUES (2)"); err != nil {
			t.Fatal(err)
		}
		waits(t, "a store transaction beside a side transaction", storeTx)
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if err := storeTx(ctx); err != nil {
			t.Fatalf("a store transaction after the side one committed: %v", err)
		}
		tx, err = side.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = tx.Rollback() })
		waits(t, "a store transaction beside a side transaction", storeTx)
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
		if err := storeTx(ctx); err != nil {
			t.Fatalf("a store transaction after the side one rolled back: %v", err)
		}
	})

	t.Run("a side query's rows", func(t *testing.T) {
		for _, query := range []func() (*sql.Rows, error){
			func() (*sql.Rows, error) { return side.QueryContext(ctx, "SELECT n FROM side_probe") },
			func() (*sql.Rows, error) {
				st, err := side.PrepareContext(ctx, "SELECT n FROM side_probe WHERE n > ?")
				if err != nil {
					return nil, err
				}
				t.Cleanup(func() { _ = st.Close() })
				return st.QueryContext(ctx, 0)
			},
		} {
			rows, err := query()
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = rows.Close() }) // before the side connection closes, even on a failure
			if !rows.Next() {
				t.Fatalf("no row: %v", rows.Err())
			}
			waits(t, "a store transaction beside a side query's open rows", storeTx)
			if err := rows.Close(); err != nil {
				t.Fatal(err)
			}
			if err := storeTx(ctx); err != nil {
				t.Fatalf("a store transaction once the side query's rows closed: %v", err)
			}
		}
	})
}
