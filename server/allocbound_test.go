package server_test

// Allocation bounds of single requests (issue 16): every main single-request
// target, answered by the production handler as the benchmarks in
// bench_test.go answer it, must stay within a bound about 15% above what it
// allocated when the bound was set. A change that makes a request allocate
// more fails `make test` here instead of going unnoticed until the next
// benchmark run.
//
// A later change may raise a bound on purpose (a new check on every request,
// a storage change that trades allocations for fewer queries): it says so,
// and why, in its commit message, with the new figure.

import (
	"net/http"
	"runtime"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage/storagetest"
)

// allocBound is one request and the most allocations it may cost, per
// database.
type allocBound struct {
	name   string
	seeded bool // on seedCRM's records (benchSeededServer)
	// kept: answered from the kept answers (docs/answers.md); the other
	// requests go to the engine, on servers that keep none, since the
	// answer cache's lease on PostgreSQL runs beside the requests and
	// AllocsPerRun would count its statements.
	kept bool
	// request returns the call to measure on a handler; it answers once
	// before it is measured.
	request func(tb testing.TB, h http.Handler) func()
	max     map[string]float64 // dialect -> allocations per request
}

// getting is a request function for one GET.
func getting(target string) func(testing.TB, http.Handler) func() {
	return func(tb testing.TB, h http.Handler) func() {
		return func() { serve(tb, h, target, jsonAPIType) }
	}
}

var allocBounds = []allocBound{
	{name: "GET one country", request: getting(benchOne),
		max: map[string]float64{"sqlite": 230, "postgres": 210}},
	{name: "GET a list of 10 countries", request: getting(benchList),
		max: map[string]float64{"sqlite": 489, "postgres": 423}},
	// 201 and 186 until a list's resource objects came from a pooled arena
	// (196 and 180) and a request whose parameters passed was not checked
	// again (190 and 174; the filtered contacts 591 and 429 before both).
	{name: "GET a list of 10 regions", request: getting(benchRegions),
		max: map[string]float64{"sqlite": 218, "postgres": 200}},
	{name: "filtered and sorted contacts", seeded: true, request: getting(benchFiltered),
		max: map[string]float64{"sqlite": 661, "postgres": 475}},
	{name: "contacts with accounts and owner", seeded: true, request: getting(benchContactsInclude),
		max: map[string]float64{"sqlite": 2961, "postgres": 2170}},
	// The writes record their change events (issue 19) in their own
	// statement (SQLite: its note trigger; PostgreSQL: a WITH): about 18
	// more on SQLite (286 and 298 when raised), 30 on PostgreSQL (268, 283).
	{name: "POST an account", request: accountCreator,
		max: map[string]float64{"sqlite": 315, "postgres": 300}},
	{name: "PATCH an account", request: accountPatcher,
		max: map[string]float64{"sqlite": 330, "postgres": 315}},
	// The kept answers (issue 34): 43 and 42 on either database when the
	// bound was set. Last: on PostgreSQL their server's lease cycles for a
	// few seconds after them, beside whatever is measured then.
	{name: "GET one country, kept", kept: true, request: getting(benchOne),
		max: map[string]float64{"sqlite": 50, "postgres": 50}},
	{name: "GET a list of 10 regions, kept", kept: true, request: getting(benchRegions),
		max: map[string]float64{"sqlite": 50, "postgres": 50}},
}

// TestAllocationsPerRequest measures each bound's request with
// testing.AllocsPerRun through the real handler. It does not run in parallel:
// AllocsPerRun counts every goroutine's allocations (so it keeps the least
// of three measures).
func TestAllocationsPerRequest(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	if testing.Short() {
		t.Skip("measures requests on seeded databases")
	}
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			// Both servers live as long as the dialect's test, which
			// closes them and removes their databases.
			var plain, seeded, kept http.Handler
			handler := func(tc allocBound) http.Handler {
				switch {
				case tc.kept:
					if kept == nil {
						kept = benchServer(t, dialect)
					}
					return kept
				case tc.seeded:
					if seeded == nil {
						store := storagetest.Open(t, dialect)
						seedCRM(t, store, benchUsers, benchAccounts, benchContacts)
						seeded = benchServerWith(t, store, -1)
					}
					return seeded
				default:
					if plain == nil {
						plain = benchServerWith(t, storagetest.Open(t, dialect), -1)
					}
					return plain
				}
			}
			for _, tc := range allocBounds {
				h := handler(tc)
				t.Run(tc.name, func(t *testing.T) {
					do := tc.request(t, h)
					got := requestAllocs(do)
					if tc.kept {
						got = keptAllocs(do, got, tc.max[dialect])
					}
					t.Logf("%.0f allocations per request (bound %.0f)", got, tc.max[dialect])
					if got > tc.max[dialect] {
						t.Errorf("%s allocates %.0f times per request, more than its bound %.0f", tc.name, got, tc.max[dialect])
					}
				})
			}
		})
	}
}

// keptAllocs is the allocations of a kept read in its steady state. On
// PostgreSQL the first kept read starts the server's reference lease
// (storage/referencelease.go), and until the lease holds, each read waits
// for a reading of the generation of its own (about 25 allocations more):
// on a loaded machine the lease took longer than the measures (CI saw 68
// against the bound of 50 for every request). So a first measure over the
// bound is taken again, for up to ten seconds, while the lease comes up;
// one that stays over it still fails.
func keptAllocs(do func(), got, bound float64) float64 {
	for deadline := time.Now().Add(10 * time.Second); got > bound && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
		got = min(got, requestAllocs(do))
	}
	return got
}

// requestAllocs is the allocations one call of do makes (leastPerCall).
func requestAllocs(do func()) float64 {
	return leastPerCall(do, func() float64 { return testing.AllocsPerRun(50, do) })
}

// leastPerCall calls do once to warm caches, then returns the least of three
// measures of it. The servers' background work (the job queue's polls, the
// webhook dispatcher, a span batcher) allocates too and only ever adds to a
// measure: the least of three is the request's own.
func leastPerCall(do func(), measure func() float64) float64 {
	do()
	least := measure()
	for range 2 {
		least = min(least, measure())
	}
	return least
}

// TestListBytesPerRequest bounds the bytes a GET of ten regions allocates
// (the response recorder's copy of the answer included): every byte brings
// the next garbage collection closer. The list's resource objects come from
// a pooled arena (server/engine/arena.go); allocated anew, they were about
// 3 KiB more (16.5 KiB against 13.3 KiB on SQLite when the bound was set).
func TestListBytesPerRequest(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates on its own")
	}
	if testing.Short() {
		t.Skip("measures requests")
	}
	bound := map[string]uint64{"sqlite": 15 << 10, "postgres": 14 << 10}
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			got := requestBytes(getting(benchRegions)(t, benchServer(t, dialect)))
			t.Logf("%d bytes per request (bound %d)", got, bound[dialect])
			if got > bound[dialect] {
				t.Errorf("a GET of ten regions allocates %d bytes, more than its bound %d", got, bound[dialect])
			}
		})
	}
}

// requestBytes is the bytes one call of do allocates, on average over 50
// calls (leastPerCall).
func requestBytes(do func()) uint64 {
	return uint64(leastPerCall(do, func() float64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for range 50 {
			do()
		}
		runtime.ReadMemStats(&after)
		return float64(after.TotalAlloc-before.TotalAlloc) / 50
	}))
}
