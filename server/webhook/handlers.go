package webhook

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
)

// This file answers the webhooks resource: list, read, create, change
// (or rotate the secret of) and delete a webhook of the caller's
// organization. The engine's route table lets only administrators here.

// pageWindow is the rows to read for page number of size: one more than
// the page, to tell whether more follow; size < 0 (page[size]=-1, no
// paging) reads up to engine.MaxUnpaged and one more.
func pageWindow(number, size int) (limit, offset int) {
	if size < 0 {
		return engine.MaxUnpaged + 1, 0
	}
	return size + 1, (number - 1) * size
}

// trimPage drops the extra row pageWindow read and tells whether it was
// there; without paging, more than engine.MaxUnpaged rows is an error
// naming what they are.
func trimPage[T any](rows []T, limit, size int, what string) ([]T, bool, error) {
	hasMore := len(rows) > limit-1
	if hasMore && size < 0 {
		return nil, false, problem.Filter("page[size]", "More than "+strconv.Itoa(engine.MaxUnpaged)+" "+what+" exist; use paging.")
	}
	if hasMore {
		rows = rows[:limit-1]
	}
	return rows, hasMore, nil
}

// List answers GET /api/webhooks.
func (s *Service) List(r *engine.Request) (*jsonapi.Reply, error) {
	v, err := s.engine.View(r)
	if err != nil {
		return nil, err
	}
	number, size, errs := v.Page()
	if len(errs) > 0 {
		return nil, errs
	}
	limit, offset := pageWindow(number, size)
	hooks, err := jobs.ListWebhooks(v.Ctx(), s.engine.Store().Conn, v.Org(), limit, offset)
	if err != nil {
		return nil, err
	}
	hooks, hasMore, err := trimPage(hooks, limit, size, "webhooks")
	if err != nil {
		return nil, err
	}
	if v.Plain() {
		list := make([][]jsonapi.Member, len(hooks))
		for i := range hooks {
			list[i] = plainMembers(&hooks[i], "")
		}
		return v.Reply(http.StatusOK, nil, jsonapi.AppendObjects(jsonapi.Buffer(), list)), nil
	}
	objs := make(jsonapi.Many, len(hooks))
	for i := range hooks {
		objs[i] = resourceObject(v, &hooks[i], "")
	}
	doc := &jsonapi.TopLevel{Data: objs}
	if v.Hateoas() {
		doc.Links = v.PageLinks(v.Link(engine.WebhooksType, ""), number, size, hasMore)
	}
	return v.Reply(http.StatusOK, doc, nil), nil
}

// Get answers GET /api/webhooks/{id}.
func (s *Service) Get(r *engine.Request) (*jsonapi.Reply, error) {
	v, err := s.engine.View(r)
	if err != nil {
		return nil, err
	}
	h, err := s.load(v, s.engine.Store().Conn)
	if err != nil {
		return nil, err
	}
	return reply(v, http.StatusOK, h, ""), nil
}

// Create answers POST /api/webhooks: the new webhook and, once, its secret.
func (s *Service) Create(r *engine.Request, doc *jsonapi.Document, plain jsonapi.Object) (*jsonapi.Reply, error) {
	v, err := s.engine.View(r)
	if err != nil {
		return nil, err
	}
	f, err := readFields(doc, plain)
	if err != nil {
		return nil, err
	}
	if err := s.check(v.Ctx(), f); err != nil {
		return nil, err
	}
	secret := newSecret()
	sealed, err := s.seal(v.Org(), secret)
	if err != nil {
		return nil, err
	}
	types, _ := json.Marshal(f.eventTypes)
	h := &jobs.Webhook{OrganizationID: v.Org(), URL: *f.url, EventTypes: types, Secret: sealed, Enabled: f.enabled == nil || *f.enabled}
	if err := jobs.CreateWebhook(v.Ctx(), v.Conn(), h); err != nil {
		return nil, err
	}
	r.ShowsSecret = true
	return reply(v, http.StatusCreated, h, secret), nil
}

