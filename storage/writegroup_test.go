package storage_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// queueBehindSlot holds the SQLite write slot, starts each write in a
// goroutine of its own once the one before it waits in the queue (so the
// queue's order is the writes' order), lets the slot go and returns each
// write's error (or the value it panicked with, as an error).
func queueBehindSlot(t *testing.T, s *storage.Store, writes ...func() error) []error {
	t.Helper()
	release, err := s.HoldWriteSlot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	errs := make([]error, len(writes))
	var wg sync.WaitGroup
	for i, write := range writes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if v := recover(); v != nil {
					errs[i] = fmt.Errorf("panic: %v", v)
				}
			}()
			errs[i] = write()
		}()
		waitFor(t, func() bool { return s.QueuedWrites() == i+1 })
	}
	release()
	wg.Wait()
	return errs
}

// waitFor polls cond for up to a minute.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("timed out waiting")
		}
	}
}

// accountNames is the names of organization 1's accounts, each with how
// many rows have it.
func accountNames(t *testing.T, s *storage.Store) map[string]int {
	t.Helper()
	rows, err := s.Find(context.Background(), storage.Query{Table: storagetest.Table(t, s, "accounts"), Org: 1})
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]int{}
	for _, r := range rows {
		names[r["name"].(string)]++
	}
	return names
}

// eventCount is how many change events the store holds (on PostgreSQL
// those not yet numbered too).
func eventCount(t *testing.T, s *storage.Store) int {
	t.Helper()
	total := 0
	tables := []string{"events"}
	if s.Dialect() == "postgres" {
		tables = append(tables, "event_outbox")
	}
	for _, table := range tables {
		var n int
		if err := s.DB().NewSelect().Table(table).ColumnExpr("count(*)").Scan(context.Background(), &n); err != nil {
			t.Fatal(err)
		}
		total += n
	}
	return total
}

// TestQueuedWritesCommitTogether: on SQLite, single writes that wait for
// the write slot commit in one transaction, each with its own outcome and
// event: creates, updates and deletes, one create clashing on a unique key
// and one update of a row that is not there (both backed out alone, the
// group goes on).
func TestQueuedWritesCommitTogether(t *testing.T) {
	t.Parallel()
	s := storagetest.Open(t, "sqlite")
	ctx := context.Background()
	accounts := storagetest.Table(t, s, "accounts")
	ev := func(action string) *storage.Conn {
		return s.Noting(storage.Event{Org: 1, Type: "accounts", Action: action, Attributes: []string{"name"}})
	}
	first, err := ev(storage.EventCreated).InsertRow(ctx, accounts, 1, storage.Row{"name": "First", "external_id": "X-1"})
	if err != nil {
		t.Fatal(err)
	}
	doomed, err := ev(storage.EventCreated).InsertRow(ctx, accounts, 1, storage.Row{"name": "Doomed"})
	if err != nil {
		t.Fatal(err)
	}
	before := eventCount(t, s)
	var renamed storage.Row
	errs := queueBehindSlot(t, s,
		func() error {
			_, err := ev(storage.EventCreated).InsertRow(ctx, accounts, 1, storage.Row{"name": "A"})
			return err
		},
		func() error {
			_, err := ev(storage.EventCreated).InsertRow(ctx, accounts, 1, storage.Row{"name": "Twin", "external_id": "X-1"})
			return err
		},
		func() error {
			var err error
			renamed, err = ev(storage.EventUpdated).UpdateRow(ctx, accounts, 1, first["id"], storage.Row{"name": "First renamed"})
			return err
		},
		func() error {
			_, err := ev(storage.EventUpdated).UpdateRow(ctx, accounts, 1, int64(999999), storage.Row{"name": "Nobody"})
			return err
		},
		func() error { return ev(storage.EventDeleted).Delete(ctx, accounts, 1, doomed["id"]) },
		func() error {
			_, err := ev(storage.EventCreated).InsertRow(ctx, accounts, 1, storage.Row{"name": "B"})
			return err
		},
	)
	var unique *storage.UniqueError
	if errs[0] != nil || !errors.As(errs[1], &unique) || errs[2] != nil || !errors.Is(errs[3], storage.ErrNotFound) || errs[4] != nil || errs[5] != nil {
		t.Fatalf("outcomes %v", errs)
	}
	if renamed["name"] != "First renamed" || renamed["version"] != int64(2) {
		t.Errorf("the update answered %v", renamed)
	}
	if got := s.WriteGroups(); got != 1 {
		t.Errorf("%d transactions committed a group, want 1", got)
	}
	names := accountNames(t, s)
	if names["A"] != 1 || names["B"] != 1 || names["First renamed"] != 1 || names["Twin"] != 0 || names["Doomed"] != 0 {
		t.Errorf("accounts %v", names)
	}
	if got := eventCount(t, s) - before; got != 4 {
		t.Errorf("%d events recorded, want 4 (two creates, an update, a delete)", got)
	}
}

