package server

import (
	"container/list"
	"crypto/sha256"
	"math"
	"net/netip"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/entityapi/entityapi/server/problem"
	"github.com/entityapi/entityapi/storage"
)

// RateLimitConfig is the request rate allowed to each client of the APIs
// (docs/decisions.md §10, §14): for the whole deployment, every process on
// one database together, within the tolerance of §14.
type RateLimitConfig struct {
	// PerSecond is the sustained rate of one client; 0: no limit.
	PerSecond float64
	// Burst is how many requests a client that has been quiet may send at
	// once (0: twice PerSecond, at least 1).
	Burst int
	// ShareEvery is how often this process adds what it allowed to the
	// counts the processes share in the database and reads the others'
	// (0: DefaultRateShareEvery). It bounds how late a process learns of
	// the others' requests, so it is what the tolerance is made of.
	ShareEvery time.Duration
}

// DefaultRateShareEvery is RateLimitConfig.ShareEvery's default
// (--rate-limit-share).
const DefaultRateShareEvery = time.Second

// maxRateBuckets bounds the memory of the limiter: about 20 MB at most.
// Past it the least recently seen client is forgotten (and so gets a full
// bucket when it comes back), which only errs towards letting requests in.
const maxRateBuckets = 1 << 16

// Bounds of the buckets' arithmetic in nanoseconds, so that no rate or burst
// the settings accept overflows int64: one request comes back within ten
// years, a burst fills within seventy (far beyond any useful setting).
const (
	maxRequestNanos = int64(10 * 365 * 24 * time.Hour)
	maxBurstNanos   = int64(1) << 61
)

// forgetScan is how many of the least recently used buckets each request
// looks at to forget the full ones: a few, so that the cost per request
// stays flat; the bound on buckets does the rest.
const forgetScan = 4

// limiter is one bucket per client, least recently used first out, in
// GCRA's form (the generic cell rate algorithm, a token bucket kept as one
// time): a bucket is the time at which it is full again (tat). A request
// at now costs per: allowed when max(tat, now)+per is at most burst
// requests ahead of now. One number per bucket is what makes the state
// easy to share between processes (ratelimit_share.go): merging two views
// of a bucket is taking the later time.
type limiter struct {
	per       int64                            // nanoseconds one request takes to come back, at least 1
	tolerance int64                            // per times the burst: how far ahead of now tat may go
	capacity  int                              // most buckets kept
	clock     atomic.Pointer[func() time.Time] // nil: time.Now; tests set their own

	mu    sync.Mutex
	order *list.List // of *bucket, most recently used at the front
	// byKey finds a bucket by its client's name (clientKey), byHash by the
	// name's SHA-256, as the database knows it: a bucket read from the
	// database that no request here has met yet is in byHash only.
	byKey, byHash map[string]*list.Element
	// dirty are the buckets that allowed a request since the last push;
	// unpushed, what buckets forgotten before it had allowed.
	dirty    []*bucket
	unpushed []storage.RateBucket
}

type bucket struct {
	key  string // the client's name; "" until a request here names it
	hash string // SHA-256 of the client's name
	tat  int64  // nanoseconds since 1970
	used int64  // requests allowed here since the last push
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
	per := int64(min(max(1e9/cfg.PerSecond, 1), float64(maxRequestNanos)))
	tolerance := int64(min(float64(per)*float64(cfg.Burst), float64(maxBurstNanos)))
	return &limiter{per: per, tolerance: tolerance, capacity: capacity,
		order: list.New(), byKey: map[string]*list.Element{}, byHash: map[string]*list.Element{}}
}

// now is the limiter's time.
func (l *limiter) now() time.Time {
	if c := l.clock.Load(); c != nil {
		return (*c)()
	}
	return time.Now()
}

// allow takes a token of key's bucket at now; when there is none, it tells
// how long until there is one and takes nothing.
func (l *limiter) allow(key string, now time.Time) (bool, time.Duration) {
	n := now.UnixNano()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.forgetFull(n)
	b := l.named(key, n)
	next := max(b.tat, n) + l.per
	if next-n > l.tolerance {
		return false, time.Duration(next - l.tolerance - n)
	}
	b.tat = next
	if b.used == 0 {
		if len(l.dirty) >= 2*l.capacity { // a flood of clients between two pushes: drop those forgotten since
			l.dirty = slices.DeleteFunc(l.dirty, func(b *bucket) bool { return b.used == 0 })
		}
		l.dirty = append(l.dirty, b)
	}
	b.used++
	return true, 0
}

// named returns the bucket of the client named key, most recently used now.
func (l *limiter) named(key string, now int64) *bucket {
	if e, ok := l.byKey[key]; ok {
		l.order.MoveToFront(e)
		return e.Value.(*bucket)
	}
	h := sha256.Sum256([]byte(key))
	b := l.hashed(string(h[:]), now)
	b.key = key
	l.byKey[key] = l.byHash[b.hash]
	return b
}

// hashed returns the bucket whose name has the SHA-256 hash, most recently
// used now; a new one is full.
func (l *limiter) hashed(hash string, now int64) *bucket {
	if e, ok := l.byHash[hash]; ok {
		l.order.MoveToFront(e)
		return e.Value.(*bucket)
	}
	if l.order.Len() >= l.capacity {
		l.remove(l.order.Back())
	}
	b := &bucket{hash: hash, tat: now}
	l.byHash[hash] = l.order.PushFront(b)
	return b
}

// forgetFull drops the full buckets among the least recently used few: a
// full bucket is what a client without one gets. A bucket is kept until
// what it allowed is pushed, so that a busy client's bucket, full again
// between two requests at a high rate, is not made anew at each.
func (l *limiter) forgetFull(now int64) {
	e := l.order.Back()
	for range forgetScan {
		if e == nil {
			return
		}
		prev := e.Prev()
		if b := e.Value.(*bucket); b.tat <= now && b.used == 0 {
			l.remove(e)
		}
		e = prev
	}
}

// remove forgets a bucket, keeping what it allowed for the next push (when
// the bound on buckets pushes out one that allowed requests since).
func (l *limiter) remove(e *list.Element) {
	b := e.Value.(*bucket)
	if b.used > 0 && len(l.unpushed) < l.capacity {
		l.unpushed = append(l.unpushed, l.pushOf(b))
	}
	b.used = 0
	l.order.Remove(e)
	delete(l.byHash, b.hash)
	if b.key != "" {
		delete(l.byKey, b.key)
	}
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
	ok, wait := a.limiter.allow(clientKey(c), a.limiter.now())
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
