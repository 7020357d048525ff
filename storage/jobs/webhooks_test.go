package jobs_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestMaintainExpiresDeliveries: the delivery log of webhooks is kept for
// the events' lifetime and deleted by the same housekeeping.
func TestMaintainExpiresDeliveries(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		h := &jobs.Webhook{OrganizationID: 1, URL: "https://hooks.example.com", EventTypes: json.RawMessage(`["*"]`), Secret: "whsec_x", Enabled: true}
		if err := jobs.CreateWebhook(ctx, s.Conn, h); err != nil {
			t.Fatal(err)
		}
		for _, msg := range []string{"old", "new"} {
			if _, err := jobs.RecordDelivery(ctx, s.Conn, &jobs.Delivery{WebhookID: h.ID, OrganizationID: 1, MessageID: msg, Attempt: 1}, true, 0); err != nil {
				t.Fatal(err)
			}
		}
		old := time.Now().Add(-8 * 24 * time.Hour).UTC().Truncate(time.Second)
		if _, err := s.DB().NewUpdate().Table("webhook_deliveries").Set("created_at = ?", old).Where("message_id = ?", "old").Exec(ctx); err != nil {
			t.Fatal(err)
		}
		q, err := jobs.NewQueue(s, jobs.Config{Workers: 1, Maintenance: time.Hour, EventLifetime: 7 * 24 * time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		if err := q.Maintain(ctx); err != nil {
			t.Fatal(err)
		}
		rows, err := jobs.Deliveries(ctx, s.Conn, h.ID, 10, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(rows) != 1 || rows[0].MessageID != "new" {
			t.Fatalf("deliveries after the housekeeping: %v, want [new]", rows)
		}
	})
}

// statementLog records the statements a store sends.
type statementLog struct {
	mu    sync.Mutex
	texts []string
}

func (l *statementLog) BeforeStatement(ctx context.Context, query string) context.Context {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.texts = append(l.texts, query)
	return ctx
}

func (l *statementLog) AfterStatement(context.Context, string, error) {}

// TestDispatchWithoutWebhooksSkipsTheFeed: with no enabled webhook the
// dispatcher reads no event (no SELECT of the events' rows, no numbering)
// and moves its cursor to the feed's end, so that a webhook created after
// gets none of the events before it.
func TestDispatchWithoutWebhooksSkipsTheFeed(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		events := make([]storage.Event, 20)
		for i := range events {
			events[i] = storage.Event{Org: 1, Type: "accounts", Action: storage.EventCreated, Key: int64(i + 1)}
		}
		if err := s.Tx(ctx, func(c *storage.Conn) error { return c.RecordEvents(ctx, events) }); err != nil {
			t.Fatal(err)
		}
		// On PostgreSQL a transaction of another test database may hold the
		// numbering back a moment (its xid is below the snapshot's xmin).
		numbered := 0
		for deadline := time.Now().Add(60 * time.Second); numbered < len(events) && time.Now().Before(deadline); {
			if err := s.SequenceEvents(ctx); err != nil {
				t.Fatal(err)
			}
			if err := s.DB().NewSelect().Table("events").ColumnExpr("count(*)").Scan(ctx, &numbered); err != nil {
				t.Fatal(err)
			}
			if numbered < len(events) {
				time.Sleep(20 * time.Millisecond)
			}
		}
		if numbered < len(events) {
			storagetest.LogOldTransactions(t, s)
			t.Fatalf("%d of %d events numbered after a minute", numbered, len(events))
		}
		q, err := jobs.NewQueue(s, jobs.Config{Workers: 1, Maintenance: time.Hour, EventLifetime: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		var seen statementLog
		s.AddStatementHook(&seen)
		if err := q.DispatchWebhooks(ctx); err != nil {
			t.Fatal(err)
		}
		seen.mu.Lock()
		texts := seen.texts
		seen.mu.Unlock()
		for _, text := range texts {
			if strings.Contains(text, "event_outbox") || (strings.Contains(text, `"events"`) && !strings.Contains(text, "max(id)")) {
				t.Errorf("the dispatcher without webhooks ran %s", text)
			}
		}
		var pos, end int64
		if err := s.DB().NewSelect().Table("webhook_cursor").Column("position").Where("id = 1").Scan(ctx, &pos); err != nil {
			t.Fatal(err)
		}
		if err := s.DB().NewSelect().Table("events").ColumnExpr("max(id)").Scan(ctx, &end); err != nil {
			t.Fatal(err)
		}
		if pos != end || end == 0 {
			t.Fatalf("the cursor is at %d, want the feed's end %d", pos, end)
		}
	})
}

// TestWebhookDelivers: a webhook gets the events from its creation on and,
// once turned on again after being disabled, only those from then on,
// whatever their place in the feed (on PostgreSQL an event of the time it
// was off may be numbered after it is on again).
func TestWebhookDelivers(t *testing.T) {
	created := time.Date(2026, 11, 28, 10, 0, 0, 500_000_000, time.UTC)
	resumed := created.Add(time.Hour)
	for _, c := range []struct {
		resumed  *time.Time
		occurred time.Time
		want     bool
	}{
		{nil, created.Add(-time.Second), false},
		{nil, created.Truncate(time.Second), true}, // the same second
		{nil, created.Add(time.Minute), true},
		{&resumed, created.Add(time.Minute), false}, // while it was off
		{&resumed, resumed.Truncate(time.Second), true},
		{&resumed, resumed.Add(time.Minute), true},
	} {
		h := &jobs.Webhook{CreatedAt: created, ResumedAt: c.resumed}
		if got := h.Delivers(c.occurred); got != c.want {
			t.Errorf("resumed %v, occurred %v: Delivers = %v", c.resumed, c.occurred, got)
		}
	}
}

// TestWebhookWants: event types name a resource type and an action, or
// every action of a type, or everything.
func TestWebhookWants(t *testing.T) {
	h := &jobs.Webhook{EventTypes: json.RawMessage(`["accounts.created","contacts.*"]`)}
	for _, c := range []struct {
		typ, action string
		want        bool
	}{{"accounts", "created", true}, {"accounts", "updated", false}, {"contacts", "deleted", true}, {"users", "created", false}} {
		if got := h.Wants(c.typ, c.action); got != c.want {
			t.Errorf("Wants(%s, %s) = %v", c.typ, c.action, got)
		}
	}
	if !(&jobs.Webhook{EventTypes: json.RawMessage(`["*"]`)}).Wants("users", "deleted") {
		t.Error("* does not want everything")
	}
}

// TestEnqueueKeyedWebhookOnce: a message queued with an Idempotency-Key is
// queued once for the key, inside the transaction of the request that
// keeps the key's answer: queued again by the same request (a retry after
// a stop), it is found, not queued twice; queued by another request of the
// key, it is not that request's. A rolled-back request leaves no job on
// SQLite, where the job joins the request's transaction.
func TestEnqueueKeyedWebhookOnce(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) { enqueueKeyedWebhookOnce(t, dialect, storagetest.Open(t, dialect)) })
	}
}

