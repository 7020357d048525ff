// Package idemstore keeps the keys of Idempotency-Key (table
// idempotency_keys, migration 0020): which caller sent which key with which
// request, and the answer the request got. The server (server/idempotency.go)
// decides what a request's fingerprint is and when a key is claimed, answered
// or released; this is only where the keys live, shared by every process on
// the database.
package idemstore

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/entityapi/entityapi/storage"
)

const table = "idempotency_keys"

// Key names one key of one caller and what its request was.
type Key struct {
	Owner       string // the caller: application, organization, client, user
	Key         string // the key as the client sent it
	Org         int64  // the caller's organization
	Fingerprint string // what the request was (method, target, format, body)
}

// Answer is a stored answer: what a retry is sent again.
type Answer struct {
	Status  int
	Headers string // a JSON object of header lists, as the server wrote it
	Body    string
}

// Outcome is what a claim found.
type Outcome int

const (
	// Claimed: the key is the request's (new, expired, or abandoned by a
	// request whose lock ran out); it runs, and answers or releases it.
	Claimed Outcome = iota
	// Replay: the key was answered for the same request; Claim returns the answer.
	Replay
	// Mismatch: the key was sent before with another request.
	Mismatch
	// InProgress: the key's first request is still running.
	InProgress
	// TooMany: the caller holds as many live keys as it may.
	TooMany
)

// Claim is one request's hold on a key.
type Claim struct {
	Key
	Token string // random, the request's own: Complete and Release match it
}

// Limits are what a claim is given.
type Limits struct {
	Lock time.Duration // how long a running request holds its key
	TTL  time.Duration // how long a key lives
	// MaxOwned, when above zero, makes a claim of a new key count the
	// caller's live keys (up to MaxOwned) and refuse it at MaxOwned
	// (TooMany). The count costs as many index entries as it counts: the
	// server asks for it only when its estimate says the caller is near
	// the bound, or the estimate is stale.
	MaxOwned int
}

// Result is what a claim found: the outcome, the kept answer of a Replay,
// and the caller's live keys when they were counted (Owned, -1 when not).
type Result struct {
	Outcome Outcome
	Answer  *Answer
	Owned   int
}

// ErrLost is Complete's error when the claim is no longer the request's: its
// lock ran out and another request claimed the key.
var ErrLost = errors.New("idemstore: the key was claimed again after its lock ran out")

// ClaimKey claims k for a request whose random token is token, at now, in
// one transaction of its own (so that other processes see the running
// request at once). When the key is answered already, Replay and the
// answer; when another request holds it, InProgress; when it was sent with
// another request, Mismatch (whatever state it is in). Those are read
// first, without a write: on SQLite a retry while its first request runs
// must not wait for the one writer that request holds.
func ClaimKey(ctx context.Context, c *storage.Conn, k Key, token string, now time.Time, lim Limits) (Result, error) {
	n := now.UnixNano()
	row, found, err := load(ctx, c, k)
	if err != nil {
		return Result{}, err
	}
	if found && row.ExpiresAt > n {
		if outcome, answer, decided := row.decide(k, n); decided {
			return Result{Outcome: outcome, Answer: answer, Owned: -1}, nil
		}
	}
	var (
		outcome Outcome
		answer  *Answer
		owned   = -1
	)
	err = c.Atomic(ctx, func(c *storage.Conn) error {
		row, found, err := load(ctx, c, k)
		if err != nil {
			return err
		}
		if found && row.ExpiresAt <= n {
			if _, err := c.Exec(ctx, "DELETE FROM "+table+" WHERE owner = ? AND key = ? AND expires_at <= ?", k.Owner, k.Key, n); err != nil {
				return c.MapError("delete", table, err)
			}
			found = false
		}
		if found {
			var decided bool
			if outcome, answer, decided = row.decide(k, n); decided {
				return nil
			}
			// Abandoned: its request's process went away before the write
			// committed (the answer commits with the write).
			res, err := c.Exec(ctx, "UPDATE "+table+" SET claim = ?, locked_until = ? WHERE owner = ? AND key = ? AND locked_until = ? AND status IS NULL",
				token, n+lim.Lock.Nanoseconds(), k.Owner, k.Key, row.LockedUntil)
			if err := c.Affected("update", table, res, err); errors.Is(err, storage.ErrNotFound) {
				outcome = InProgress // another retry claimed it first
				return nil
			} else if err != nil {
				return err
			}
			outcome = Claimed
			return nil
		}
		if lim.MaxOwned > 0 {
			err := c.Bun().NewRaw("SELECT count(*) FROM (SELECT 1 FROM "+table+" WHERE owner = ? AND expires_at > ? LIMIT ?) AS live",
				k.Owner, n, lim.MaxOwned).Scan(ctx, &owned)
			if err != nil {
				return c.MapError("count", table, err)
			}
			if owned >= lim.MaxOwned {
				outcome = TooMany
				return nil
			}
		}
		// A concurrent claim of the same key on PostgreSQL waits here for
		// the other's transaction, then inserts nothing: it is running.
		res, err := c.Exec(ctx, "INSERT INTO "+table+" (owner, key, organization_id, fingerprint, claim, locked_until, created_at, expires_at) "+
			"VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (owner, key) DO NOTHING",
			k.Owner, k.Key, k.Org, k.Fingerprint, token, n+lim.Lock.Nanoseconds(), n, n+lim.TTL.Nanoseconds())
		if err := c.Affected("insert", table, res, err); errors.Is(err, storage.ErrNotFound) {
			outcome = InProgress
			return nil
		} else if err != nil {
			return err
		}
		outcome = Claimed
		return nil
	})
	if err != nil {
		return Result{}, err
	}
	return Result{Outcome: outcome, Answer: answer, Owned: owned}, nil
}

