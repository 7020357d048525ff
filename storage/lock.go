package storage

import (
	"context"
	"errors"
)

// errLockOutsideTx reports a LockKey call outside a transaction, where the lock
// would protect nothing.
var errLockOutsideTx = errors.New("storage: LockKey needs a transaction")

// LockKey serializes the transactions that name the same key until they end:
// an upsert in a transaction takes the key of its criterion's value before
// looking for a match, whatever the criterion (a unique index or none behind
// it), so two upserts of one new value create one record (docs/decisions.md §6). On
// PostgreSQL it is a transaction-scoped advisory lock; on SQLite the write
// transaction already holds the database's only write lock.
func (c *Conn) LockKey(ctx context.Context, key string) error {
	if !c.InTx() {
		return errLockOutsideTx
	}
	if c.s.f.LockKey == "" {
		return nil
	}
	var st sqlText
	st.add(c.s.f.LockKey, key)
	_, err := c.exec(ctx, &st)
	return c.s.mapError("lock", "", err)
}

// TryLockKey is LockKey without the wait: false, at once, when another
// transaction holds the key. A keyed write (Idempotency-Key) takes its key
// so, and a retry while the first runs is answered 409 instead of waiting
// for it (storage/idemstore). On SQLite it is always true: the write
// transaction holds the database's only write lock.
func (c *Conn) TryLockKey(ctx context.Context, key string) (bool, error) {
	if !c.InTx() {
		return false, errLockOutsideTx
	}
	if c.s.f.TryLockKey == "" {
		return true, nil
	}
	var st sqlText
	st.add(c.s.f.TryLockKey, key)
	var got bool
	if err := c.queryRow(ctx, &st, &got); err != nil {
		return false, c.s.mapError("lock", "", err)
	}
	return got, nil
}
