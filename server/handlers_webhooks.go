package server

import (
	"context"

	bo "github.com/entityapi/entityapi/gen/backoffice"
)

// The webhooks operations of the back office: hand-written beside the
// generated one-liners because server/webhook serves them (the secret is
// the server's to make, the URL is checked against private addresses), not
// the generic record engine.

// ListWebhooks serves listWebhooks.
func (h *backofficeHandlers) ListWebhooks(ctx context.Context, _ bo.ListWebhooksRequestObject) (bo.ListWebhooksResponseObject, error) {
	return bo.Reply(h.webhooks.List(requestOf(ctx)))
}

// CreateWebhook serves createWebhook.
func (h *backofficeHandlers) CreateWebhook(ctx context.Context, r bo.CreateWebhookRequestObject) (bo.CreateWebhookResponseObject, error) {
	return bo.Reply(h.webhooks.Create(requestOf(ctx), r.ApplicationVndAPIPlusJSONBody, derefObject(r.JSONBody)))
}

// GetWebhook serves getWebhook.
func (h *backofficeHandlers) GetWebhook(ctx context.Context, _ bo.GetWebhookRequestObject) (bo.GetWebhookResponseObject, error) {
	return bo.Reply(h.webhooks.Get(requestOf(ctx)))
}

// UpdateWebhook serves updateWebhook (a change, a rotation of the secret).
func (h *backofficeHandlers) UpdateWebhook(ctx context.Context, r bo.UpdateWebhookRequestObject) (bo.UpdateWebhookResponseObject, error) {
	return bo.Reply(h.webhooks.Update(requestOf(ctx), r.ApplicationVndAPIPlusJSONBody, derefObject(r.JSONBody)))
}

// DeleteWebhook serves deleteWebhook.
func (h *backofficeHandlers) DeleteWebhook(ctx context.Context, _ bo.DeleteWebhookRequestObject) (bo.DeleteWebhookResponseObject, error) {
	return bo.Reply(h.webhooks.Delete(requestOf(ctx)))
}

// ListWebhookDeliveries serves listWebhookDeliveries (the delivery log).
func (h *backofficeHandlers) ListWebhookDeliveries(ctx context.Context, _ bo.ListWebhookDeliveriesRequestObject) (bo.ListWebhookDeliveriesResponseObject, error) {
	return bo.Reply(h.webhooks.Deliveries(requestOf(ctx)))
}

// SendWebhookMessage serves sendWebhookMessage (a test message, a replay).
func (h *backofficeHandlers) SendWebhookMessage(ctx context.Context, r bo.SendWebhookMessageRequestObject) (bo.SendWebhookMessageResponseObject, error) {
	return bo.Reply(h.webhooks.Send(requestOf(ctx), r.ApplicationVndAPIPlusJSONBody, derefObject(r.JSONBody)))
}
