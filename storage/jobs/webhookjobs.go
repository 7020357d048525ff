package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/dialect"
)

// This file queues webhook deliveries (issue 19). A periodic dispatch job
// follows the event feed (storage.EventsAfter) from the cursor in
// webhook_cursor and, for each event and each enabled webhook of its
// organization that wants it, inserts a delivery job in the transaction
// that moves the cursor: a crash before the commit leaves the cursor where
// it was (the events are read again), one after it leaves the jobs, so no
// event is lost or skipped, and each is delivered at least once. Concurrent
// dispatchers (the leader's periodic job, a test's DispatchWebhooks) move the
// cursor only from where they read it. Deliveries run in any order.

// WebhookEvent is what a delivery says about the change: the event of the
// feed (ID 0 for a test message).
type WebhookEvent struct {
	ID                   int64           `json:"id,omitempty"`
	Type                 string          `json:"type"` // accounts.created, or webhook.test
	ResourceType         string          `json:"resourceType,omitempty"`
	ResourceID           string          `json:"resourceId,omitempty"`
	Action               string          `json:"action,omitempty"`
	ChangedAttributes    json.RawMessage `json:"changedAttributes,omitempty"`
	ChangedRelationships json.RawMessage `json:"changedRelationships,omitempty"`
	Version              *int64          `json:"version,omitempty"`
	OccurredAt           time.Time       `json:"occurredAt"`
}

// EventOf is the delivery view of a feed event.
func EventOf(e storage.ChangeEvent) WebhookEvent {
	return WebhookEvent{ID: e.ID, Type: e.ResourceType + "." + e.Action, ResourceType: e.ResourceType,
		ResourceID: e.ResourceID, Action: e.Action, ChangedAttributes: e.ChangedAttributes,
		ChangedRelationships: e.ChangedRelationships, Version: e.Version, OccurredAt: e.OccurredAt}
}

// WebhookJob asks for one message to be delivered to one webhook. Message is
// its webhook-id, the same on every attempt (evt_<event id>, or test_...).
// Forced: a test or replay asked for by an administrator, delivered even to a
// disabled webhook.
type WebhookJob struct {
	Webhook int64        `json:"webhook"`
	Org     int64        `json:"org"`
	Message string       `json:"message"`
	Event   WebhookEvent `json:"event"`
	Forced  bool         `json:"forced,omitempty"`
	// Keyed names the Idempotency-Key of the request that queued the
	// message (its owner and text, hashed), and Request that request's
	// fingerprint: River keeps one job per Keyed (EnqueueKeyedWebhook).
	Keyed   string `json:"keyed,omitempty" river:"unique"`
	Request string `json:"request,omitempty"`
}

// Kind names the job in River's tables.
func (WebhookJob) Kind() string { return "webhook_delivery" }

// webhookDispatchJob follows the feed (Queue.DispatchWebhooks).
type webhookDispatchJob struct{}

func (webhookDispatchJob) Kind() string { return "webhook_dispatch" }

// WebhookDeliverer delivers one message: attempt counts from 1. An error is
// retried with backoff until the attempts run out; ErrGiveUp (wrapped) ends
// the job at once (the webhook is gone or disabled).
type WebhookDeliverer func(ctx context.Context, job WebhookJob, attempt int) error

// ErrGiveUp tells the queue to stop retrying a delivery.
var ErrGiveUp = errors.New("jobs: delivery given up")

// dispatchBatch is how many events one dispatch transaction takes.
const dispatchBatch = 500

// HandleWebhooks sets the function that delivers messages; before Start.
func (q *Queue) HandleWebhooks(fn WebhookDeliverer) {
	q.mu.Lock()
	q.deliver = fn
	q.mu.Unlock()
}

// DispatchWebhooks follows the feed from the cursor to its end (as far as
// ctx allows), queueing deliveries; the periodic dispatch job's body.
func (q *Queue) DispatchWebhooks(ctx context.Context) error {
	for {
		n, err := q.dispatchOnce(ctx)
		if err != nil || n < dispatchBatch || ctx.Err() != nil {
			return err
		}
	}
}

