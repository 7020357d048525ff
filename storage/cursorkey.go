package storage

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
)

// cursorKeyBytes is the length of the cursor key: HMAC-SHA256's block of
// randomness, far beyond guessing.
const cursorKeyBytes = 32

// CursorKey returns the secret that signs paging cursors (table
// cursor_keys, migration 0010), creating it on first use. Every process on
// one database reads the same key, which survives restarts: a cursor stays
// good whichever instance answers the next page. Concurrent first uses
// agree: the INSERT of all but one does nothing, and each reads the row
// that won.
func (c *Conn) CursorKey(ctx context.Context) ([]byte, error) {
	fresh := make([]byte, cursorKeyBytes)
	if _, err := rand.Read(fresh); err != nil {
		return nil, fmt.Errorf("storage: cursor key: %w", err)
	}
	var stored string
	err := c.Atomic(ctx, func(c *Conn) error {
		if _, err := c.idb.NewRaw("INSERT INTO cursor_keys (id, secret) VALUES (1, ?) ON CONFLICT (id) DO NOTHING",
			hex.EncodeToString(fresh)).Exec(ctx); err != nil {
			return err
		}
		return c.idb.NewRaw("SELECT secret FROM cursor_keys WHERE id = 1").Scan(ctx, &stored)
	})
	if err != nil {
		return nil, c.s.mapError("cursor key", "cursor_keys", err)
	}
	key, err := hex.DecodeString(stored)
	if err != nil || len(key) < cursorKeyBytes {
		return nil, fmt.Errorf("storage: cursor key: the stored key is not %d bytes of hex", cursorKeyBytes)
	}
	return key, nil
}