// TestQueuedWritesSpoiledGroupRunsAlone: a write of a group that fails with
// an error SQLite does not back out by itself, or panics, rolls the group
// back; every write then runs again on its own: the others commit once
// each, the failing one gets its own error or panic.
func TestQueuedWritesSpoiledGroupRunsAlone(t *testing.T) {
	t.Parallel()
	s := storagetest.Open(t, "sqlite")
	ctx := context.Background()
	accounts := storagetest.Table(t, s, "accounts")
	insert := func(name string) func() error {
		return func() error {
			_, err := s.Noting(storage.Event{Org: 1, Type: "accounts", Action: storage.EventCreated}).
				InsertRow(ctx, accounts, 1, storage.Row{"name": name})
			return err
		}
	}
	gone := errors.New("the disk is gone")
	before := eventCount(t, s)
	errs := queueBehindSlot(t, s,
		insert("A"),
		func() error {
			return s.Alone(ctx, accounts, func(ctx context.Context, c *storage.Conn) error {
				if err := c.SendInsert(ctx, accounts, 1, storage.Row{"name": "Half"}); err != nil {
					return err
				}
				return gone
			})
		},
		insert("B"),
		func() error {
			return s.Alone(ctx, accounts, func(context.Context, *storage.Conn) error { panic("a bug") })
		},
		insert("C"),
	)
	if errs[0] != nil || !errors.Is(errs[1], gone) || errs[2] != nil || errs[3] == nil || errs[3].Error() != "panic: a bug" || errs[4] != nil {
		t.Fatalf("outcomes %v", errs)
	}
	if got := s.WriteGroups(); got != 0 {
		t.Errorf("%d groups committed, want none", got)
	}
	names := accountNames(t, s)
	// "Half" is written once: by the write run on its own (its error comes
	// after its statement, in autocommit), not by the group rolled back.
	if names["A"] != 1 || names["B"] != 1 || names["C"] != 1 || names["Half"] != 1 {
		t.Errorf("accounts %v, want A, B, C and Half once each", names)
	}
	if got := eventCount(t, s) - before; got != 3 {
		t.Errorf("%d events recorded, want 3", got)
	}
}

// TestQueuedWriteGivenUp: a write whose context ends while it waits in the
// queue returns the context's error and never runs.
func TestQueuedWriteGivenUp(t *testing.T) {
	t.Parallel()
	s := storagetest.Open(t, "sqlite")
	accounts := storagetest.Table(t, s, "accounts")
	release, err := s.HoldWriteSlot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := s.InsertRow(ctx, accounts, 1, storage.Row{"name": "Late"})
		done <- err
	}()
	waitFor(t, func() bool { return s.QueuedWrites() == 1 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("a write given up: %v", err)
	}
	release()
	if _, err := s.InsertRow(context.Background(), accounts, 1, storage.Row{"name": "Next"}); err != nil {
		t.Fatal(err)
	}
	if names := accountNames(t, s); names["Late"] != 0 || names["Next"] != 1 || s.QueuedWrites() != 0 {
		t.Errorf("accounts %v, %d queued", names, s.QueuedWrites())
	}
}

// TestConcurrentSingleWrites: many writers at once (grouped on SQLite, side
// by side on PostgreSQL) each get their own row and event.
func TestConcurrentSingleWrites(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		accounts := storagetest.Table(t, s, "accounts")
		const writers, each = 16, 25
		var wg sync.WaitGroup
		errs := make(chan error, writers)
		for w := range writers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range each {
					row, err := s.Noting(storage.Event{Org: 1, Type: "accounts", Action: storage.EventCreated}).
						InsertRow(ctx, accounts, 1, storage.Row{"name": fmt.Sprintf("W%d-%d", w, i)})
					if err == nil && row["name"] != fmt.Sprintf("W%d-%d", w, i) {
						err = fmt.Errorf("writer %d got the row %v", w, row)
					}
					if err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		names := accountNames(t, s)
		for w := range writers {
			for i := range each {
				if names[fmt.Sprintf("W%d-%d", w, i)] != 1 {
					t.Fatalf("W%d-%d stored %d times", w, i, names[fmt.Sprintf("W%d-%d", w, i)])
				}
			}
		}
		if got := eventCount(t, s); got != writers*each {
			t.Errorf("%d events, want %d", got, writers*each)
		}
	})
}
