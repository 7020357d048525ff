package storagetest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/entityapi/entityapi/storage"
)

// Cluster is a PostgreSQL server of the test's own: its data directory in a
// temporary directory, on a free port, removed when the test ends. Tests
// that stop or restart a server (outages) use one, so that the server every
// other test shares stays up.
type Cluster struct {
	dir, bin string
	port     int
	runAs    string // the user that owns and runs it ("" : this process's)
}

// clusterBin is where Debian puts PostgreSQL 15's server programs.
var clusterBin = []string{"/usr/lib/postgresql/15/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/17/bin"}

// NewCluster initializes and starts a private server (trust authentication,
// user postgres). Without PostgreSQL's server programs the test is skipped
// on a developer's machine and fails in CI; with -short it is skipped (a
// server of its own takes seconds to start).
func NewCluster(t testing.TB) *Cluster {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a PostgreSQL server of its own: not with -short")
	}
	c := &Cluster{}
	for _, b := range clusterBin {
		if _, err := os.Stat(filepath.Join(b, "initdb")); err == nil {
			c.bin = b
			break
		}
	}
	if c.bin == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI needs PostgreSQL's server programs (initdb, pg_ctl) for the outage tests")
		}
		t.Skip("no PostgreSQL server programs (initdb) here")
	}
	if os.Geteuid() == 0 {
		// initdb and postgres refuse to run as root: the cluster belongs
		// to the postgres user, as Debian's own do.
		if _, err := user.Lookup("postgres"); err != nil {
			t.Fatalf("running as root, and no postgres user to run the server as: %v", err)
		}
		c.runAs = "postgres"
	}
	dir, err := os.MkdirTemp("", "storagetest-cluster-")
	if err != nil {
		t.Fatal(err)
	}
	c.dir = dir
	t.Cleanup(func() {
		_ = c.run("pg_ctl", "-D", c.data(), "-m", "immediate", "-w", "stop")
		_ = os.RemoveAll(dir)
	})
	if c.runAs != "" {
		if out, err := exec.Command("chown", "-R", c.runAs, dir).CombinedOutput(); err != nil {
			t.Fatalf("chown %s: %v: %s", dir, err, out)
		}
	}
	if err := c.run("initdb", "-D", c.data(), "-U", "postgres", "--auth=trust", "--no-sync", "-E", "UTF8", "--locale=C"); err != nil {
		t.Fatal(err)
	}
	if c.port, err = freePort(); err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	return c
}

// NewReplica makes a streaming replica of c (pg_basebackup of c's data,
// replication settings written by -R), starts it on a free port and
// returns it; it is removed when the test ends, before c.
func (c *Cluster) NewReplica(t testing.TB) *Cluster {
	t.Helper()
	dir, err := os.MkdirTemp("", "storagetest-replica-")
	if err != nil {
		t.Fatal(err)
	}
	r := &Cluster{dir: dir, bin: c.bin, runAs: c.runAs}
	t.Cleanup(func() {
		_ = r.run("pg_ctl", "-D", r.data(), "-m", "immediate", "-w", "stop")
		_ = os.RemoveAll(dir)
	})
	if r.runAs != "" {
		if out, err := exec.Command("chown", "-R", r.runAs, dir).CombinedOutput(); err != nil {
			t.Fatalf("chown %s: %v: %s", dir, err, out)
		}
	}
	if err := r.run("pg_basebackup", "-D", r.data(), "-h", "127.0.0.1", "-p", strconv.Itoa(c.port), "-U", "postgres",
		"-R", "-X", "stream", "--no-sync"); err != nil {
		t.Fatal(err)
	}
	if r.port, err = freePort(); err != nil {
		t.Fatal(err)
	}
	if err := r.Start(); err != nil {
		t.Fatal(err)
	}
	return r
}

// Exec runs one statement on the cluster's database postgres, such as
// "SELECT pg_wal_replay_pause()" on a replica.
func (c *Cluster) Exec(t testing.TB, stmt string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, c.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, stmt); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

// Store opens and migrates a store on the cluster's database postgres, as
// a process would; it is closed when the test ends.
func (c *Cluster) Store(t testing.TB) *storage.Store {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), setupTimeout)
	defer cancel()
	s, err := openMigrated(ctx, c.URL(), storage.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// data is the cluster's data directory.
func (c *Cluster) data() string { return filepath.Join(c.dir, "data") }

// URL is the cluster's database postgres, for user postgres.
func (c *Cluster) URL() string {
	return "postgres://postgres@127.0.0.1:" + strconv.Itoa(c.port) + "/postgres?sslmode=disable"
}

// Start starts the server and waits until it accepts connections.
func (c *Cluster) Start() error {
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=100", c.port, c.dir)
	return c.run("pg_ctl", "-D", c.data(), "-l", filepath.Join(c.dir, "log"), "-o", opts, "-w", "-t", "60", "start")
}

// Stop stops the server the fast way: its sessions are ended and their
// transactions rolled back, as a restart by an operator does.
func (c *Cluster) Stop() error {
	return c.run("pg_ctl", "-D", c.data(), "-m", "fast", "-w", "-t", "60", "stop")
}

// run runs one of the server's programs, as the cluster's owner.
func (c *Cluster) run(name string, args ...string) error {
	path := filepath.Join(c.bin, name)
	var cmd *exec.Cmd
	if c.runAs != "" {
		cmd = exec.Command("runuser", append([]string{"-u", c.runAs, "--", path}, args...)...)
	} else {
		cmd = exec.Command(path, args...)
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("%s %v: %w: %s", name, args, err, out.String())
		}
		return nil
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		return fmt.Errorf("%s %v: no end after 2 minutes: %s", name, args, out.String())
	}
}

// freePort asks the kernel for a port free on the loopback address.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
