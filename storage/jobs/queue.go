package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/riverqueue/river"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/dialect"
	"github.com/entityapi/entityapi/storage/idemstore"
)

// This file wires the job queue of batch operations (docs/decisions.md §2, §9): River
// on both databases, its tables in the application's database. A chunk job
// names one staged chunk; whoever builds the queue hands it the function that
// processes a chunk (the server's), so this package knows nothing of HTTP. On
// PostgreSQL every process with workers takes chunks; on SQLite one process
// owns the file.

// ChunkJob asks for staged chunks of an operation to be processed: Chunk and
// the Count-1 chunks after it (Count 0 is 1, as in jobs enqueued before
// ranges existed). The organization travels with it because every operation
// query is scoped.
//
// Trace is the W3C traceparent of the request that queued the job, when
// tracing is on, so that the job's span can link to it; it takes no part in
// the job's uniqueness (river:"unique" marks the fields that do), so a job
// queued again by the housekeeping, without it, is still the same job.
type ChunkJob struct {
	Operation int64  `json:"operation" river:"unique"`
	Org       int64  `json:"org" river:"unique"`
	Chunk     int    `json:"chunk" river:"unique"`
	Count     int    `json:"count,omitempty" river:"unique"`
	Trace     string `json:"trace,omitempty"`
}

// Chunks is how many chunks the job names (at least 1).
func (j ChunkJob) Chunks() int { return max(1, j.Count) }

// A job's chunks share one fetch and completion of the job by River; its
// transactions (server: thirty chunks each) are its own. At 100 records a
// chunk, one job per chunk was most of a batch's time (issue 16), and so
// were, at ten chunks a job, the workers' waits for their next job on SQLite.
// A job gets minChunksPerJob chunks, more for a large batch (up to its
// Shape's Most) so long as it still makes Shape.Spread jobs.
//
// Where writers run side by side (PostgreSQL), the jobs spread over
// spreadJobs, work for every worker of every process. Where the database has
// one writer (Features.OneWriter: SQLite), it takes every transaction, and a
// job keeps it busy by itself (it checks its next chunks while it writes
// these, server/batch), except when it starts: its first chunks are checked
// with the writer idle, unless another worker is writing meanwhile. So a
// batch makes two jobs per worker there, as large as oneWriterMostPerJob
// allows: at 50 chunks a job, the 20 starts of a batch of 100,000 records
// left SQLite's writer idle for a tenth of its time (the workers' jobs
// ended together, and started together).
const (
	minChunksPerJob     = 10
	maxChunksPerJob     = 50
	spreadJobs          = 16
	oneWriterMostPerJob = 500
)

// Shape is how a run of chunks is cut into jobs: into Spread jobs at least
// (when there are chunks enough for minChunksPerJob each), of at most Most
// chunks.
type Shape struct{ Spread, Most int }

// JobShape is the Shape of the chunk jobs this queue inserts (see above).
func (q *Queue) JobShape() Shape {
	if q.store.Features().OneWriter {
		return Shape{Spread: 2 * q.cfg.Workers, Most: oneWriterMostPerJob}
	}
	return Shape{Spread: spreadJobs, Most: maxChunksPerJob}
}

// Kind names chunk jobs in River's tables.
func (ChunkJob) Kind() string { return "batch_chunk" }

// InsertOpts makes a chunk job unique by its arguments, so that re-enqueueing
// a chunk (after a lost enqueue) never runs it twice at once.
func (ChunkJob) InsertOpts() river.InsertOpts {
	return river.InsertOpts{MaxAttempts: chunkAttempts, UniqueOpts: river.UniqueOpts{ByArgs: true}}
}

// maintenanceJob is the periodic housekeeping of operations (see Queue.maintain).
type maintenanceJob struct{}

func (maintenanceJob) Kind() string { return "batch_maintenance" }

// fetchCooldown is the least time between two fetches of jobs by a process.
const fetchCooldown = 2 * time.Millisecond

// chunkAttempts is how often a chunk is tried before its operation fails. A
// chunk's writes and its outcome commit together, so a retry after a crash or
// an error never doubles a record.
const chunkAttempts = 5

// ChunkProcessor processes one chunk: its writes, counts and errors in one
// transaction (FinishChunk). An error is retried; after the last attempt
// the operation fails.
type ChunkProcessor func(ctx context.Context, job ChunkJob) error

