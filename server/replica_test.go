package server_test

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestReadYourWritesAcrossProcesses: two processes on one PostgreSQL primary
// with a real streaming replica whose replay is paused. A client that
// creates a record through one process reads it at once through the other
// (its fence keeps its reads on the primary); another client's reads go to
// the replica. Once replay resumes, the replica serves both.
func TestReadYourWritesAcrossProcesses(t *testing.T) {
	t.Parallel()
	primary := storagetest.NewCluster(t)
	replica := primary.NewReplica(t)
	ctx := context.Background()
	open := func() *storage.Store {
		s := primary.Store(t)
		err := s.AttachReplica(ctx, replica.URL(), storage.Options{}, storage.ReplicaOptions{MaxLag: time.Minute,
			Every: 20 * time.Millisecond, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	first, second := open(), open()
	a := newAPI(t, first)
	b := startAPI(t, second, nil)
	for _, s := range []*storage.Store{first, second} {
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
			if ok, _, _ := s.ReplicaStatus(); ok {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("the replica never served reads")
			}
		}
	}
	b.token("admin") // before the pause: the token endpoint reads the primary anyway
	b.caller("viewer").token("viewer")

	replica.Exec(t, "SELECT pg_wal_replay_pause()")
	created := a.do(http.MethodPost, "/admin/api/accounts", jsonAPI,
		`{"data":{"type":"accounts","attributes":{"name":"Written on one process"}}}`).want(t, http.StatusCreated)
	id := created.value("data/id").(string)
	readsBefore := second.ReplicaReads()
	for _, h := range []map[string]string{jsonAPI, plain} {
		b.do(http.MethodGet, "/admin/api/accounts/"+id, h, "").want(t, http.StatusOK)
	}
	if second.ReplicaReads() != readsBefore {
		t.Error("the writer's reads went to a replica that has not replayed its write")
	}
	viewer := b.caller("viewer")
	viewer.do(http.MethodGet, "/admin/api/accounts/"+id, jsonAPI, "").want(t, http.StatusNotFound)
	if second.ReplicaReads() == readsBefore {
		t.Error("another client's read did not go to the replica")
	}
	// What must see the primary stays there: the change-events feed.
	readsBefore = second.ReplicaReads()
	viewer.caller("admin").do(http.MethodGet, "/admin/api/events?page[size]=1", jsonAPI, "").want(t, http.StatusOK)
	if second.ReplicaReads() != readsBefore {
		t.Error("the change-events feed was read from the replica")
	}

	res, err := http.Get(b.base + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	scrape, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, series := range []string{"entityapi_db_replica_usable 1", "entityapi_db_replica_lag_seconds ", "entityapi_db_replica_reads_total "} {
		if !strings.Contains(string(scrape), "\n"+series) {
			t.Errorf("/metrics has no %q", series)
		}
	}

	replica.Exec(t, "SELECT pg_wal_replay_resume()")
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		r := viewer.do(http.MethodGet, "/admin/api/accounts/"+id, jsonAPI, "")
		if r.status == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the resumed replica never showed the account: %d %s", r.status, r.body)
		}
	}
}