// Update answers PATCH /api/webhooks/{id}: a change of its fields, a
// rotation of its secret (meta.rotateSecret), or both.
func (s *Service) Update(r *engine.Request, doc *jsonapi.Document, plain jsonapi.Object) (*jsonapi.Reply, error) {
	v, err := s.engine.View(r)
	if err != nil {
		return nil, err
	}
	f, err := readFields(doc, plain)
	if err != nil {
		return nil, err
	}
	if err := s.check(v.Ctx(), f); err != nil {
		return nil, err
	}
	h, err := s.load(v, v.Conn())
	if err != nil {
		return nil, err
	}
	if f.url != nil {
		h.URL = *f.url
	}
	if f.hasTypes {
		h.EventTypes, _ = json.Marshal(f.eventTypes)
	}
	if f.enabled != nil {
		if *f.enabled && !h.Enabled {
			resumed := storage.Now()
			h.ConsecutiveFailures, h.DisabledAt, h.ResumedAt = 0, nil, &resumed
		}
		h.Enabled = *f.enabled
	}
	var secret string
	if f.rotate {
		secret = newSecret()
		sealed, err := s.seal(v.Org(), secret)
		if err != nil {
			return nil, err
		}
		until := storage.Now().Add(rotationOverlap)
		previous := h.Secret
		h.PreviousSecret, h.PreviousUntil, h.Secret = &previous, &until, sealed
	}
	r.ShowsSecret = f.rotate
	if err := jobs.UpdateWebhook(v.Ctx(), v.Conn(), h); err != nil {
		if errors.Is(err, storage.ErrNotFound) {
			return nil, problem.NotFound()
		}
		return nil, err
	}
	return reply(v, http.StatusOK, h, secret), nil
}

// Delete answers DELETE /api/webhooks/{id}.
func (s *Service) Delete(r *engine.Request) (*jsonapi.Reply, error) {
	v, err := s.engine.View(r)
	if err != nil {
		return nil, err
	}
	n, ok := engine.ParseID(v.ID())
	if !ok {
		return nil, problem.NotFound()
	}
	switch err := jobs.DeleteWebhook(v.Ctx(), v.Conn(), v.Org(), n); {
	case errors.Is(err, storage.ErrNotFound):
		return nil, problem.NotFound()
	case err != nil:
		return nil, err
	}
	return &jsonapi.Reply{Status: http.StatusNoContent}, nil
}

// load reads the webhook the address names in the caller's organization,
// on conn.
func (s *Service) load(v *engine.View, conn *storage.Conn) (*jobs.Webhook, error) {
	n, ok := engine.ParseID(v.ID())
	if !ok {
		return nil, problem.NotFound()
	}
	h, err := jobs.LoadWebhook(v.Ctx(), conn, v.Org(), n)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, problem.NotFound()
	}
	return h, err
}

// reply renders one webhook; secret, when not "", is shown in meta.secret
// (plain: secret).
func reply(v *engine.View, status int, h *jobs.Webhook, secret string) *jsonapi.Reply {
	if v.Plain() {
		return v.Reply(status, nil, jsonapi.AppendObject(jsonapi.Buffer(), plainMembers(h, secret)))
	}
	return v.Reply(status, &jsonapi.TopLevel{Data: jsonapi.One{Resource: resourceObject(v, h, secret)}}, nil)
}

func resourceObject(v *engine.View, h *jobs.Webhook, secret string) *jsonapi.ResourceObject {
	id := strconv.FormatInt(h.ID, 10)
	obj := &jsonapi.ResourceObject{Type: engine.WebhooksType, ID: id, Attributes: attributes(h)}
	if v.Hateoas() {
		obj.Self = v.Link(engine.WebhooksType, id)
	}
	if secret != "" {
		obj.Meta = []jsonapi.Member{{Name: "secret", Value: secret}}
	}
	return obj
}

func plainMembers(h *jobs.Webhook, secret string) []jsonapi.Member {
	m := append([]jsonapi.Member{{Name: "id", Value: h.ID}}, attributes(h)...)
	if secret != "" {
		m = append(m, jsonapi.Member{Name: "secret", Value: secret})
	}
	return m
}

func attributes(h *jobs.Webhook) []jsonapi.Member {
	return []jsonapi.Member{
		{Name: "url", Value: h.URL},
		{Name: "eventTypes", Value: h.EventTypes},
		{Name: "enabled", Value: h.Enabled},
		{Name: "consecutiveFailures", Value: h.ConsecutiveFailures},
		{Name: "disabledAt", Value: dateTime(h.DisabledAt)},
		{Name: "createdAt", Value: engine.DateTime(h.CreatedAt)},
		{Name: "updatedAt", Value: engine.DateTime(h.UpdatedAt)},
	}
}

func dateTime(t *time.Time) any {
	if t == nil {
		return nil
	}
	return engine.DateTime(*t)
}