// The defaults of Config's zero values that `entityapi serve` has settings
// for (server/cli shows and applies the same, read from here; the webhook
// service's delivery timeout is DefaultWebhookTimeout too).
const (
	DefaultRescueAfter     = time.Minute
	DefaultLifetime        = 30 * 24 * time.Hour
	DefaultEventLifetime   = 30 * 24 * time.Hour
	DefaultWebhookPoll     = time.Second
	DefaultWebhookAttempts = 14
	DefaultWebhookBackoff  = 10 * time.Second
	DefaultWebhookTimeout  = 10 * time.Second
)

// Config tunes the job queue. Zero values take the defaults.
type Config struct {
	Workers     int           // chunks processed at once by this process; 0 with NoWorkers: none
	NoWorkers   bool          // insert jobs only (an API-only process)
	RescueAfter time.Duration // a chunk left running by a dead process is retried after this (60 s)
	Lifetime    time.Duration // finished operations are deleted after this (30 days)
	// EventLifetime: change events are deleted this long after their
	// change (30 days), by the same housekeeping.
	EventLifetime time.Duration
	// AuditRetention: audit rows are deleted this long after their change,
	// by the same housekeeping; 0 keeps them forever (the default: an
	// audit trail is often kept by law).
	AuditRetention time.Duration
	Interrupted    time.Duration // a published operation without progress for this long is re-enqueued (2 × RescueAfter)
	Maintenance    time.Duration // how often the housekeeping runs (1 min)
	StaleUpload    time.Duration // an upload without a new chunk for this long is abandoned and deleted (1 h)
	PollEvery      time.Duration // how often workers look for jobs where no notification arrives (SQLite: 200 ms)
	Logger         *slog.Logger
	// Webhooks (webhookjobs.go): how often the feed is followed (1 s), how
	// many attempts a delivery gets (14), the wait after its first failure,
	// doubled after each (10 s: about a day in all), and the HTTP timeout of
	// one attempt (10 s), which bounds the job too.
	WebhookPoll     time.Duration
	WebhookAttempts int
	WebhookBackoff  time.Duration
	WebhookTimeout  time.Duration
}

// Queue is the batch job queue of one process.
type Queue struct {
	store *storage.Store
	cfg   Config
	// client is River's client with the database's driver (the dialect's,
	// storage/dialect), closed with the queue.
	client dialect.JobClient

	mu      sync.Mutex
	process ChunkProcessor
	deliver WebhookDeliverer
	// stopping is set when Stop begins: River's "context canceled" errors
	// are then the stop itself (queuelog.go).
	stopping atomic.Bool
}

// NewQueue builds the queue on the store's database; Start runs its workers.
// The River tables are created by storage's Migrate.
func NewQueue(s *storage.Store, cfg Config) (*Queue, error) {
	if cfg.Workers <= 0 {
		cfg.Workers = 1
	}
	if cfg.RescueAfter <= 0 {
		cfg.RescueAfter = DefaultRescueAfter
	}
	if cfg.Lifetime <= 0 {
		cfg.Lifetime = DefaultLifetime
	}
	if cfg.EventLifetime <= 0 {
		cfg.EventLifetime = DefaultEventLifetime
	}
	if cfg.Interrupted <= 0 {
		cfg.Interrupted = 2 * cfg.RescueAfter
	}
	if cfg.Maintenance <= 0 {
		cfg.Maintenance = time.Minute
	}
	if cfg.StaleUpload <= 0 {
		cfg.StaleUpload = time.Hour
	}
	if cfg.PollEvery <= 0 {
		cfg.PollEvery = 200 * time.Millisecond
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.WebhookPoll <= 0 {
		cfg.WebhookPoll = DefaultWebhookPoll
	}
	if cfg.WebhookAttempts <= 0 {
		cfg.WebhookAttempts = DefaultWebhookAttempts
	}
	if cfg.WebhookBackoff <= 0 {
		cfg.WebhookBackoff = DefaultWebhookBackoff
	}
	if cfg.WebhookTimeout <= 0 {
		cfg.WebhookTimeout = DefaultWebhookTimeout
	}
	q := &Queue{store: s, cfg: cfg}
	rc := &river.Config{
		Logger:               storage.RiverLogger(cfg.Logger, q.stopping.Load),
		RescueStuckJobsAfter: cfg.RescueAfter,
		FetchPollInterval:    cfg.PollEvery,
		// River's default cooldown (100 ms) between fetches caps a process at
		// Workers chunks per 100 ms (2,000 records/s with two workers): a
		// worker that finishes takes its next chunk at once instead.
		FetchCooldown: fetchCooldown,
		MaxAttempts:   chunkAttempts,
		// River's rescuer only retries a job left running by a dead process once
		// the job's timeout has passed (a negative timeout: never), so a chunk
		// gets RescueAfter, far above what 100 records take; one that runs
		// longer is cancelled (its transaction rolls back) and tried again.
		JobTimeout: cfg.RescueAfter,
	}
	if !cfg.NoWorkers {
		workers := river.NewWorkers()
		if err := river.AddWorkerSafely(workers, &chunkWorker{q: q}); err != nil {
			return nil, err
		}
		if err := river.AddWorkerSafely(workers, &maintenanceWorker{q: q}); err != nil {
			return nil, err
		}
		rc.Workers = workers
		rc.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: cfg.Workers}}
		rc.PeriodicJobs = []*river.PeriodicJob{river.NewPeriodicJob(river.PeriodicInterval(cfg.Maintenance),
			func() (river.JobArgs, *river.InsertOpts) { return maintenanceJob{}, nil },
			&river.PeriodicJobOpts{RunOnStart: true})}
		if err := q.addWebhookWorkers(workers, rc); err != nil {
			return nil, err
		}
	}
	var err error
	if q.client, err = s.NewJobClient(rc); err != nil {
		return nil, fmt.Errorf("jobs: job queue: %w", err)
	}
	return q, nil
}

