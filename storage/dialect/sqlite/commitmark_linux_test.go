package sqlite

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// shmLocks counts the POSIX record locks this process holds on the -shm
// file beside path, as Linux lists them in /proc/locks ("1: POSIX ADVISORY
// READ <pid> <major>:<minor>:<inode> <start> <end>").
func shmLocks(t *testing.T, path string) int {
	t.Helper()
	info, err := os.Stat(path + "-shm")
	if err != nil {
		t.Fatal(err)
	}
	inode := ":" + strconv.FormatUint(info.Sys().(*syscall.Stat_t).Ino, 10)
	raw, err := os.ReadFile("/proc/locks")
	if err != nil {
		t.Fatal(err)
	}
	pid := strconv.Itoa(os.Getpid())
	n := 0
	for _, line := range strings.Split(string(raw), "\n") {
		f := strings.Fields(line)
		if len(f) >= 6 && f[1] == "POSIX" && f[4] == pid && strings.HasSuffix(f[5], inode) {
			n++
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
