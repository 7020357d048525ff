package storage

import (
	"context"
	"fmt"
	"strings"
)

// RateBucket is one client's request rate as the processes on a database
// share it (table rate_limit_buckets, migration 0014; docs/decisions.md §14).
// The state is GCRA's: TAT is the time, in nanoseconds since 1970, at which
// the client's bucket is full again; a bucket with TAT at or before now is
// full and needs no row. The server (server/ratelimit_share.go) decides what
// a request costs; this is only where the state lives.
type RateBucket struct {
	Key string `bun:"key"` // the hexadecimal SHA-256 of the client's name
	TAT int64  `bun:"tat"`
	// Pushed is what the pushing process allowed since its last push, as
	// time: requests times the time one request takes to come back.
	Pushed int64 `bun:"pushed"`
}

// maxRateRows bounds the rows of one statement (4 parameters a row):
// within both databases' limits on parameters.
const maxRateRows = 1000

// pushRate adds one process's buckets: a new row, or the row's TAT moved
// to the later of the row's plus what the process allowed since its last
// push (which counts the others' use the process has not seen yet) and the
// process's own TAT (which counts its use exactly, from the row as it last
// read it). Both are never past the truth, so the row never is.
const pushRate = `INSERT INTO rate_limit_buckets AS b (key, tat, pushed, updated_at) VALUES %s
ON CONFLICT (key) DO UPDATE SET
	tat = CASE WHEN b.tat + excluded.pushed > excluded.tat THEN b.tat + excluded.pushed ELSE excluded.tat END,
	pushed = excluded.pushed,
	updated_at = excluded.updated_at`

// PushRateBuckets adds what this process allowed (see pushRate) at now
// (nanoseconds since 1970, the process's clock), in one transaction.
func (c *Conn) PushRateBuckets(ctx context.Context, buckets []RateBucket, now int64) error {
	err := c.Tx(ctx, func(c *Conn) error {
		for len(buckets) > 0 {
			part := buckets[:min(len(buckets), maxRateRows)]
			buckets = buckets[len(part):]
			args := make([]any, 0, 4*len(part))
			for _, b := range part {
				args = append(args, b.Key, b.TAT, b.Pushed, now)
			}
			values := strings.TrimSuffix(strings.Repeat("(?, ?, ?, ?), ", len(part)), ", ")
			if _, err := c.idb.NewRaw(fmt.Sprintf(pushRate, values), args...).Exec(ctx); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return c.s.mapError("push rate buckets", "rate_limit_buckets", err)
	}
	return nil
}

// RateBucketsSince returns the buckets pushed by any process after since
// that are not full at now (both in nanoseconds since 1970).
func (c *Conn) RateBucketsSince(ctx context.Context, since, now int64) ([]RateBucket, error) {
	var out []RateBucket
	err := c.idb.NewRaw("SELECT key, tat FROM rate_limit_buckets WHERE updated_at > ? AND tat > ?", since, now).
		Scan(ctx, &out)
	if err != nil {
		return nil, c.s.mapError("read rate buckets", "rate_limit_buckets", err)
	}
	return out, nil
}

// ForgetRateBuckets deletes the rows of buckets full before then
// (nanoseconds since 1970): they say nothing a missing row does not.
func (c *Conn) ForgetRateBuckets(ctx context.Context, then int64) error {
	err := c.Tx(ctx, func(c *Conn) error {
		_, err := c.idb.NewRaw("DELETE FROM rate_limit_buckets WHERE tat < ?", then).Exec(ctx)
		return err
	})
	if err != nil {
		return c.s.mapError("forget rate buckets", "rate_limit_buckets", err)
	}
	return nil
}