// stored is a key's row.
type stored struct {
	Fingerprint string         `bun:"fingerprint"`
	LockedUntil int64          `bun:"locked_until"`
	Status      sql.NullInt64  `bun:"status"`
	Headers     sql.NullString `bun:"headers"`
	Body        sql.NullString `bun:"body"`
	ExpiresAt   int64          `bun:"expires_at"`
}

// load reads k's row; found is false when there is none.
func load(ctx context.Context, c *storage.Conn, k Key) (row stored, found bool, err error) {
	err = c.Bun().NewRaw("SELECT fingerprint, locked_until, status, headers, body, expires_at FROM "+table+
		" WHERE owner = ? AND key = ?", k.Owner, k.Key).Scan(ctx, &row)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return row, false, nil
	case err != nil:
		return row, false, c.MapError("select", table, err)
	}
	return row, true, nil
}

// decide is what a live row says of a claim of k at n (nanoseconds): a
// mismatch, a replay or a running request; decided is false for a row whose
// request was abandoned (its lock ran out unanswered), which may be claimed.
func (r *stored) decide(k Key, n int64) (Outcome, *Answer, bool) {
	switch {
	case r.Fingerprint != k.Fingerprint:
		return Mismatch, nil, true
	case r.Status.Valid:
		return Replay, &Answer{Status: int(r.Status.Int64), Headers: r.Headers.String, Body: r.Body.String}, true
	case r.LockedUntil > n:
		return InProgress, nil, true
	}
	return 0, nil, false
}

// Complete stores the answer of the claimed request in c, which must be the
// transaction of the request's write: the answer commits with the write, or
// neither does. ErrLost when the claim is no longer the request's.
func Complete(ctx context.Context, c *storage.Conn, cl Claim, a Answer) error {
	res, err := c.Exec(ctx, "UPDATE "+table+" SET status = ?, headers = ?, body = ?, locked_until = 0 WHERE owner = ? AND key = ? AND claim = ?",
		a.Status, a.Headers, a.Body, cl.Owner, cl.Key.Key, cl.Token)
	if err := c.Affected("update", table, res, err); errors.Is(err, storage.ErrNotFound) {
		return ErrLost
	} else if err != nil {
		return err
	}
	return nil
}

// CompleteAlone stores the answer of a claimed request that wrote nothing
// (a refusal), in a transaction of its own.
func CompleteAlone(ctx context.Context, c *storage.Conn, cl Claim, a Answer) error {
	return c.Atomic(ctx, func(c *storage.Conn) error { return Complete(ctx, c, cl, a) })
}

// Release gives up a claim whose request wrote nothing (it was refused, or
// failed): a retry runs again.
func Release(ctx context.Context, c *storage.Conn, cl Claim) error {
	return c.Atomic(ctx, func(c *storage.Conn) error {
		_, err := c.Exec(ctx, "DELETE FROM "+table+" WHERE owner = ? AND key = ? AND claim = ? AND status IS NULL", cl.Owner, cl.Key.Key, cl.Token)
		return c.MapError("delete", table, err)
	})
}

// DeleteExpired deletes the keys that expired by now (the housekeeping) and
// returns how many.
func DeleteExpired(ctx context.Context, c *storage.Conn, now time.Time) (int64, error) {
	var n int64
	err := c.Atomic(ctx, func(c *storage.Conn) error {
		res, err := c.Exec(ctx, "DELETE FROM "+table+" WHERE expires_at <= ?", now.UnixNano())
		if err != nil {
			return c.MapError("delete", table, err)
		}
		n, err = res.RowsAffected()
		return err
	})
	return n, err
}
