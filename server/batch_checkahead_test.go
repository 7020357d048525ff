package server_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage/jobs"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestJobChecksAheadOfWriting: a chunk job of several runs checks its next
// run while it writes one (server/batch/job.go), so that the job alone keeps
// SQLite's one writer busy. The job names 21 chunks of accounts whose owner
// is a user: runs of 10, 10 and 1 chunks, each chunk's check looking up the
// users it names with one query. The first run's transaction is held at its
// first statement until the second run's check has sent such a query;
// a job that checked a run only after writing the one before never would.
func TestJobChecksAheadOfWriting(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			store := storagetest.Open(t, dialect)
			gate := &checkAheadGate{opened: make(chan struct{})}
			store.AddStatementHook(gate)
			a := newAPIWith(t, store, func(c *server.Config) { c.Jobs.NoWorkers = true })
			users := a.do(http.MethodGet, "/admin/api/users?page[size]=1", jsonAPI, "").want(t, 200)
			user, _ := get(users.doc, "data/0/id").(string)
			const records = 2100 // 21 chunks of 100
			items := make([]string, records)
			for i := range items {
				items[i] = fmt.Sprintf(`{"type":"accounts","attributes":{"name":"Ahead %d"},"relationships":{"owner":{"data":{"type":"users","id":%q}}}}`, i, user)
			}
			accepted := a.do(http.MethodPatch, "/admin/api/accounts", jsonAPI, `{"data":[`+strings.Join(items, ",")+`]}`).want(t, 202)
			id, _ := get(accepted.doc, "data/id").(string)
			var op int64
			if _, err := fmt.Sscan(id, &op); err != nil {
				t.Fatalf("operation id %q: %v", id, err)
			}

			gate.arm()
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			if err := a.srv.ProcessChunkJob(ctx, jobs.ChunkJob{Operation: op, Org: 1, Chunk: 1, Count: 21}); err != nil {
				t.Fatalf("the job: %v", err)
			}
			if lookups, ahead := gate.result(); !ahead {
				t.Errorf("the first run's transaction waited in vain for the second run's check (the job looked up users %d times, the first run 10)", lookups)
			} else if lookups != 21 {
				t.Errorf("%d lookups of users, want one per chunk (21): the gate's count rests on it", lookups)
			}
			r := a.do(http.MethodGet, "/admin/api/asyncoperations/"+id, jsonAPI, "").want(t, 200)
			if status, _ := get(r.doc, "data/attributes/status").(string); status != "success" {
				t.Errorf("operation %s: status %q, want success", id, status)
			}
			if n, _ := get(r.doc, "data/attributes/summary/writeCount").(float64); n != records {
				t.Errorf("operation %s wrote %v records, want %d", id, n, records)
			}
		})
	}
}

// checkAheadGate holds the first write transaction of a batch job at its
// first statement (the reservation of the new records' keys) until the
// chunks' lookups of users outnumber the first run's ten, or a deadline
// passes.
type checkAheadGate struct {
	mu      sync.Mutex
	armed   bool
	held    bool // the first transaction reached the gate
	holding bool // and waits there
	lookups int
	ahead   bool // a lookup of the second run came while the gate held
	opened  chan struct{}
}

// firstRunLookups is the first run's lookups of users: one per chunk.
const firstRunLookups = 10

func (g *checkAheadGate) arm() {
	g.mu.Lock()
	g.armed = true
	g.mu.Unlock()
}

func (g *checkAheadGate) result() (lookups int, ahead bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.lookups, g.ahead
}

func (g *checkAheadGate) BeforeStatement(ctx context.Context, query string) context.Context {
	g.mu.Lock()
	if !g.armed {
		g.mu.Unlock()
		return ctx
	}
	switch {
	case isUserLookup(query):
		g.lookups++
		if g.holding && g.lookups > firstRunLookups && !g.ahead {
			g.ahead = true
			close(g.opened)
		}
		g.mu.Unlock()
	case isKeyReservation(query) && !g.held:
		g.held, g.holding = true, g.lookups <= firstRunLookups
		if !g.holding { // the second run's check began before the gate
			g.ahead = true
			g.mu.Unlock()
			break
		}
		g.mu.Unlock()
		select {
		case <-g.opened:
		case <-time.After(20 * time.Second):
		}
		g.mu.Lock()
		g.holding = false
		g.mu.Unlock()
	default:
		g.mu.Unlock()
	}
	return ctx
}

func (g *checkAheadGate) AfterStatement(context.Context, string, error) {}

// isUserLookup tells a chunk check's query of the users its items name.
func isUserLookup(query string) bool {
	return strings.HasPrefix(query, "SELECT") && strings.Contains(query, `FROM "users" WHERE`)
}

// isKeyReservation tells the first statement of a batch transaction that
// creates records: the reservation of their keys (storage.reserveKeys).
func isKeyReservation(query string) bool {
	return strings.Contains(query, "sqlite_sequence") || strings.Contains(query, "pg_get_serial_sequence(")
}