// dispatchOnce moves the cursor over up to dispatchBatch events and returns
// how many it read.
func (q *Queue) dispatchOnce(ctx context.Context) (int, error) {
	c := q.store.Conn
	pos, err := webhookCursor(ctx, c)
	if err != nil {
		return 0, err
	}
	hooks, err := enabledWebhooks(ctx, c)
	if err != nil {
		return 0, err
	}
	if len(hooks) == 0 {
		// Nothing to deliver: the cursor moves to the feed's end without
		// reading (or, on PostgreSQL, numbering) the events, so that a
		// service without webhooks spends nothing on them beside its
		// writes (a batch of 100,000 records is 100,000 events).
		return 0, skipFeed(ctx, c, pos)
	}
	events, err := q.store.EventsAfter(ctx, pos, dispatchBatch)
	if err != nil || len(events) == 0 {
		return 0, err
	}
	byOrg := map[int64][]*Webhook{}
	for i := range hooks {
		byOrg[hooks[i].OrganizationID] = append(byOrg[hooks[i].OrganizationID], &hooks[i])
	}
	var params []river.InsertManyParams
	opts := q.deliveryOpts()
	for _, e := range events {
		for _, h := range byOrg[e.OrganizationID] {
			if h.Wants(e.ResourceType, e.Action) && h.Delivers(e.OccurredAt) {
				params = append(params, river.InsertManyParams{InsertOpts: opts, Args: WebhookJob{Webhook: h.ID,
					Org: h.OrganizationID, Message: fmt.Sprintf("evt_%d", e.ID), Event: EventOf(e)}})
			}
		}
	}
	last := events[len(events)-1].ID
	err = q.jobTx(ctx, func(exec dialect.ExecFunc, insert dialect.InsertFunc) error {
		moved, err := exec("UPDATE webhook_cursor SET position = ? WHERE id = 1 AND position = ?", last, pos)
		if err != nil || moved == 0 {
			return err // another dispatcher moved it: its jobs stand
		}
		for start := 0; start < len(params); start += 1000 {
			if _, err := insert(params[start:min(start+1000, len(params))]); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("jobs: dispatch webhooks: %w", err)
	}
	return len(events), nil
}

// EnqueueWebhook queues one delivery at once (a test or a replay).
func (q *Queue) EnqueueWebhook(ctx context.Context, job WebhookJob) error {
	_, err := q.client.InsertMany(ctx, []river.InsertManyParams{{Args: job, InsertOpts: q.deliveryOpts()}})
	if err != nil {
		return fmt.Errorf("jobs: enqueue a webhook delivery: %w", err)
	}
	return nil
}

// EnqueueKeyedWebhook queues job, a message asked for with an
// Idempotency-Key (job.Keyed), once: River keeps one job per key, so a
// retry after a process stopped between this insert and the commit of the
// request's answer finds the job queued and queues no second one. mine
// tells whether the key's job is this request's (the one inserted now, or
// an earlier one of the same job.Request); false: the key queued another
// request's message.
//
// c is the transaction of the request (the one that keeps its answer). On
// SQLite River's transaction is the store's and joins it (storage.WithTx),
// so the job and the answer commit together; on PostgreSQL River's is a pgx
// transaction of its own, which commits first, and the job's uniqueness is
// what keeps it single.
func (q *Queue) EnqueueKeyedWebhook(ctx context.Context, c *storage.Conn, job WebhookJob) (mine bool, err error) {
	if job.Keyed == "" {
		return false, fmt.Errorf("jobs: a keyed webhook message without its key")
	}
	opts := q.deliveryOpts()
	opts.UniqueOpts = river.UniqueOpts{ByArgs: true}
	var res []*rivertype.JobInsertResult
	err = q.jobTx(storage.WithTx(ctx, c), func(_ dialect.ExecFunc, insert dialect.InsertFunc) error {
		var err error
		res, err = insert([]river.InsertManyParams{{Args: job, InsertOpts: opts}})
		return err
	})
	if err != nil {
		return false, fmt.Errorf("jobs: enqueue a webhook delivery: %w", err)
	}
	if len(res) != 1 || res[0].Job == nil {
		return false, fmt.Errorf("jobs: enqueue a webhook delivery: %d results", len(res))
	}
	if !res[0].UniqueSkippedAsDuplicate {
		return true, nil
	}
	var queued WebhookJob
	if err := json.Unmarshal(res[0].Job.EncodedArgs, &queued); err != nil {
		return false, fmt.Errorf("jobs: read a queued webhook delivery: %w", err)
	}
	return queued.Request == job.Request, nil
}

// deliveryOpts are the insert options of a delivery: its attempts, and a
// priority below River's default (1), which the batch chunks and the
// dispatcher keep, so that a backlog of deliveries delays neither.
func (q *Queue) deliveryOpts() *river.InsertOpts {
	return &river.InsertOpts{MaxAttempts: q.cfg.WebhookAttempts, Priority: 2}
}

// jobTx runs fn in one transaction in which River's jobs can be inserted
// (the dialect's JobClient.Tx: a pgx transaction on PostgreSQL, the SQLite
// write transaction otherwise). query uses ? placeholders.
func (q *Queue) jobTx(ctx context.Context, fn func(exec dialect.ExecFunc, insert dialect.InsertFunc) error) error {
	return q.client.Tx(ctx, fn)
}

type webhookWorker struct {
	river.WorkerDefaults[WebhookJob]
	q *Queue
}

// Work delivers one message; ErrGiveUp cancels the job.
func (w *webhookWorker) Work(ctx context.Context, job *river.Job[WebhookJob]) error {
	w.q.mu.Lock()
	fn := w.q.deliver
	w.q.mu.Unlock()
	if fn == nil {
		return errors.New("jobs: no webhook deliverer is set")
	}
	err := fn(ctx, job.Args, job.Attempt)
	if errors.Is(err, ErrGiveUp) {
		return river.JobCancel(err)
	}
	return err
}

// NextRetry backs off exponentially: WebhookBackoff after the first failed
// attempt, doubling after each (10 s, 20 s... about a day over the 14
// attempts of the defaults).
func (w *webhookWorker) NextRetry(job *river.Job[WebhookJob]) time.Time {
	shift := min(max(job.Attempt-1, 0), 20)
	return time.Now().Add(w.q.cfg.WebhookBackoff << shift)
}

// Timeout bounds one attempt: the HTTP timeout and time to log it. It is
// also how long a delivery left running by a dead process waits before it
// is rescued and tried again.
func (w *webhookWorker) Timeout(*river.Job[WebhookJob]) time.Duration {
	return w.q.cfg.WebhookTimeout + 5*time.Second
}

type webhookDispatchWorker struct {
	river.WorkerDefaults[webhookDispatchJob]
	q *Queue
}

func (w *webhookDispatchWorker) Work(ctx context.Context, _ *river.Job[webhookDispatchJob]) error {
	return w.q.DispatchWebhooks(ctx)
}

// dispatchOpts keep one dispatch job at a time waiting or running.
var dispatchOpts = &river.InsertOpts{MaxAttempts: 1, UniqueOpts: river.UniqueOpts{ByState: []rivertype.JobState{
	rivertype.JobStateAvailable, rivertype.JobStatePending, rivertype.JobStateRunning,
	rivertype.JobStateRetryable, rivertype.JobStateScheduled}}}

// addWebhookWorkers registers the webhook jobs on a River configuration.
func (q *Queue) addWebhookWorkers(workers *river.Workers, rc *river.Config) error {
	if err := river.AddWorkerSafely(workers, &webhookWorker{q: q}); err != nil {
		return err
	}
	if err := river.AddWorkerSafely(workers, &webhookDispatchWorker{q: q}); err != nil {
		return err
	}
	rc.PeriodicJobs = append(rc.PeriodicJobs, river.NewPeriodicJob(river.PeriodicInterval(q.cfg.WebhookPoll),
		func() (river.JobArgs, *river.InsertOpts) { return webhookDispatchJob{}, dispatchOpts },
		&river.PeriodicJobOpts{RunOnStart: true}))
	return nil
}
