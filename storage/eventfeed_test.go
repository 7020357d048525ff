package storage_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// follower reads the feed as a consumer does: the events after the last
// one it has seen, in feed order, numbering what has committed first.
type follower struct {
	s     *storage.Store
	t     *storage.Table
	last  int64
	order []string // resource ids of the events seen, in the order seen
}

func (f *follower) read(tb testing.TB) {
	tb.Helper()
	ctx := context.Background()
	if err := f.s.SequenceEvents(ctx); err != nil {
		tb.Fatal(err)
	}
	rows, err := f.s.Find(ctx, storage.Query{Table: f.t, Org: 1,
		Where:   []storage.Cond{{Column: "id", Op: storage.Gt, Values: []any{f.last}}},
		OrderBy: []storage.Order{{Column: "id"}}})
	if err != nil {
		tb.Fatal(err)
	}
	for _, r := range rows {
		f.last = r["id"].(int64)
		f.order = append(f.order, r["resource_id"].(string))
	}
}

// until reads until the follower has seen n events in all (on PostgreSQL a
// transaction of another test database may hold numbering back a moment).
func (f *follower) until(tb testing.TB, n int) {
	tb.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for f.read(tb); len(f.order) < n && time.Now().Before(deadline); f.read(tb) {
		time.Sleep(20 * time.Millisecond)
	}
}

// expectEventsOf reads the feed until it has an event per key and checks
// that they are of those records, in that order.
func (f *follower) expectEventsOf(tb testing.TB, keys []any) {
	tb.Helper()
	f.until(tb, len(keys))
	if len(f.order) != len(keys) {
		tb.Fatalf("%d events for %d records", len(f.order), len(keys))
	}
	for i, k := range keys {
		if want := fmt.Sprint(k); f.order[i] != want {
			tb.Fatalf("event %d is of record %s, want %s", i, f.order[i], want)
		}
	}
}

func event(id string) []storage.Event {
	return []storage.Event{{Org: 1, Type: "accounts", Action: storage.EventCreated, Key: id, Attributes: []string{"name"}}}
}

// TestFeedSkipsNoEventCommittedOutOfOrder: on PostgreSQL a transaction that
// began first and commits last must not have its event numbered below one
// a follower has already read. Two transactions overlap, the later one
// commits first, a follower reads between the commits: it must not see the
// later one's event yet (it would then pass over the earlier one's), and in
// the end it sees both, numbered in the order they were written. On SQLite
// one writer at a time cannot overlap: the events are numbered as they
// commit.
func TestFeedSkipsNoEventCommittedOutOfOrder(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		f := &follower{s: s, t: storagetest.Table(t, s, "events")}
		if s.Dialect() == "sqlite" {
			for _, id := range []string{"first", "second"} {
				if err := s.Tx(ctx, func(c *storage.Conn) error { return c.RecordEvents(ctx, event(id)) }); err != nil {
					t.Fatal(err)
				}
				f.read(t)
			}
			if !slices.Equal(f.order, []string{"first", "second"}) {
				t.Fatalf("feed %v, want [first second]", f.order)
			}
			return
		}
		wrote, commit, done := make(chan struct{}), make(chan struct{}), make(chan error, 1)
		go func() {
			done <- s.Tx(ctx, func(c *storage.Conn) error {
				if err := c.RecordEvents(ctx, event("early")); err != nil {
					return err
				}
				close(wrote)
				<-commit
				return nil
			})
		}()
		<-wrote
		if err := s.Tx(ctx, func(c *storage.Conn) error { return c.RecordEvents(ctx, event("late")) }); err != nil {
			t.Fatal(err)
		}
		f.read(t) // "late" has committed, "early" has not
		if len(f.order) != 0 {
			t.Errorf("the follower read %v while an older transaction was still open", f.order)
		}
		close(commit)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		f.until(t, 2)
		if !slices.Equal(f.order, []string{"early", "late"}) {
			t.Fatalf("the follower saw %v, want [early late]", f.order)
		}
	})
}

// TestEventsRollBackWithTheirChange: an event is written only in the
// transaction of its change, and a rollback takes it away.
func TestEventsRollBackWithTheirChange(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		if err := s.RecordEvents(ctx, event("alone")); err == nil {
			t.Error("RecordEvents outside a transaction succeeded")
		}
		boom := errors.New("boom")
		err := s.Tx(ctx, func(c *storage.Conn) error {
			if err := c.RecordEvents(ctx, event("rolled back")); err != nil {
				return err
			}
			return boom
		})
		if !errors.Is(err, boom) {
			t.Fatal(err)
		}
		if err := s.Tx(ctx, func(c *storage.Conn) error { return c.RecordEvents(ctx, event("kept")) }); err != nil {
			t.Fatal(err)
		}
		f := &follower{s: s, t: storagetest.Table(t, s, "events")}
		f.until(t, 1)
		f.read(t)
		if !slices.Equal(f.order, []string{"kept"}) {
			t.Fatalf("feed %v, want [kept]", f.order)
		}
	})
}

// TestDeleteEventsBefore: the housekeeping's retention deletes the events
// older than their lifetime and keeps the rest, and always the newest
// event, so that a new event's id is larger than every id a follower has
// read (on SQLite the id is the rowid, which would otherwise start again).
func TestDeleteEventsBefore(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		for _, id := range []string{"first", "second"} {
			if err := s.Tx(ctx, func(c *storage.Conn) error { return c.RecordEvents(ctx, event(id)) }); err != nil {
				t.Fatal(err)
			}
		}
		f := &follower{s: s, t: storagetest.Table(t, s, "events")}
		f.until(t, 2)
		if n, err := s.DeleteEventsBefore(ctx, time.Now().Add(-time.Hour)); err != nil || n != 0 {
			t.Fatalf("DeleteEventsBefore(an hour ago) = %d, %v; want 0", n, err)
		}
		if n, err := s.DeleteEventsBefore(ctx, time.Now().Add(time.Hour)); err != nil || n != 1 {
			t.Fatalf("DeleteEventsBefore(in an hour) = %d, %v; want 1 (the newest stays)", n, err)
		}
		read := f.last
		if err := s.Tx(ctx, func(c *storage.Conn) error { return c.RecordEvents(ctx, event("new")) }); err != nil {
			t.Fatal(err)
		}
		f.until(t, 3)
		if f.last <= read {
			t.Fatalf("the event after the housekeeping has id %d, not above %d, the last one read", f.last, read)
		}
		f.last = 0
		f.order = nil
		f.read(t)
		if !slices.Equal(f.order, []string{"second", "new"}) {
			t.Fatalf("events left after their lifetime: %v, want the newest old one and the new one", f.order)
		}
	})
}
