package storage_test

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestReadReplica runs a store on a PostgreSQL primary of the test's own
// with a real streaming replica (pg_basebackup): reads go to the replica
// while it keeps up; a principal's reads stay on the primary until the
// replica has replayed its last write, while another principal's may read
// the replica; a replica lagging more than MaxLag (its replay paused), or
// down, is bypassed without an error, and serves again once it has caught
// up or is back.
func TestReadReplica(t *testing.T) {
	t.Parallel()
	primary := storagetest.NewCluster(t)
	replica := primary.NewReplica(t)
	ctx := context.Background()
	s := primary.Store(t)
	const maxLag = time.Second
	err := s.AttachReplica(ctx, replica.URL(), storage.Options{},
		storage.ReplicaOptions{MaxLag: maxLag, Every: 20 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	accounts := storagetest.Table(t, s, "accounts")
	writer := storage.WithPrincipal(ctx, "backoffice\x1fwriter\x1f1")
	reader := storage.WithPrincipal(ctx, "backoffice\x1freader\x1f2")
	await := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				usable, lag, reason := s.ReplicaStatus()
				t.Fatalf("waited a minute for %s (replica usable %v, lag %s, %s)", what, usable, lag, reason)
			}
		}
	}
	usable := func() bool { ok, _, _ := s.ReplicaStatus(); return ok }
	onReplica := func(ctx context.Context) bool { return s.ReadConn(ctx) != s.Conn }
	create := func(ctx context.Context, name string) {
		t.Helper()
		err := s.Tx(ctx, func(c *storage.Conn) error {
			_, err := c.InsertMany(ctx, accounts, 1, []storage.Row{{"name": name}})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	sees := func(ctx context.Context, name string) bool {
		t.Helper()
		n, err := s.ReadConn(ctx).Count(ctx, storage.Query{Table: accounts, Org: 1,
			Where: []storage.Cond{{Column: "name", Op: storage.Eq, Values: []any{name}}}})
		if err != nil {
			t.Fatal(err)
		}
		return n == 1
	}

	await("the replica to serve reads", usable)
	if !onReplica(reader) || !onReplica(ctx) {
		t.Fatal("a fresh replica serves no reads")
	}
	before := s.ReplicaReads()
	create(writer, "seen by its writer")
	await("the writer's fence to be replayed", func() bool { return onReplica(writer) })
	if !sees(writer, "seen by its writer") || s.ReplicaReads() <= before {
		t.Error("the replica, once it has replayed the write, does not serve it to its writer")
	}

	// Replay paused: the writer's next write keeps its reads on the
	// primary, where it sees it; another principal may read the replica,
	// where the write is not yet.
	replica.Exec(t, "SELECT pg_wal_replay_pause()")
	create(writer, "written while replay is paused")
	if onReplica(writer) || !sees(writer, "written while replay is paused") {
		t.Error("the writer's read after its write went to a replica that has not replayed it")
	}
	if usable() && onReplica(reader) && sees(reader, "written while replay is paused") {
		t.Error("the paused replica shows a write it has not replayed: the reads did not reach it")
	}
	// Past MaxLag the replica is bypassed for everyone, without an error.
	await("the paused replica to be bypassed", func() bool { return !usable() })
	if _, _, reason := s.ReplicaStatus(); !strings.Contains(reason, "lags") {
		t.Errorf("bypassed for %q, want its lag", reason)
	}
	if onReplica(reader) || !sees(reader, "written while replay is paused") {
		t.Error("a replica lagging past MaxLag still serves reads")
	}
	replica.Exec(t, "SELECT pg_wal_replay_resume()")
	await("the resumed replica to serve again", usable)
	await("the writer's fence to be replayed", func() bool { return onReplica(writer) })
	if !sees(writer, "written while replay is paused") || !sees(reader, "written while replay is paused") {
		t.Error("the caught-up replica does not show the write")
	}

	// Down: bypassed without an error; back: serves again.
	if err := replica.Stop(); err != nil {
		t.Fatal(err)
	}
	await("the stopped replica to be bypassed", func() bool { return !usable() })
	if onReplica(reader) || !sees(reader, "seen by its writer") {
		t.Error("reads failed or went to a replica that is down")
	}
	if err := replica.Start(); err != nil {
		t.Fatal(err)
	}
	await("the restarted replica to serve again", usable)
}

// TestNoReplicaOnSQLite: SQLite has no replicas; without one every read
// runs on the store itself and writes record no fences.
func TestNoReplicaOnSQLite(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		if s.ReadConn(storage.WithPrincipal(ctx, "p")) != s.Conn || s.HasReplica() {
			t.Error("a store without a replica lends reads elsewhere")
		}
		if err := s.NoteWrite(storage.WithPrincipal(ctx, "p")); err != nil {
			t.Error(err)
		}
	})
	s := storagetest.Open(t, "sqlite")
	err := s.AttachReplica(ctx, "sqlite:"+t.TempDir()+"/r.db", storage.Options{}, storage.ReplicaOptions{})
	if err == nil || !strings.Contains(err.Error(), "read replicas need PostgreSQL") {
		t.Errorf("AttachReplica on SQLite = %v, want it refused", err)
	}
}
