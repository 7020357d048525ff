package authstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"time"

	"github.com/entityapi/entityapi/storage"
)

// FailureCounter counts failed attempts (wrong client secrets, wrong
// passwords) per key in fixed windows: a key's window starts at the first
// attempt counted after the previous window ended, and lasts the window given
// then. The token endpoint (server/auth) decides what the keys are and what
// the counts allow; this is only where the counts live.
//
// Keys are kept as their SHA-256, never as given: a key may hold a user name,
// and a user who types a password into the name field must not find it
// stored. Implementations are safe for concurrent use.
type FailureCounter interface {
	// Add counts one attempt against key at now and returns the count after
	// it and its window's end. A key without a count, or whose window ended
	// by now, starts a new window of the given length at 1. A count already
	// at ceiling stays at ceiling (the attempt is not counted), so a caller
	// that refuses counts above a limit can ask for ceiling limit+1 and
	// learn in one atomic step whether this attempt is allowed.
	Add(ctx context.Context, key string, now time.Time, window time.Duration, ceiling int) (FailureCount, error)
	// Peek returns key's count at now: zero when there is none or its
	// window ended by now.
	Peek(ctx context.Context, key string, now time.Time) (FailureCount, error)
	// Forget drops key's count, as if it had never failed.
	Forget(ctx context.Context, key string) error
}

// FailureCount is a key's count in its window; N is 0 when there is none.
type FailureCount struct {
	N    int
	Ends time.Time // end of the window (zero when N is 0)
}

// maxFailureKeys bounds the memory counter: about 12 MB at most. Past it the
// least recently used count below its ceiling is forgotten first (see
// memoryFailures).
const maxFailureKeys = 1 << 16

// FailureCounter returns where this store's failure counts live, chosen by
// the database: with PostgreSQL a table that every process using the
// database shares, so N processes behind a balancer allow no more attempts
// than one; with SQLite (one process) this Store's memory, bounded. Every
// call returns the same counts.
func (a *Store) FailureCounter() FailureCounter {
	f := a.failures
	f.once.Do(func() {
		if f.oneWriter {
			f.counter = newMemoryFailures(maxFailureKeys)
		} else {
			f.counter = &tableFailures{db: f.db}
		}
	})
	return f.counter
}

// failureStore is what Store keeps for FailureCounter.
type failureStore struct {
	// oneWriter: the database takes one writer at a time (SQLite), where
	// the counts are kept in memory rather than queued behind the writes.
	oneWriter bool
	db        *storage.Conn // outside any transaction
	once      sync.Once
	counter   FailureCounter
}

// hashKey is the stored form of a key (see FailureCounter).
func hashKey(key string) [sha256.Size]byte { return sha256.Sum256([]byte(key)) }

// hexKey is hashKey in hexadecimal, the table's primary key.
func hexKey(key string) string {
	h := hashKey(key)
	return hex.EncodeToString(h[:])
}
