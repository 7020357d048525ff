// Package idemstore keeps the keys of Idempotency-Key (table
// idempotency_keys, migration 0020): which caller sent which key with which
// request, and the answer the request got, shared by every process on the
// database. The server (server/idempotency.go) decides what a request's
// fingerprint is and which answers are kept; this is only where the keys
// live and how a running request holds one.
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

// Answer is a kept answer: what a retry is sent again.
type Answer struct {
	Status  int
	Headers string // a JSON object of header lists, as the server wrote it
	Body    string
}

// Found is what Find found of a key.
type Found int

const (
	// None: no live row; the request runs.
	None Found = iota
	// Replay: the key was answered for the same request (the answer).
	Replay
	// Mismatch: the key was answered for another request.
	Mismatch
)

// ErrTaken is Keep's error when the key has a live row already: the caller
// did not hold it (Hold) or found it first (Find).
var ErrTaken = errors.New("idemstore: the key is kept already")

// Find reads k's row as it is at now (an expired row is None).
func Find(ctx context.Context, c *storage.Conn, k Key, now time.Time) (Found, *Answer, error) {
	var row struct {
		Fingerprint string `bun:"fingerprint"`
		Status      int    `bun:"status"`
		Headers     string `bun:"headers"`
		Body        string `bun:"body"`
	}
	err := c.Bun().NewRaw("SELECT fingerprint, status, headers, body FROM "+table+" WHERE owner = ? AND key = ? AND expires_at > ?",
		k.Owner, k.Key, now.UnixNano()).Scan(ctx, &row)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return None, nil, nil
	case err != nil:
		return None, nil, c.MapError("select", table, err)
	case row.Fingerprint != k.Fingerprint:
		return Mismatch, nil, nil
	}
	return Replay, &Answer{Status: row.Status, Headers: row.Headers, Body: row.Body}, nil
}

// Kept tells whether k has a live row at now, whatever its request: a
// keyed upload asks before it stages its body, to read a retry's body
// without writing it.
func Kept(ctx context.Context, c *storage.Conn, owner, key string, now time.Time) (bool, error) {
	var n int
	err := c.Bun().NewRaw("SELECT count(*) FROM "+table+" WHERE owner = ? AND key = ? AND expires_at > ?",
		owner, key, now.UnixNano()).Scan(ctx, &n)
	if err != nil {
		return false, c.MapError("select", table, err)
	}
	return n > 0, nil
}

// Hold takes k for the rest of tx's transaction, unless another
// transaction holds it (false, at once): a retry while its first request
// runs is answered, not made to wait. PostgreSQL: a transaction-scoped
// advisory lock, which a killed process's connection lets go of; SQLite:
// the write transaction holds the database already (the server keeps
// two requests of one key in one process apart).
func Hold(ctx context.Context, tx *storage.Conn, k Key) (bool, error) {
	// The owner is hexadecimal, the key visible ASCII: "|" parts them.
	return tx.TryLockKey(ctx, "idempotency-key|"+k.Owner+"|"+k.Key)
}

// Owned counts owner's live keys at now, up to max: its cost is the
// count's, so the server asks only when the caller may be at its bound.
func Owned(ctx context.Context, c *storage.Conn, owner string, now time.Time, max int) (int, error) {
	var n int
	err := c.Bun().NewRaw("SELECT count(*) FROM (SELECT 1 FROM "+table+" WHERE owner = ? AND expires_at > ? LIMIT ?) AS live",
		owner, now.UnixNano(), max).Scan(ctx, &n)
	if err != nil {
		return 0, c.MapError("count", table, err)
	}
	return n, nil
}

// Keep stores k's answer a at now, to live for ttl, in c: the transaction
// of the request's write, so that the write and its answer commit together
// (then the caller holds k: Hold). An expired row of k is replaced;
// ErrTaken when a live one is there.
func Keep(ctx context.Context, c *storage.Conn, k Key, a Answer, now time.Time, ttl time.Duration) error {
	n := now.UnixNano()
	res, err := c.Exec(ctx, "INSERT INTO "+table+" AS k (owner, key, organization_id, fingerprint, status, headers, body, created_at, expires_at) "+
		"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (owner, key) DO UPDATE SET organization_id = excluded.organization_id, "+
		"fingerprint = excluded.fingerprint, status = excluded.status, headers = excluded.headers, body = excluded.body, "+
		"created_at = excluded.created_at, expires_at = excluded.expires_at WHERE k.expires_at <= ?",
		k.Owner, k.Key, k.Org, k.Fingerprint, a.Status, a.Headers, a.Body, n, n+ttl.Nanoseconds(), n)
	if err := c.Affected("insert", table, res, err); errors.Is(err, storage.ErrNotFound) {
		return ErrTaken
	} else if err != nil {
		return err
	}
	return nil
}

// KeepAlone stores the answer of a request that wrote nothing (a refusal)
// in a transaction of its own, if no other request holds k or kept an
// answer for it meanwhile: then that one stands, and kept is false.
func KeepAlone(ctx context.Context, c *storage.Conn, k Key, a Answer, now time.Time, ttl time.Duration) (kept bool, err error) {
	err = c.Tx(ctx, func(tx *storage.Conn) error {
		held, err := Hold(ctx, tx, k)
		if err != nil || !held {
			return err
		}
		switch err := Keep(ctx, tx, k, a, now, ttl); {
		case errors.Is(err, ErrTaken):
			return nil
		case err != nil:
			return err
		}
		kept = true
		return nil
	})
	return kept, err
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