func enqueueKeyedWebhookOnce(t *testing.T, dialect string, s *storage.Store) {
	ctx := context.Background()
	q, err := jobs.NewQueue(s, jobs.Config{Workers: 1, Maintenance: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	deliveries := func() int {
		n, err := s.DB().NewSelect().Table("river_job").Where("kind = ?", jobs.WebhookJob{}.Kind()).Count(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return int(n)
	}
	send := func(request string) (mine bool) {
		job := jobs.WebhookJob{Webhook: 1, Org: 1, Message: "test_k", Forced: true, Keyed: "key-1", Request: request,
			Event: jobs.WebhookEvent{Type: "webhook.test", OccurredAt: time.Now()}}
		err := s.Conn.Tx(ctx, func(tx *storage.Conn) error {
			var err error
			mine, err = q.EnqueueKeyedWebhook(ctx, tx, job)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return mine
	}
	for i, c := range []struct {
		request string
		mine    bool
	}{{"first", true}, {"first", true}, {"another", false}} {
		if got := send(c.request); got != c.mine {
			t.Errorf("send %d (%s): mine = %v, want %v", i, c.request, got, c.mine)
		}
	}
	if n := deliveries(); n != 1 {
		t.Errorf("%d delivery jobs of one key, want 1", n)
	}
	if dialect == "sqlite" {
		err := s.Conn.Tx(ctx, func(tx *storage.Conn) error {
			job := jobs.WebhookJob{Webhook: 1, Org: 1, Message: "test_r", Keyed: "key-rolled-back", Request: "r"}
			if _, err := q.EnqueueKeyedWebhook(ctx, tx, job); err != nil {
				return err
			}
			return errRolledBack
		})
		if err != errRolledBack {
			t.Fatal(err)
		}
		if n := deliveries(); n != 1 {
			t.Errorf("a rolled-back request left its job: %d jobs", n)
		}
	}
}

var errRolledBack = errors.New("rolled back")
