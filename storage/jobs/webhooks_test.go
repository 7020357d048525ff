package jobs_test

import (
	"context"
	"encoding/json"
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
