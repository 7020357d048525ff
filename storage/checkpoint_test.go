package storage_test

import (
	"context"
	"encoding/binary"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestWritesWakeTheCheckpointer: on a SQLite file no commit checkpoints the
// log (storage/dialect/sqlite/checkpoint.go); every write of the store, in a
// transaction of its own or through the write queue, tells the checkpointer,
// which copies the log into the file soon after. (PostgreSQL keeps no such
// log: its writes are checked everywhere else.)
func TestWritesWakeTheCheckpointer(t *testing.T) {
	t.Parallel()
	// The -shm file is read through one descriptor, closed after the
	// store (cleanups run last first): closing a descriptor of the file
	// drops the locks SQLite holds on it.
	var shm *os.File
	t.Cleanup(func() {
		if shm != nil {
			_ = shm.Close()
		}
	})
	s, url := storagetest.OpenWithURL(t, "sqlite")
	path := strings.TrimPrefix(url, "sqlite:")
	ctx := context.Background()
	accounts := storagetest.Table(t, s, "accounts")
	var err error
	if shm, err = os.Open(path + "-shm"); err != nil {
		t.Fatal(err)
	}
	// copied says whether the log holds pages and all are in the file,
	// from the wal-index (https://www.sqlite.org/walformat.html): its
	// header's mxFrame, and nBackfill after the header's two copies.
	copied := func() bool {
		var b [100]byte
		if _, err := shm.ReadAt(b[:], 0); err != nil {
			t.Fatalf("%s-shm: %v", path, err)
		}
		frames, backfilled := binary.NativeEndian.Uint32(b[16:]), binary.NativeEndian.Uint32(b[96:])
		return frames > 0 && backfilled == frames
	}
	waitCopied := func(after string) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !copied(); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("ten seconds after %s, the log is not copied into the file", after)
			}
		}
	}
	waitCopied("the migration")
	for _, tc := range []struct {
		name  string
		write func() error
	}{
		{"a write through the queue", func() error {
			_, err := s.Conn.InsertRow(ctx, accounts, 1, storage.Row{"name": "Queued"})
			return err
		}},
		{"a transaction", func() error {
			return s.Conn.Tx(ctx, func(c *storage.Conn) error {
				rows := make([]storage.Row, 500)
				for i := range rows {
					rows[i] = storage.Row{"name": "In a transaction"}
				}
				_, err := c.InsertMany(ctx, accounts, 1, rows)
				return err
			})
		}},
	} {
		if err := tc.write(); err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if copied() {
			t.Fatalf("%s: the log was copied in the commit", tc.name)
		}
		waitCopied(tc.name)
	}
}