// Handle sets the function that processes chunks; it must be set before Start.
func (q *Queue) Handle(fn ChunkProcessor) {
	q.mu.Lock()
	q.process = fn
	q.mu.Unlock()
}

// Start runs the workers (and, on the elected leader, the housekeeping) until
// Stop. A queue with NoWorkers only inserts and needs no Start.
func (q *Queue) Start(ctx context.Context) error {
	if q.cfg.NoWorkers {
		return nil
	}
	if err := q.client.Start(ctx); err != nil {
		return fmt.Errorf("jobs: start job queue: %w", err)
	}
	return nil
}

// Stop waits for running chunks to finish (as long as ctx allows) and
// releases the queue's connection.
func (q *Queue) Stop(ctx context.Context) error {
	q.stopping.Store(true)
	var err error
	if !q.cfg.NoWorkers {
		err = q.client.Stop(ctx)
		if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			err = nil // the rescuer retries what was cut off
		}
	}
	_ = q.client.Close()
	return err
}

// Enqueue adds chunk jobs. A job for a chunk that already has one waiting or
// running is skipped (ChunkJob.InsertOpts); a job whose chunks overlap those
// of a running one is harmless, as each chunk's outcome is recorded once
// (FinishChunk).
func (q *Queue) Enqueue(ctx context.Context, jobs []ChunkJob) error {
	// One multi-row insert may not name a unique job twice (PostgreSQL's
	// ON CONFLICT refuses to touch a row twice), so twins are dropped here.
	params := make([]river.InsertManyParams, 0, len(jobs))
	seen := make(map[ChunkJob]bool, len(jobs))
	for _, j := range jobs {
		if !seen[j] {
			seen[j] = true
			params = append(params, river.InsertManyParams{Args: j})
		}
	}
	for start := 0; start < len(params); start += 1000 {
		end := min(start+1000, len(params))
		if _, err := q.client.InsertMany(ctx, params[start:end]); err != nil {
			return fmt.Errorf("jobs: enqueue chunks: %w", err)
		}
	}
	return nil
}

// ForChunks returns the jobs for the given chunks of an operation (numbers
// ascending) cut to shape: each run of consecutive numbers becomes jobs of
// up to minChunksPerJob chunks, or more in a large batch (up to shape.Most)
// while that still makes shape.Spread jobs.
func ForChunks(opID, org int64, numbers []int, shape Shape) []ChunkJob {
	spread := max(1, shape.Spread)
	perJob := min(max(minChunksPerJob, shape.Most), max(minChunksPerJob, (len(numbers)+spread-1)/spread))
	var out []ChunkJob
	for _, n := range numbers {
		if k := len(out); k > 0 {
			last := &out[k-1]
			if last.Chunk+last.Chunks() == n && last.Chunks() < perJob {
				last.Count = last.Chunks() + 1
				continue
			}
		}
		out = append(out, ChunkJob{Operation: opID, Org: org, Chunk: n})
	}
	return out
}

// Process runs a chunk job at once, in this goroutine, through the function
// Handle set, as a worker would (tests order a job's work with it).
func (q *Queue) Process(ctx context.Context, job ChunkJob) error {
	q.mu.Lock()
	fn := q.process
	q.mu.Unlock()
	if fn == nil {
		return errors.New("jobs: no chunk processor is set")
	}
	return fn(ctx, job)
}

