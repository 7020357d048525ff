package jobs

import (
	"context"
	"encoding/json"
	"time"

	"github.com/uptrace/bun"

	"github.com/entityapi/entityapi/storage"
)

// The records of webhooks (issue 19): each organization's webhooks, the log
// of their deliveries, and the dispatcher's cursor in the event feed
// (migration 0012). The delivery itself (HTTP, signatures) is the server's
// (server/webhook); this package queues it (webhookjobs.go).

const (
	webhookTable  = "webhooks"
	deliveryTable = "webhook_deliveries"
	cursorTable   = "webhook_cursor"
)

// Webhook is a target URL of an organization and the change events it wants.
// Secret is the signing secret as stored (sealed with the key-encryption key
// when one is set); PreviousSecret, until PreviousUntil, is the one a
// rotation replaced, with which deliveries are still signed too.
type Webhook struct {
	bun.BaseModel `bun:"table:webhooks"`

	ID                  int64           `bun:"id,pk,autoincrement"`
	OrganizationID      int64           `bun:"organization_id,notnull"`
	URL                 string          `bun:"url,notnull"`
	EventTypes          json.RawMessage `bun:"event_types,notnull"`
	Secret              string          `bun:"secret,notnull"`
	PreviousSecret      *string         `bun:"previous_secret"`
	PreviousUntil       *time.Time      `bun:"previous_until"`
	Enabled             bool            `bun:"enabled,notnull"`
	ConsecutiveFailures int64           `bun:"consecutive_failures,notnull"`
	DisabledAt          *time.Time      `bun:"disabled_at"`
	// ResumedAt is when it was last turned on again after being disabled.
	ResumedAt *time.Time `bun:"resumed_at"`
	CreatedAt time.Time  `bun:"created_at,nullzero,notnull,default:current_timestamp"`
	UpdatedAt time.Time  `bun:"updated_at,nullzero,notnull,default:current_timestamp"`
}

// Delivers tells whether the webhook is to get an event that occurred at
// occurred: one from its creation on and, once it was turned on again after
// being disabled, from then on (times in whole seconds, as events keep
// them: an event of the same second is delivered).
func (w *Webhook) Delivers(occurred time.Time) bool {
	if occurred.Before(w.CreatedAt.Truncate(time.Second)) {
		return false
	}
	return w.ResumedAt == nil || !occurred.Before(w.ResumedAt.Truncate(time.Second))
}

// Wants tells whether the webhook asks for events of resource type typ and
// action (created, updated, deleted): its event types hold "typ.action",
// "typ.*" or "*".
func (w *Webhook) Wants(typ, action string) bool {
	var types []string
	if json.Unmarshal(w.EventTypes, &types) != nil {
		return false
	}
	for _, t := range types {
		if t == "*" || t == typ+".*" || t == typ+"."+action {
			return true
		}
	}
	return false
}

// Delivery is one attempt to deliver a message to a webhook: its HTTP status
// (nil when no answer came), how long it took, and what went wrong.
type Delivery struct {
	bun.BaseModel `bun:"table:webhook_deliveries"`

	ID             int64     `bun:"id,pk,autoincrement"`
	WebhookID      int64     `bun:"webhook_id,notnull"`
	OrganizationID int64     `bun:"organization_id,notnull"`
	MessageID      string    `bun:"message_id,notnull"`
	EventID        *int64    `bun:"event_id"`
	Attempt        int64     `bun:"attempt,notnull"`
	StatusCode     *int64    `bun:"status_code"`
	DurationMS     int64     `bun:"duration_ms,notnull"`
	Error          *string   `bun:"error"`
	CreatedAt      time.Time `bun:"created_at,nullzero,notnull,default:current_timestamp"`
}

// CreateWebhook stores a new webhook and sets its id and times.
func CreateWebhook(ctx context.Context, c *storage.Conn, w *Webhook) error {
	w.CreatedAt, w.UpdatedAt = storage.Now(), storage.Now()
	return c.Atomic(ctx, func(c *storage.Conn) error {
		_, err := c.Bun().NewInsert().Model(w).Returning("id").Exec(ctx)
		return c.MapError("insert", webhookTable, err)
	})
}

// LoadWebhook reads a webhook of an organization; storage.ErrNotFound when
// it has none of that id.
func LoadWebhook(ctx context.Context, c *storage.Conn, org, id int64) (*Webhook, error) {
	w := &Webhook{}
	if err := c.One(ctx, w, webhookTable, "organization_id = ? AND id = ?", org, id); err != nil {
		return nil, err
	}
	return w, nil
}

// ListWebhooks reads a page of an organization's webhooks in id order.
func ListWebhooks(ctx context.Context, c *storage.Conn, org int64, limit, offset int) ([]Webhook, error) {
	out := []Webhook{}
	err := c.Bun().NewSelect().Model(&out).Where("organization_id = ?", org).OrderExpr("id ASC").
		Limit(int64(limit)).Offset(int64(offset)).Scan(ctx)
	return out, c.MapError("select", webhookTable, err)
}

