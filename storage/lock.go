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