// Maintain runs the housekeeping once (the periodic job's body; tests call it).
func (q *Queue) Maintain(ctx context.Context) error { return q.maintain(ctx) }

// maintain deletes finished operations, change events and audit rows past
// their lifetimes, expired Idempotency-Keys, and abandoned uploads, numbers committed events (SequenceEvents),
// refreshes the planner statistics of grown tables (Optimize), re-enqueues the chunks of operations that stopped moving (a crash
// between publishing and enqueueing), and fails operations that can no longer
// finish (a synchronous batch whose process died).
func (q *Queue) maintain(ctx context.Context) error {
	s := q.store
	now := time.Now()
	if _, err := DeleteFinishedBefore(ctx, s.Conn, now.Add(-q.cfg.Lifetime)); err != nil {
		return err
	}
	// Events: numbered (so that none waits for a reader of the feed to
	// appear), and deleted after their lifetime.
	if err := s.SequenceEvents(ctx); err != nil {
		return err
	}
	if _, err := s.DeleteEventsBefore(ctx, now.Add(-q.cfg.EventLifetime)); err != nil {
		return err
	}
	if _, err := DeleteDeliveriesBefore(ctx, s.Conn, now.Add(-q.cfg.EventLifetime)); err != nil {
		return err
	}
	if q.cfg.AuditRetention > 0 {
		if _, err := s.DeleteAuditsBefore(ctx, now.Add(-q.cfg.AuditRetention)); err != nil {
			return err
		}
	}
	if _, err := idemstore.DeleteExpired(ctx, s.Conn, now); err != nil {
		return err
	}
	if err := s.Optimize(ctx); err != nil {
		return err
	}
	stale, err := StaleStaging(ctx, s.Conn, now.Add(-q.cfg.StaleUpload))
	if err != nil {
		return err
	}
	for _, id := range stale {
		if err := DeleteOperation(ctx, s.Conn, id); err != nil && !errors.Is(err, storage.ErrNotFound) {
			return err
		}
	}
	stalled, err := Stalled(ctx, s.Conn, now.Add(-q.cfg.Interrupted))
	if err != nil {
		return err
	}
	for _, op := range stalled {
		numbers, err := PendingChunkNumbers(ctx, s.Conn, op.ID)
		if err != nil {
			return err
		}
		if len(numbers) == 0 {
			// Nothing staged is left to run, yet the operation never ended:
			// its work died with a process (a synchronous batch).
			err := FailOperation(ctx, s.Conn, op.ID, RuntimeException("The operation was interrupted; nothing of it was written."))
			if err != nil && !errors.Is(err, ErrFinished) {
				return err
			}
			continue
		}
		if err := q.Enqueue(ctx, ForChunks(op.ID, op.OrganizationID, numbers, q.JobShape())); err != nil {
			return err
		}
		if err := TouchOperation(ctx, s.Conn, op.ID); err != nil && !errors.Is(err, storage.ErrNotFound) {
			return err
		}
	}
	return nil
}

type chunkWorker struct {
	river.WorkerDefaults[ChunkJob]
	q *Queue
}

// Work processes a chunk; after the last attempt it fails the operation, as
// Oro does when a chunk job fails (oro-behaviour §10.3).
func (w *chunkWorker) Work(ctx context.Context, job *river.Job[ChunkJob]) error {
	err := w.q.Process(ctx, job.Args)
	if err == nil || job.Attempt < job.MaxAttempts {
		return err
	}
	w.q.cfg.Logger.Error("batch chunk failed", "operation", job.Args.Operation, "chunk", job.Args.Chunk, "error", err)
	// The job's own context may have ended (its timeout): the failure is
	// still recorded.
	ferr := FailOperation(context.WithoutCancel(ctx), w.q.store.Conn, job.Args.Operation,
		RuntimeException(fmt.Sprintf("The chunk %d could not be processed.", job.Args.Chunk)))
	if ferr != nil && !errors.Is(ferr, ErrFinished) && !errors.Is(ferr, storage.ErrNotFound) {
		return ferr
	}
	return nil
}

type maintenanceWorker struct {
	river.WorkerDefaults[maintenanceJob]
	q *Queue
}

func (w *maintenanceWorker) Work(ctx context.Context, _ *river.Job[maintenanceJob]) error {
	return w.q.maintain(ctx)
}

// RuntimeException is the error an operation fails with when our side could
// not run it (a process died, a chunk kept failing): Oro's 500 "runtime
// exception", with a detail that says what was lost.
func RuntimeException(detail string) OperationError {
	return OperationError{Status: 500, Title: "runtime exception", Detail: &detail}
}
