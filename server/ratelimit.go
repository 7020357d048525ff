package server

import (
	"container/list"
	"math"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"golang.org/x/time/rate"

	"github.com/entityapi/entityapi/server/problem"
)

// RateLimitConfig is the request rate allowed to each client of the APIs
// (docs/decisions.md §10). The buckets live in this process's memory: behind a load
// balancer each process allows the rate on its own.
type RateLimitConfig struct {
	// PerSecond is the sustained rate of one client; 0: no limit.
	PerSecond float64
	// Burst is how many requests a client that has been quiet may send at
	// once (0: twice PerSecond, at least 1).
	Burst int
}

// maxRateBuckets bounds the memory of the limiter: about 20 MB at most.
// Past it the least recently seen client is forgotten (and so gets a full
// bucket when it comes back), which only errs towards letting requests in.
const maxRateBuckets = 1 << 16

// maxBucketIdle bounds how long a quiet client's bucket is kept at very low
// rates, where refilling it takes longer than that.
const maxBucketIdle = 24 * time.Hour

// limiter is one token bucket per client, least recently used first out.
type limiter struct {
	limit    rate.Limit
	burst    int
	idle     time.Duration // a bucket untouched this long is full again: forgetting it changes nothing
	capacity int           // most buckets kept

	mu    sync.Mutex
	order *list.List // of *bucket, most recently used at the front
	byKey map[string]*list.Element
}

type bucket struct {
	key  string
	lim  *rate.Limiter
	last time.Time
}

// newLimiter keeps at most capacity buckets; it returns nil when the
// configuration sets no limit.
func newLimiter(cfg RateLimitConfig, capacity int) *limiter {
	if cfg.PerSecond <= 0 {
		return nil
	}
	if cfg.Burst <= 0 {
		cfg.Burst = int(min(max(math.Ceil(2*cfg.PerSecond), 1), 1<<30)) // no overflow at absurd rates
	}
	idle := maxBucketIdle
	if secs := float64(cfg.Burst) / cfg.PerSecond; secs < idle.Seconds() {
		idle = time.Duration(secs * float64(time.Second))
	}
	return &limiter{limit: rate.Limit(cfg.PerSecond), burst: cfg.Burst, idle: idle, capacity: capacity,
		order: list.New(), byKey: map[string]*list.Element{}}
}

// allow takes a token of key's bucket at now; when there is none, it tells
// how long until there is one and takes nothing.
func (l *limiter) allow(key string, now time.Time) (bool, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.forgetIdle(now)
	e, ok := l.byKey[key]
	if ok {
		l.order.MoveToFront(e)
	} else {
		if l.order.Len() >= l.capacity {
			l.remove(l.order.Back())
		}
		e = l.order.PushFront(&bucket{key: key, lim: rate.NewLimiter(l.limit, l.burst)})
		l.byKey[key] = e
	}
	b := e.Value.(*bucket)
	b.last = now
	r := b.lim.ReserveN(now, 1)
	if wait := r.DelayFrom(now); wait > 0 {
		r.CancelAt(now)
		return false, wait
	}
	return true, 0
}

// forgetIdle drops the buckets untouched for l.idle, oldest first.
func (l *limiter) forgetIdle(now time.Time) {
	for e := l.order.Back(); e != nil && now.Sub(e.Value.(*bucket).last) >= l.idle; e = l.order.Back() {
		l.remove(e)
	}
}

func (l *limiter) remove(e *list.Element) {
	l.order.Remove(e)
	delete(l.byKey, e.Value.(*bucket).key)
}

// size is the number of buckets kept.
func (l *limiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.order.Len()
}

// rateLimit refuses a request over its client's rate with 429 and
// Retry-After. It runs after authenticate: the client is the token's client,
// or for a storefront guest its address. Token endpoints, documents, docs
// pages, health and JWKS are not application routes and are not limited.
func (a *application) rateLimit(c *gin.Context) {
	if a.limiter == nil {
		c.Next()
		return
	}
	ok, wait := a.limiter.allow(clientKey(c), time.Now())
	if ok {
		c.Next()
		return
	}
	secs := max(int64(math.Ceil(wait.Seconds())), 1)
	c.Header("Retry-After", strconv.FormatInt(secs, 10))
	a.abort(c, problem.RateLimited(secs))
}

// clientKey names the bucket of a request. Guests of one IPv6 /64 share one,
// since a single host commonly holds a whole /64.
func clientKey(c *gin.Context) string {
	if p := principalOf(c); p != nil && p.ClientID != "" { // a storefront guest's principal is empty
		return "client " + p.ClientID
	}
	ip, err := netip.ParseAddr(c.ClientIP())
	if err != nil {
		return "address " + c.ClientIP()
	}
	if ip = ip.Unmap(); ip.Is6() {
		ip = netip.PrefixFrom(ip, 64).Masked().Addr()
	}
	return "address " + ip.String()
}
