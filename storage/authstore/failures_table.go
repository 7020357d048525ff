package authstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/entityapi/entityapi/storage"
)

// tableFailures is the FailureCounter of a PostgreSQL store: the table
// credential_failures (migration 0007), which every process on the database
// shares. Each Add is one atomic upsert, so concurrent attempts on any
// number of processes are all counted and never exceed the ceiling.
type tableFailures struct {
	db *storage.Conn

	mu        sync.Mutex
	nextSweep time.Time // when Add next deletes the rows whose window ended
}

// sweepEvery is how often a process deletes ended rows: often enough that
// the table holds little more than the keys that failed in the last windows.
const sweepEvery = time.Minute

// addFailure counts one attempt: a new row, or a row whose window ended
// restarted at 1, or one more below the ceiling. Every SET expression reads
// the row as it was, so both see the same ended-or-not.
const addFailure = `INSERT INTO credential_failures AS f (key, failures, ends_at) VALUES (?, 1, ?)
ON CONFLICT (key) DO UPDATE SET
	failures = CASE WHEN f.ends_at <= ? THEN 1 WHEN f.failures < ? THEN f.failures + 1 ELSE f.failures END,
	ends_at = CASE WHEN f.ends_at <= ? THEN excluded.ends_at ELSE f.ends_at END
RETURNING failures, ends_at`

// Add implements FailureCounter.
func (t *tableFailures) Add(ctx context.Context, key string, now time.Time, window time.Duration, ceiling int) (FailureCount, error) {
	if err := t.sweep(ctx, now); err != nil {
		return FailureCount{}, err
	}
	now = now.Truncate(time.Microsecond) // PostgreSQL's precision: what is stored is what is compared
	var c FailureCount
	err := t.db.Bun().NewRaw(addFailure, hexKey(key), now.Add(window), now, max(ceiling, 1), now).Scan(ctx, &c.N, &c.Ends)
	if err != nil {
		return FailureCount{}, fmt.Errorf("authstore: count a failure: %w", err)
	}
	return c, nil
}

// Peek implements FailureCounter.
func (t *tableFailures) Peek(ctx context.Context, key string, now time.Time) (FailureCount, error) {
	var c FailureCount
	err := t.db.Bun().NewRaw("SELECT failures, ends_at FROM credential_failures WHERE key = ? AND ends_at > ?",
		hexKey(key), now.Truncate(time.Microsecond)).Scan(ctx, &c.N, &c.Ends)
	if errors.Is(err, sql.ErrNoRows) {
		return FailureCount{}, nil
	}
	if err != nil {
		return FailureCount{}, fmt.Errorf("authstore: read a failure count: %w", err)
	}
	return c, nil
}

// Forget implements FailureCounter.
func (t *tableFailures) Forget(ctx context.Context, key string) error {
	if _, err := t.db.Bun().NewRaw("DELETE FROM credential_failures WHERE key = ?", hexKey(key)).Exec(ctx); err != nil {
		return fmt.Errorf("authstore: forget a failure count: %w", err)
	}
	return nil
}

// sweep deletes the rows whose window ended, at most once per sweepEvery
// in this process (by the caller's clock).
func (t *tableFailures) sweep(ctx context.Context, now time.Time) error {
	t.mu.Lock()
	due := !now.Before(t.nextSweep)
	if due {
		t.nextSweep = now.Add(sweepEvery)
	}
	t.mu.Unlock()
	if !due {
		return nil
	}
	_, err := t.db.Bun().NewRaw("DELETE FROM credential_failures WHERE ends_at <= ?", now.Truncate(time.Microsecond)).Exec(ctx)
	if err != nil {
		return fmt.Errorf("authstore: delete ended failure counts: %w", err)
	}
	return nil
}
