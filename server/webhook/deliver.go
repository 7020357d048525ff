package webhook

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/entityapi/entityapi/server/telemetry"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
)

// This file delivers one queued message (jobs.WebhookJob) per Standard
// Webhooks: a POST of the JSON body with webhook-id (the same on every
// attempt), webhook-timestamp (the attempt's, in Unix seconds) and
// webhook-signature (v1,<base64 HMAC-SHA256 of id.timestamp.body>, once
// with the secret and, for a day after a rotation, once with the previous
// one, space-separated), and a W3C traceparent when tracing is on. Any 2xx
// answer is a success; anything else, or no answer within the timeout, a
// failure that the queue retries with backoff. Every attempt is logged.

// Tracer, when set, records a client span per attempt (nil: none).
func (s *Service) SetTracer(t trace.Tracer) { s.tracer = t }

// newClient is the HTTP client of deliveries: its dialer refuses blocked
// addresses as it connects, it follows no redirect (a redirect could lead
// anywhere; the receiver's 3xx is a failure), and it has the timeout.
func (s *Service) newClient() *http.Client {
	dialer := &net.Dialer{Timeout: s.cfg.Timeout, Control: s.cfg.Guard.control}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           s.cfg.Guard.dial(dialer),
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          32,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   s.cfg.Timeout,
		ResponseHeaderTimeout: s.cfg.Timeout,
	}
	return &http.Client{Transport: transport, Timeout: s.cfg.Timeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// body is the JSON a delivery carries: the Standard Webhooks envelope around
// the change event.
type body struct {
	Type      string            `json:"type"`
	Timestamp string            `json:"timestamp"`
	Data      jobs.WebhookEvent `json:"data"`
}

// payload is the body of a message about event for a receiver that may
// read what roles read: administrators, who manage the webhooks
// (managerRoles). A field only other roles read is not named to it
// (docs/fields.md).
func (s *Service) payload(event jobs.WebhookEvent, roles []string) ([]byte, error) {
	if len(event.ChangedAttributes) > 0 {
		event.ChangedAttributes = s.engine.VisibleFieldList(roles, event.ResourceType, event.ChangedAttributes)
	}
	return json.Marshal(body{Type: event.Type, Timestamp: event.OccurredAt.UTC().Format(time.RFC3339), Data: event})
}

// Sign is the webhook-signature entry of one secret (whsec_ and base64 of
// the key) over id.timestamp.payload: v1, and the base64 HMAC-SHA256.
func Sign(secret, id string, timestamp int64, payload []byte) (string, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return "", fmt.Errorf("webhook: a damaged secret: %w", err)
	}
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%d.", id, timestamp)
	mac.Write(payload)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// Deliver sends one message to its webhook (the queue's WebhookDeliverer).
func (s *Service) Deliver(ctx context.Context, job jobs.WebhookJob, attempt int) error {
	conn := s.engine.Store().Conn
	h, err := jobs.LoadWebhook(ctx, conn, job.Org, job.Webhook)
	if errors.Is(err, storage.ErrNotFound) {
		return fmt.Errorf("webhook %d is gone: %w", job.Webhook, jobs.ErrGiveUp)
	}
	if err != nil {
		return err
	}
	if !h.Enabled && !job.Forced {
		return fmt.Errorf("webhook %d is disabled: %w", job.Webhook, jobs.ErrGiveUp)
	}
	var signatures []string
	now := time.Now()
	secrets := []string{h.Secret}
	if h.PreviousSecret != nil && h.PreviousUntil != nil && now.Before(*h.PreviousUntil) {
		secrets = append(secrets, *h.PreviousSecret)
	}
	payload, err := s.payload(job.Event, managerRoles)
	if err != nil {
		return err
	}
	for _, stored := range secrets {
		secret, err := s.open(h.OrganizationID, stored)
		if err != nil {
			return err
		}
		sig, err := Sign(secret, job.Message, now.Unix(), payload)
		if err != nil {
			return err
		}
		signatures = append(signatures, sig)
	}
	if s.tracer != nil {
		var span trace.Span
		ctx, span = s.tracer.Start(ctx, "webhook delivery", trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(attribute.Int64("entityapi.webhook.id", h.ID), attribute.String("entityapi.webhook.message_id", job.Message),
				attribute.Int("entityapi.webhook.attempt", attempt)))
		defer func() {
			if err != nil {
				span.SetStatus(codes.Error, err.Error())
			}
			span.End()
		}()
	}
	status, took, err := s.post(ctx, h.URL, job.Message, now.Unix(), strings.Join(signatures, " "), payload)
	d := &jobs.Delivery{WebhookID: h.ID, OrganizationID: h.OrganizationID, MessageID: job.Message, Attempt: int64(attempt),
		DurationMS: took.Milliseconds()}
	if job.Event.ID != 0 {
		d.EventID = &job.Event.ID
	}
	if status != 0 {
		code := int64(status)
		d.StatusCode = &code
	}
	if err != nil {
		text := err.Error()
		d.Error = &text
	}
	disabled, lerr := jobs.RecordDelivery(context.WithoutCancel(ctx), conn, d, err == nil, s.cfg.DisableAfter)
	if lerr != nil {
		return errors.Join(err, lerr)
	}
	if disabled {
		return fmt.Errorf("%w; webhook %d disabled after %d failures in a row: %w", err, h.ID, s.cfg.DisableAfter, jobs.ErrGiveUp)
	}
	return err
}

// post sends the message and tells the answer's status (0 for none), how
// long it took, and whether it failed.
func (s *Service) post(ctx context.Context, url, id string, ts int64, signature string, payload []byte) (int, time.Duration, error) {
	start := time.Now()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return 0, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "entityapi-webhooks")
	req.Header.Set("webhook-id", id)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	req.Header.Set("webhook-signature", signature)
	telemetry.Inject(ctx, req.Header)
	resp, err := s.client.Do(req)
	took := time.Since(start)
	if err != nil {
		return 0, took, err
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	_ = resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return resp.StatusCode, took, fmt.Errorf("the receiver answered %d", resp.StatusCode)
	}
	return resp.StatusCode, took, nil
}
