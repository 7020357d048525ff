package storage_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestReferenceLease: with the lease kept, the reference mark holds still
// over the lease's cycles while nothing changes, and a change of reference
// data made through another store (another process) has moved it, or
// lapsed it, by the time the change's commit returns, and holds again at a
// new value; on PostgreSQL that
// commit waited for the fence (migration 0024), at least the lease's term.
// On SQLite there is no lease, and the mark is the commit mark.
func TestReferenceLease(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			s, other := storagetest.OpenTwo(t, dialect)
			ctx, stop := context.WithCancel(context.Background())
			defer stop()
			s.KeepReferenceLease(ctx)
			if s.Pooler() == storage.PoolerTransaction {
				leaseBehindThePooler(t, s, other)
				return
			}
			held := func() storage.CommitMark {
				t.Helper()
				for range 500 {
					if m, ok := s.ReferenceMark(); ok {
						return m
					}
					time.Sleep(10 * time.Millisecond)
				}
				t.Fatal("the reference mark never held")
				return storage.CommitMark{}
			}
			before := held()
			time.Sleep(200 * time.Millisecond) // several of the lease's cycles
			if m := held(); m != before {
				t.Errorf("the mark moved with nothing changed: %v, then %v", before, m)
			}
			for i, stmt := range []string{
				"UPDATE countries SET name_en = name_en WHERE code = 'US'",
				"UPDATE regions SET name_en = name_en WHERE code = 'DE-BY'",
			} {
				start := time.Now()
				if _, err := other.DB().ExecContext(context.Background(), stmt); err != nil {
					t.Fatal(err)
				}
				took := time.Since(start)
				if m, ok := s.ReferenceMark(); ok && m == before {
					t.Errorf("change %d: the mark stayed after the change committed", i)
				}
				if dialect == "postgres" && took < storage.ReferenceLeaseTerm {
					t.Errorf("change %d committed in %v, before the lease's term of %v", i, took, storage.ReferenceLeaseTerm)
				}
				after := held()
				if after == before {
					t.Errorf("change %d: the mark held again unchanged after the change", i)
				}
				before = after
			}
		})
	}
}

// leaseBehindThePooler: behind a pooler in transaction mode no session
// holds the lease, so the mark never holds and every request reads the
// generation; a change still waits the lease's term.
func leaseBehindThePooler(t *testing.T, s, other *storage.Store) {
	time.Sleep(100 * time.Millisecond)
	if _, ok := s.ReferenceMark(); ok {
		t.Error("behind a pooler in transaction mode the reference mark holds")
	}
	start := time.Now()
	if _, err := other.DB().ExecContext(context.Background(), "UPDATE countries SET name_en = name_en WHERE code = 'US'"); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < storage.ReferenceLeaseTerm {
		t.Errorf("a change committed in %v, before the lease's term of %v", took, storage.ReferenceLeaseTerm)
	}
}

// TestReferenceFenceMatchesTheLease: migration 0024's function takes the
// lock the lease holds, and waits the lease's term.
func TestReferenceFenceMatchesTheLease(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		if dialect != "postgres" {
			continue // SQLite has no fence: its mark is in shared memory
		}
		t.Run(dialect, func(t *testing.T) {
			s := storagetest.Open(t, dialect)
			var def string
			if err := s.DB().QueryRowContext(context.Background(),
				"SELECT pg_get_functiondef('entityapi_reference_changed'::regproc)").Scan(&def); err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{
				"pg_advisory_xact_lock(" + strconv.Itoa(storage.ReferenceFenceKey) + ")",
				"pg_sleep(" + strconv.FormatFloat(storage.ReferenceLeaseTerm.Seconds(), 'f', -1, 64) + ")",
			} {
				if !strings.Contains(def, want) {
					t.Errorf("the function does not say %s:\n%s", want, def)
				}
			}
		})
	}
}

// TestReferenceLeaseIdle: a process holds the lease only while the mark is
// asked for: not before the first ask, and it lets the lock go (its
// session ends) after a while without one, until the next.
func TestReferenceLeaseIdle(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		if dialect != "postgres" {
			continue // SQLite has no lease
		}
		t.Run(dialect, func(t *testing.T) {
			s := storagetest.Open(t, dialect)
			if s.Pooler() == storage.PoolerTransaction {
				t.Skip("behind a pooler in transaction mode no lease is held")
			}
			ctx, stop := context.WithCancel(context.Background())
			defer stop()
			s.KeepReferenceLeaseIdle(ctx, 300*time.Millisecond)
			holders := func() int {
				t.Helper()
				var n int
				if err := s.DB().DB.QueryRowContext(context.Background(), `SELECT count(*) FROM pg_locks
					WHERE locktype = 'advisory' AND objid = $1 AND granted
					AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
					storage.ReferenceFenceKey).Scan(&n); err != nil {
					t.Fatal(err)
				}
				return n
			}
			until := func(what string, ok func() bool) {
				t.Helper()
				for range 500 {
					if ok() {
						return
					}
					time.Sleep(10 * time.Millisecond)
				}
				t.Fatalf("never: %s", what)
			}
			time.Sleep(100 * time.Millisecond)
			if n := holders(); n != 0 {
				t.Errorf("%d holders of the lock before the mark was asked for", n)
			}
			for range 2 { // taken when asked for, let go when not
				until("the mark holds", func() bool { _, ok := s.ReferenceMark(); return ok })
				if n := holders(); n != 1 {
					t.Errorf("%d holders of the lock while the lease holds", n)
				}
				until("the idle lease lets go", func() bool { return holders() == 0 })
			}
		})
	}
}
