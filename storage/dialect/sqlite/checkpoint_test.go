package sqlite

import (
	"encoding/binary"
	"errors"
	"io/fs"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// walState reads, from the -shm file beside path, how many pages the log
// holds (the wal-index header's mxFrame) and how many of them a checkpoint
// has copied into the file (nBackfill, the first word after the header's
// two copies): https://www.sqlite.org/walformat.html, "The WAL-Index
// Header" and "The WAL-Index Checkpoint Info". It reads through a
// descriptor opened once and closed when the test ends, after the
// database: closing a descriptor of the file drops the locks SQLite holds
// on it (commitmark.go).
func walState(t *testing.T, path string) (frames, backfilled uint32) {
	t.Helper()
	f, ok := shmFiles.Load(path)
	if !ok {
		file, err := os.Open(path + "-shm")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = file.Close() })
		f = file
		shmFiles.Store(path, file)
	}
	var b [100]byte
	if _, err := f.(*os.File).ReadAt(b[:], 0); err != nil {
		t.Fatalf("%s-shm: %v", path, err)
	}
	return binary.NativeEndian.Uint32(b[16:]), binary.NativeEndian.Uint32(b[96:])
}

// shmFiles are the -shm files walState reads, by database path.
var shmFiles sync.Map

// bigWrite commits, in one transaction on d's pool (not through a store,
// so nothing tells the checkpointer), rows that take the log past SQLite's
// own checkpoint threshold of 1,000 pages.
func bigWrite(t *testing.T, d *DB) {
	t.Helper()
	tx, err := d.DB().Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("CREATE TABLE IF NOT EXISTS pages (id INTEGER PRIMARY KEY, body TEXT)"); err != nil {
		t.Fatal(err)
	}
	body := strings.Repeat("x", 3000) // a page each
	for range 1500 {
		if _, err := tx.Exec("INSERT INTO pages (body) VALUES (?)", body); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}

// waitFor polls cond for up to ten seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("after ten seconds: %s", what)
		}
	}
}

// TestCheckpointsAreTheCheckpointers: a commit that takes the log past
// 1,000 pages leaves it whole (no connection checkpoints in its commit,
// wal_autocheckpoint(0)); a write the store reports (Wrote) has the
// checkpointer copy the whole log into the file, checkpointDelay later;
// Close stops it, the last connection's close removes the log, and a
// second Close is harmless.
func TestCheckpointsAreTheCheckpointers(t *testing.T) {
	t.Parallel()
	d, path := openFile(t)
	bigWrite(t, d)
	frames, backfilled := walState(t, path)
	if frames < 1000 || backfilled != 0 {
		t.Fatalf("after a commit of %d pages, %d copied into the file: want them all in the log, none copied", frames, backfilled)
	}
	if n := d.checkpoints.runs.Load(); n != 0 {
		t.Fatalf("%d checkpoints before any write was reported", n)
	}

	d.Wrote()
	// The log is copied before the PRAGMA returns and the count rises:
	// wait for both (seen once on a loaded machine: copied, counted 0).
	waitFor(t, "the checkpointer has copied the log into the file", func() bool {
		frames, backfilled = walState(t, path)
		return backfilled == frames && d.checkpoints.runs.Load() > 0
	})
	if n, failed := d.checkpoints.runs.Load(), d.checkpoints.failed.Load(); n != 1 || failed != 0 {
		t.Errorf("%d checkpoints (%d failed), want 1 (0)", n, failed)
	}

	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-d.checkpoints.done:
	default:
		t.Error("the checkpointer runs on after Close")
	}
	if _, err := os.Stat(path + "-wal"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the log is still there after Close (%v)", err)
	}
	if err := d.Close(); err != nil { // a store may be closed twice
		t.Errorf("a second Close: %v", err)
	}
}

// TestCheckpointerWakesOnceForManyWrites: writes reported together make one
// checkpoint (or two, when reports come in while it takes the first), and
// the checkpointer then goes idle: they did not queue a wake-up each.
func TestCheckpointerWakesOnceForManyWrites(t *testing.T) {
	t.Parallel()
	d := open(t)
	for range 1000 {
		d.Wrote()
	}
	waitFor(t, "a checkpoint", func() bool { return d.checkpoints.runs.Load() > 0 })
	time.Sleep(4 * checkpointDelay)
	settled := d.checkpoints.runs.Load()
	time.Sleep(4 * checkpointDelay)
	if n := d.checkpoints.runs.Load(); n != settled || n > 3 {
		t.Errorf("1,000 writes reported at once: %d checkpoints, then %d; want one or two, then no more", settled, n)
	}
}

// TestMemoryHasNoCheckpointer: ":memory:" has no log, and Wrote does
// nothing there.
func TestMemoryHasNoCheckpointer(t *testing.T) {
	t.Parallel()
	d, err := Open(":memory:", Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	if d.checkpoints != nil {
		t.Error(":memory: has a checkpointer")
	}
	d.Wrote()
}