// UpdateWebhook writes every changeable column of w and its new updated_at;
// storage.ErrNotFound when it is gone.
func UpdateWebhook(ctx context.Context, c *storage.Conn, w *Webhook) error {
	w.UpdatedAt = storage.Now()
	return c.Atomic(ctx, func(c *storage.Conn) error {
		res, err := c.Bun().NewUpdate().Model(w).
			Column("url", "event_types", "secret", "previous_secret", "previous_until", "enabled",
				"consecutive_failures", "disabled_at", "resumed_at", "updated_at").
			Where("organization_id = ? AND id = ?", w.OrganizationID, w.ID).Exec(ctx)
		return c.Affected("update", webhookTable, res, err)
	})
}

// DeleteWebhook deletes a webhook and its delivery log; storage.ErrNotFound
// when the organization has none of that id.
func DeleteWebhook(ctx context.Context, c *storage.Conn, org, id int64) error {
	return c.Atomic(ctx, func(c *storage.Conn) error {
		if _, err := c.Bun().NewDelete().Table(deliveryTable).Where("webhook_id = ? AND organization_id = ?", id, org).Exec(ctx); err != nil {
			return c.MapError("delete", deliveryTable, err)
		}
		res, err := c.Bun().NewDelete().Table(webhookTable).Where("organization_id = ? AND id = ?", org, id).Exec(ctx)
		return c.Affected("delete", webhookTable, res, err)
	})
}

// enabledWebhooks reads every enabled webhook of every organization: the
// dispatcher's targets.
func enabledWebhooks(ctx context.Context, c *storage.Conn) ([]Webhook, error) {
	out := []Webhook{}
	err := c.Bun().NewSelect().Model(&out).Where("enabled").OrderExpr("id ASC").Scan(ctx)
	return out, c.MapError("select", webhookTable, err)
}

// RecordDelivery logs an attempt and keeps the webhook's run of consecutive
// failures: reset by a success, lengthened by a failure, and the webhook
// disabled once the run reaches disableAfter (0: never). It tells whether
// this attempt disabled it.
func RecordDelivery(ctx context.Context, c *storage.Conn, d *Delivery, ok bool, disableAfter int) (disabled bool, err error) {
	d.CreatedAt = storage.Now()
	err = c.Atomic(ctx, func(c *storage.Conn) error {
		if _, err := c.Bun().NewInsert().Model(d).Returning("id").Exec(ctx); err != nil {
			return c.MapError("insert", deliveryTable, err)
		}
		q := c.Bun().NewUpdate().Table(webhookTable).Where("id = ?", d.WebhookID)
		if ok {
			_, err := q.Set("consecutive_failures = 0").Exec(ctx)
			return c.MapError("update", webhookTable, err)
		}
		var failures int64
		if err := q.Set("consecutive_failures = consecutive_failures + 1").Returning("consecutive_failures").Scan(ctx, &failures); err != nil {
			return c.MapError("update", webhookTable, err)
		}
		if disableAfter <= 0 || failures < int64(disableAfter) {
			return nil
		}
		res, err := c.Bun().NewUpdate().Table(webhookTable).Set("enabled = ?", false).Set("disabled_at = ?", storage.Now()).
			Set("updated_at = ?", storage.Now()).Where("id = ? AND enabled", d.WebhookID).Exec(ctx)
		if err != nil {
			return c.MapError("update", webhookTable, err)
		}
		n, _ := res.RowsAffected()
		disabled = n > 0
		return nil
	})
	return disabled, err
}

// Deliveries reads a page of a webhook's delivery log, newest first.
func Deliveries(ctx context.Context, c *storage.Conn, webhook int64, limit, offset int) ([]Delivery, error) {
	out := []Delivery{}
	err := c.Bun().NewSelect().Model(&out).Where("webhook_id = ?", webhook).OrderExpr("id DESC").
		Limit(int64(limit)).Offset(int64(offset)).Scan(ctx)
	return out, c.MapError("select", deliveryTable, err)
}

// DeleteDeliveriesBefore deletes the delivery log older than t (the
// housekeeping, after the events' lifetime) and returns how many it deleted.
func DeleteDeliveriesBefore(ctx context.Context, c *storage.Conn, t time.Time) (int, error) {
	var n int64
	err := c.Atomic(ctx, func(c *storage.Conn) error {
		res, err := c.Bun().NewDelete().Table(deliveryTable).Where("created_at < ?", t.UTC()).Exec(ctx)
		if err != nil {
			return c.MapError("delete", deliveryTable, err)
		}
		n, err = res.RowsAffected()
		return err
	})
	return int(n), err
}

// webhookCursor is the dispatcher's position in the feed.
// skipFeed moves the dispatch cursor from pos to the feed's last numbered
// event, when there is a later one (no write otherwise); a dispatcher that
// moved it meanwhile wins.
func skipFeed(ctx context.Context, c *storage.Conn, pos int64) error {
	var end int64
	if err := c.Bun().NewSelect().Table("events").ColumnExpr("coalesce(max(id), 0)").Scan(ctx, &end); err != nil {
		return c.MapError("select", "events", err)
	}
	if end <= pos {
		return nil
	}
	return c.Atomic(ctx, func(c *storage.Conn) error {
		_, err := c.Bun().NewUpdate().Table(cursorTable).Set("position = ?", end).Where("id = 1 AND position = ?", pos).Exec(ctx)
		return c.MapError("update", cursorTable, err)
	})
}

func webhookCursor(ctx context.Context, c *storage.Conn) (int64, error) {
	var pos int64
	err := c.Bun().NewSelect().Table(cursorTable).Column("position").Where("id = 1").Scan(ctx, &pos)
	return pos, c.MapError("select", cursorTable, err)
}
