package sqlite

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// shmLocks counts the POSIX record locks this process holds on the -shm
// file beside path, as Linux lists them in the fdinfo of each descriptor
// of the file ("lock:\t1: POSIX ADVISORY READ <pid> <dev>:<inode> <start>
// <end>"): a lock shows under the descriptor it was taken through, and each
// descriptor's list is read whole under the file's lock list's lock.
// /proc/locks, read before, lists every process's locks a page per read
// and starts each read at the index the last ended: when a lock listed
// before ours went away between two reads (any SQLite test of any package
// running beside), ours was skipped, and this test failed in CI.
func shmLocks(t *testing.T, path string) int {
	t.Helper()
	want, err := os.Stat(path + "-shm")
	if err != nil {
		t.Fatal(err)
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fd := range fds {
		info, err := os.Stat("/proc/self/fd/" + fd.Name())
		if err != nil || !os.SameFile(info, want) {
			continue // closed since the listing, or another file
		}
		raw, err := os.ReadFile("/proc/self/fdinfo/" + fd.Name())
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(raw), "\n") {
			if f := strings.Fields(line); len(f) >= 3 && f[0] == "lock:" && f[2] == "POSIX" {
				n++
			}
		}
	}
	return n
}

// TestCommitMarkKeepsSQLitesLocks: mapping the wal-index header leaves the
// locks SQLite holds on the -shm file in place, and so does a failed
// mapping; Close lets them go. Closing a descriptor of the file, as the
// mapping once did at once, drops every lock the process holds on it; the
// next connection of another process then reset the -shm under this one.
func TestCommitMarkKeepsSQLitesLocks(t *testing.T) {
	t.Parallel()
	d, path := openFile(t)
	if _, err := d.DB().Exec("CREATE TABLE t (a INTEGER)"); err != nil {
		t.Fatal(err)
	}
	before := shmLocks(t, path)
	if before == 0 {
		t.Fatal("SQLite holds no lock on the -shm file of an open database")
	}
	if _, ok := d.CommitMark(); !ok {
		t.Fatal("no commit mark on a file in WAL mode")
	}
	if got := shmLocks(t, path); got != before {
		t.Errorf("%d locks on the -shm file after the commit mark opened, %d before", got, before)
	}
	if _, err := d.DB().Exec("INSERT INTO t (a) VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path + "-shm"); err == nil {
		if got := shmLocks(t, path); got != 0 {
			t.Errorf("%d locks on the -shm file after Close", got)
		}
	}
}

// TestFailedMappingKeepsTheDescriptor: a -shm file too short to map is
// still returned open, for the caller to close last.
func TestFailedMappingKeepsTheDescriptor(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "short-shm")
	if err := os.WriteFile(path, []byte("abc"), 0o600); err != nil {
		t.Fatal(err)
	}
	hdr, shm, err := mapHeader(path)
	if err == nil || hdr != nil {
		t.Fatalf("mapped a 3-byte file: %v", err)
	}
	if shm == nil {
		t.Fatal("the descriptor was closed with the failure")
	}
	if err := shm.Close(); err != nil {
		t.Errorf("the descriptor was not open: %v", err)
	}
}
