package server_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// twoProcesses starts two servers on one database, as two processes behind
// a load balancer, with the rate limit rate per second and burst, sharing
// only when the test says (sharedNow), on the test's clock.
func twoProcesses(t *testing.T, dialect string, rate float64, burst int) ([]*api, *testClock) {
	t.Helper()
	one, two := storagetest.OpenTwo(t, dialect)
	limit := func(c *server.Config) {
		c.RateLimit = server.RateLimitConfig{PerSecond: rate, Burst: burst, ShareEvery: time.Hour}
	}
	servers := []*api{newAPIWith(t, one, limit), startAPI(t, two, func(c *server.Config) { limit(c); c.Jobs.NoWorkers = true })}
	clock := newTestClock()
	for _, a := range servers {
		a.srv.SetRateClock(clock.Now)
	}
	return servers, clock
}

// sharedNow runs one share on each server, as their tickers would, and
// then one more on each but the last, so that every server has read what
// every other pushed (a server reads only pushes made before its share).
func sharedNow(t *testing.T, clock *testClock, servers ...*api) {
	t.Helper()
	for _, a := range append(servers, servers[:len(servers)-1]...) {
		if err := a.srv.ShareRateLimit(context.Background(), clock.Now()); err != nil {
			t.Fatalf("share: %v", err)
		}
	}
}

// allowed sends n GETs of one client, alternating between servers from the
// first, sharing every `every` requests (0: never), and counts the 200s;
// anything but 200 and 429 fails the test.
func allowed(t *testing.T, clock *testClock, servers []*api, as string, n, every int) int {
	t.Helper()
	ok := 0
	for i := range n {
		switch r := servers[i%len(servers)].caller(as).do(http.MethodGet, "/admin/api/countries/US", jsonAPI, ""); r.status {
		case http.StatusOK:
			ok++
		case http.StatusTooManyRequests:
		default:
			t.Fatalf("request %d: status %d: %s", i, r.status, r.body)
		}
		if every > 0 && (i+1)%every == 0 {
			sharedNow(t, clock, servers...)
		}
	}
	return ok
}

// TestRateLimitSharedByProcesses: --rate-limit holds for the deployment
// (docs/decisions.md §14). Two servers on one database share each client's
// bucket; the rate is so low (one request back per 1000 s) that counts
// decide, never the time the test takes.
//
//   - A client alternating between them gets its burst, never less, and at
//     most the tolerance more: what the other process allowed it between two
//     shares, here 4 (per process alone it got twice the burst).
//   - A client calling one of them only (an uneven balancer, or a process
//     that stopped) gets its whole burst, not a share of it.
//   - A client that moves to the other process after a share finds its
//     bucket there as it left it, and the time it waits is the same.
//   - Without shares (the database out of reach) each process limits on its
//     own: twice the burst, never fewer than one process allows.
func TestRateLimitSharedByProcesses(t *testing.T) {
	const burst, every = 10, 4
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			servers, clock := twoProcesses(t, dialect, 0.001, burst)

			if got := allowed(t, clock, servers, "admin", 40, every); got < burst || got > burst+every {
				t.Errorf("alternating: %d of 40 allowed, want %d to %d", got, burst, burst+every)
			}
			if got := allowed(t, clock, servers[1:], "viewer", 20, every); got != burst {
				t.Errorf("one process only: %d of 20 allowed, want the whole burst %d", got, burst)
			}
			if got := allowed(t, clock, servers, "manager", 2*burst+5, 0); got != 2*burst {
				t.Errorf("without shares: %d allowed, want each process's burst, %d", got, 2*burst)
			}

			storefront := func(i int) *result {
				return servers[i].caller("storefront").do(http.MethodGet, "/api/countries/US", plain, "")
			}
			for range burst {
				storefront(0).want(t, http.StatusOK)
			}
			r := storefront(0).want(t, http.StatusTooManyRequests)
			sharedNow(t, clock, servers...)
			moved := storefront(1).want(t, http.StatusTooManyRequests)
			if r.header.Get("Retry-After") != moved.header.Get("Retry-After") {
				t.Errorf("Retry-After %q on the other process, want %q", moved.header.Get("Retry-After"), r.header.Get("Retry-After"))
			}
		})
	}
}

// TestRateLimitSharedRefills: a bucket emptied on two processes comes back
// at the rate of one, on the test's clock, and when one process stops the
// other gives the client the whole rate.
func TestRateLimitSharedRefills(t *testing.T) {
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			servers, clock := twoProcesses(t, dialect, 1, 2) // a request back each second, two at once
			get := func(i int) *result {
				return servers[i].do(http.MethodGet, "/admin/api/countries/US", jsonAPI, "")
			}
			get(0).want(t, http.StatusOK)
			get(1).want(t, http.StatusOK)
			sharedNow(t, clock, servers...)
			for i := range 2 {
				r := get(i).want(t, http.StatusTooManyRequests)
				if s, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || s != 1 {
					t.Errorf("process %d: Retry-After %q, want 1", i, r.header.Get("Retry-After"))
				}
			}
			clock.Advance(time.Second)
			get(1).want(t, http.StatusOK)
			sharedNow(t, clock, servers...)
			get(0).want(t, http.StatusTooManyRequests) // the second's token went to the other process

			servers[1].srv.Close()
			clock.Advance(2 * time.Second)
			sharedNow(t, clock, servers[0])
			get(0).want(t, http.StatusOK)
			get(0).want(t, http.StatusOK)
			get(0).want(t, http.StatusTooManyRequests)
		})
	}
}

// TestRateLimitCostsNoStatement: with the limit on, GET one sends no more
// statements than without it (the buckets are in memory; shares run beside
// the requests, not in them), and none of the rate limit's table.
func TestRateLimitCostsNoStatement(t *testing.T) {
	const n = 20
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			counted := func(limit server.RateLimitConfig) int64 {
				// No batch workers: their housekeeping, which a loaded machine
				// can bring into either window, would be counted too. No kept
				// answers: their readings of the generation come when the
				// reference lease lets go, at times of its own.
				a := newAPIWith(t, storagetest.Open(t, dialect), func(c *server.Config) {
					c.RateLimit, c.Jobs.NoWorkers, c.AnswerCache = limit, true, -1
				})
				q := &queryCounter{}
				a.store.AddStatementHook(q)
				a.do(http.MethodGet, "/admin/api/accounts?page[size]=1", jsonAPI, "").want(t, http.StatusOK) // caches warm
				before := a.store.Statements()
				sent := q.during(func() {
					for range n {
						a.do(http.MethodGet, "/admin/api/countries/US", jsonAPI, "").want(t, http.StatusOK)
					}
				})
				for _, s := range sent {
					if strings.Contains(s, "rate_limit") {
						t.Errorf("a request sent %s", s)
					}
				}
				return a.store.Statements() - before
			}
			without := counted(server.RateLimitConfig{})
			with := counted(server.RateLimitConfig{PerSecond: 1000, Burst: 1000, ShareEvery: time.Hour})
			if with != without {
				t.Errorf("%d GETs sent %d statements with the limit on, %d without", n, with, without)
			}
		})
	}
}
