package webhook

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/server/jsonapi"
	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
)

// This file answers /api/webhooks/{id}/deliveries: the delivery log of a
// webhook (GET), and a test message or the replay of an event (POST).

// deliveriesType is the resource type of the delivery log's entries.
const deliveriesType = "webhookdeliveries"

// Deliveries answers GET /api/webhooks/{id}/deliveries, newest first.
func (s *Service) Deliveries(r *engine.Request) (*jsonapi.Reply, error) {
	v, err := s.engine.View(r)
	if err != nil {
		return nil, err
	}
	number, size, errs := v.Page()
	if len(errs) > 0 {
		return nil, errs
	}
	h, err := s.load(v, s.engine.Store().Conn)
	if err != nil {
		return nil, err
	}
	limit, offset := pageWindow(number, size)
	rows, err := jobs.Deliveries(v.Ctx(), s.engine.Store().Conn, h.ID, limit, offset)
	if err != nil {
		return nil, err
	}
	rows, hasMore, err := trimPage(rows, limit, size, "attempts")
	if err != nil {
		return nil, err
	}
	if v.Plain() {
		list := make([][]jsonapi.Member, len(rows))
		for i := range rows {
			d := &rows[i]
			var event any
			if d.EventID != nil {
				event = *d.EventID
			}
			list[i] = append([]jsonapi.Member{{Name: "id", Value: d.ID}}, deliveryAttributes(d, event)...)
		}
		return v.Reply(http.StatusOK, nil, jsonapi.AppendObjects(jsonapi.Buffer(), list)), nil
	}
	objs := make(jsonapi.Many, len(rows))
	for i := range rows {
		d := &rows[i]
		var event any
		if d.EventID != nil {
			event = strconv.FormatInt(*d.EventID, 10)
		}
		objs[i] = &jsonapi.ResourceObject{Type: deliveriesType, ID: strconv.FormatInt(d.ID, 10), Attributes: deliveryAttributes(d, event)}
	}
	doc := &jsonapi.TopLevel{Data: objs}
	if v.Hateoas() {
		doc.Links = v.PageLinks(v.Link(engine.WebhooksType, strconv.FormatInt(h.ID, 10))+"/deliveries", number, size, hasMore)
	}
	return v.Reply(http.StatusOK, doc, nil), nil
}

func deliveryAttributes(d *jobs.Delivery, event any) []jsonapi.Member {
	var status, text any
	if d.StatusCode != nil {
		status = *d.StatusCode
	}
	if d.Error != nil {
		text = *d.Error
	}
	return []jsonapi.Member{
		{Name: "messageId", Value: d.MessageID},
		{Name: "eventId", Value: event},
		{Name: "attempt", Value: d.Attempt},
		{Name: "statusCode", Value: status},
		{Name: "durationMs", Value: d.DurationMS},
		{Name: "error", Value: text},
		{Name: "createdAt", Value: engine.DateTime(d.CreatedAt)},
	}
}

// Send answers POST /api/webhooks/{id}/deliveries: it queues the replay of
// an event of the organization's feed (eventId), or a test message.
func (s *Service) Send(r *engine.Request, doc *jsonapi.Document, plain jsonapi.Object) (*jsonapi.Reply, error) {
	v, err := s.engine.View(r)
	if err != nil {
		return nil, err
	}
	h, err := s.load(v, s.engine.Store().Conn)
	if err != nil {
		return nil, err
	}
	eventID, pointer, err := readEventID(doc, plain)
	if err != nil {
		return nil, err
	}
	job := jobs.WebhookJob{Webhook: h.ID, Org: h.OrganizationID, Forced: true}
	if eventID == 0 {
		b := make([]byte, 12)
		_, _ = rand.Read(b)
		job.Message = "test_" + hex.EncodeToString(b)
		job.Event = jobs.WebhookEvent{Type: "webhook.test", OccurredAt: storage.Now()}
	} else {
		// The one read of the feed is EventsAfter: the event is the first
		// after its predecessor, if it is there and the caller's.
		events, err := s.engine.Store().EventsAfter(v.Ctx(), eventID-1, 1)
		if err != nil {
			return nil, err
		}
		if len(events) == 0 || events[0].ID != eventID || events[0].OrganizationID != h.OrganizationID {
			return nil, problem.Constraint("form constraint", fmt.Sprintf("The event %d is not in the feed.", eventID), pointer)
		}
		job.Message = fmt.Sprintf("evt_%d", eventID)
		job.Event = jobs.EventOf(events[0])
	}
	if r.Keyed == "" {
		if err := s.queue.EnqueueWebhook(v.Ctx(), job); err != nil {
			return nil, err
		}
	} else {
		// Sent with an Idempotency-Key: queued once for the key (a retry
		// after a stop finds the message queued), with a test message's id
		// made from it, so that the kept answer names the queued message.
		job.Keyed, job.Request = r.Keyed, r.KeyedRequest
		if eventID == 0 {
			job.Message = "test_" + r.Keyed[:24]
		}
		mine, err := s.queue.EnqueueKeyedWebhook(v.Ctx(), v.Conn(), job)
		if err != nil {
			return nil, err
		}
		if !mine {
			return nil, problem.IdempotencyKeyReused()
		}
	}
	if v.Plain() {
		return v.Reply(http.StatusAccepted, nil, jsonapi.AppendObject(jsonapi.Buffer(), []jsonapi.Member{{Name: "messageId", Value: job.Message}})), nil
	}
	// A document of meta alone, which TopLevel (always with data) is not.
	body := jsonapi.AppendObject(nil, []jsonapi.Member{{Name: "meta", Value: []jsonapi.Member{{Name: "messageId", Value: job.Message}}}})
	return &jsonapi.Reply{Status: http.StatusAccepted, ContentType: jsonapi.MediaType, Body: body}, nil
}

// readEventID reads the eventId of a message body (0: a test message) and
// where it is.
func readEventID(doc *jsonapi.Document, plain jsonapi.Object) (int64, string, error) {
	if doc == nil {
		raw, ok := plain["eventId"]
		if !ok {
			return 0, "", nil
		}
		var n int64
		if json.Unmarshal(raw, &n) != nil {
			return 0, "", problem.RequestData("The eventId is not an integer.", "/eventId")
		}
		return n, "/eventId", nil
	}
	var res jsonapi.Resource
	if err := json.Unmarshal(doc.Data, &res); err != nil {
		return 0, "", problem.RequestData("The primary data object is not a resource object.", "/data")
	}
	raw, ok := res.Attributes["eventId"]
	if !ok {
		return 0, "", nil
	}
	var text string
	if json.Unmarshal(raw, &text) != nil {
		return 0, "", problem.RequestData("The eventId is not a string.", "/data/attributes/eventId")
	}
	n, ok := engine.ParseID(text)
	if !ok || n == 0 {
		return 0, "", problem.Constraint("form constraint", "The eventId is not an event's identifier.", "/data/attributes/eventId")
	}
	return n, "/data/attributes/eventId", nil
}
