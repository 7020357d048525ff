package server

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/server/identity"
	"github.com/entityapi/entityapi/storage/authstore"
)

// TestLimiter drives the buckets with a made-up clock, so that it counts
// requests and never measures time. A step of key push pushes the buckets,
// as a share with the other processes does.
func TestLimiter(t *testing.T) {
	t.Parallel()
	const push = "(push)"
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	type step struct {
		key  string
		at   time.Duration // after t0
		ok   bool
		wait time.Duration // when refused
	}
	cases := []struct {
		name  string
		cfg   RateLimitConfig
		max   int
		steps []step
		size  int // buckets kept at the end
	}{
		{name: "burst then refused until a token is back", cfg: RateLimitConfig{PerSecond: 1, Burst: 2}, max: 10, steps: []step{
			{"a", 0, true, 0}, {"a", 0, true, 0}, {"a", 0, false, time.Second},
			{"a", 500 * time.Millisecond, false, 500 * time.Millisecond}, {"a", time.Second, true, 0},
		}, size: 1},
		{name: "clients apart", cfg: RateLimitConfig{PerSecond: 0.001, Burst: 1}, max: 10, steps: []step{
			{"a", 0, true, 0}, {"a", 0, false, 1000 * time.Second}, {"b", 0, true, 0},
		}, size: 2},
		{name: "default burst is twice the rate", cfg: RateLimitConfig{PerSecond: 1.5}, max: 10, steps: []step{
			{"a", 0, true, 0}, {"a", 0, true, 0}, {"a", 0, true, 0}, {"a", 0, false, time.Second * 2 / 3},
		}, size: 1},
		{name: "an absurd rate still allows", cfg: RateLimitConfig{PerSecond: 1e300}, max: 10, steps: []step{
			{"a", 0, true, 0}, {"a", 0, true, 0},
		}, size: 1},
		{name: "a refused request takes no token", cfg: RateLimitConfig{PerSecond: 1, Burst: 1}, max: 10, steps: []step{
			{"a", 0, true, 0}, {"a", 0, false, time.Second}, {"a", 0, false, time.Second}, {"a", time.Second, true, 0},
		}, size: 1},
		{name: "a full bucket is forgotten", cfg: RateLimitConfig{PerSecond: 1, Burst: 2}, max: 10, steps: []step{
			{"a", 0, true, 0}, {"b", time.Second, true, 0}, {push, 0, false, 0}, {"c", 1500 * time.Millisecond, true, 0},
		}, size: 2}, // a is full again at 1 s, b not yet at 1.5 s
		{name: "a full bucket is kept until pushed", cfg: RateLimitConfig{PerSecond: 1, Burst: 2}, max: 10, steps: []step{
			{"a", 0, true, 0}, {"b", time.Second, true, 0}, {"c", 1500 * time.Millisecond, true, 0},
		}, size: 3},
		{name: "bounded: the least recently seen goes first", cfg: RateLimitConfig{PerSecond: 0.001, Burst: 1}, max: 2, steps: []step{
			{"a", 0, true, 0}, {"b", 0, true, 0}, {"a", 0, false, 1000 * time.Second}, {"c", 0, true, 0},
			{"a", 0, false, 1000 * time.Second}, {"b", 0, true, 0},
		}, size: 2},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := newLimiter(tc.cfg, tc.max)
			for i, s := range tc.steps {
				if s.key == push {
					l.takePushes()
					continue
				}
				ok, wait := l.allow(s.key, t0.Add(s.at))
				if ok != s.ok || wait != s.wait {
					t.Fatalf("step %d (%s at %v): allowed %v, wait %v; want %v, %v", i, s.key, s.at, ok, wait, s.ok, s.wait)
				}
			}
			if got := l.size(); got != tc.size {
				t.Errorf("%d buckets kept, want %d", got, tc.size)
			}
		})
	}
}

// TestLimiterMemory: a flood of distinct clients keeps at most max buckets,
// and what waits for the next push stays bounded too.
func TestLimiterMemory(t *testing.T) {
	l := newLimiter(RateLimitConfig{PerSecond: 1}, 100)
	now := time.Now()
	for i := range 10_000 {
		l.allow("client "+strconv.Itoa(i), now)
	}
	if got := l.size(); got != 100 {
		t.Errorf("%d buckets, want 100", got)
	}
	if len(l.dirty) > 200 || len(l.unpushed) > 100 {
		t.Errorf("%d buckets and %d forgotten ones wait for the push, want at most 200 and 100", len(l.dirty), len(l.unpushed))
	}
}

// TestLimiterPushes: what each bucket allowed since the last push is pushed
// once, as time (requests times the time one takes to come back), even when
// the bucket was forgotten before the push (here pushed out by another
// client), so that the other processes learn of every request allowed.
func TestLimiterPushes(t *testing.T) {
	t.Parallel()
	l := newLimiter(RateLimitConfig{PerSecond: 1, Burst: 5}, 1)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, key := range []string{"a", "a", "b", "b", "b"} {
		if ok, _ := l.allow(key, now); !ok {
			t.Fatalf("%s refused", key)
		}
	}
	pushed := map[int64]int{}
	for _, p := range l.takePushes() {
		pushed[p.Pushed]++
	}
	if pushed[2*int64(time.Second)] != 1 || pushed[3*int64(time.Second)] != 1 || len(pushed) != 2 {
		t.Errorf("pushed %v, want one bucket of 2 s (a, forgotten) and one of 3 s (b)", pushed)
	}
	if again := l.takePushes(); len(again) != 0 {
		t.Errorf("pushed %v again", again)
	}
}

// TestLimiterOff: no rate, no limiter.
func TestLimiterOff(t *testing.T) {
	t.Parallel()
	if l := newLimiter(RateLimitConfig{}, 10); l != nil {
		t.Errorf("limiter %+v without a rate", l)
	}
}

// TestClientKey: a token's client has one bucket wherever it calls from; a
// guest has its address's (its /64 for IPv6). Guests once shared one bucket:
// their principal is empty, not missing.
func TestClientKey(t *testing.T) {
	t.Parallel()
	gin.SetMode(gin.ReleaseMode) // as server.New does: no debug banner from the test contexts
	key := func(remote string, p *identity.Principal) string {
		c, _ := gin.CreateTestContext(httptest.NewRecorder())
		c.Request = httptest.NewRequest(http.MethodGet, "/api/countries", nil)
		c.Request.RemoteAddr = remote
		if p != nil {
			c.Set(requestKey, &engine.Request{Principal: p})
		}
		return clientKey(c)
	}
	guest := &identity.Principal{App: authstore.AppStorefront}
	client := &identity.Principal{App: authstore.AppStorefront, ClientID: "shop"}
	for _, tc := range []struct {
		name string
		got  string
		want string
	}{
		{"client", key("192.0.2.1:1000", client), "client shop"},
		{"client elsewhere", key("192.0.2.9:1000", client), "client shop"},
		{"guest", key("192.0.2.1:1000", guest), "address 192.0.2.1"},
		{"other guest", key("192.0.2.2:1000", guest), "address 192.0.2.2"},
		{"no principal", key("192.0.2.3:1000", nil), "address 192.0.2.3"},
		{"IPv6 guest by /64", key("[2001:db8::1:2]:1000", guest), "address 2001:db8::"},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: key %q, want %q", tc.name, tc.got, tc.want)
		}
	}
}
