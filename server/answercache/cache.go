// Package answercache keeps rendered answers of reference data in memory
// (issue 34; docs/answers.md). An answer is kept with the generation of
// the reference data it was rendered at, and served only while a reading
// of the generation made after the request arrived (Cache.Fresh) still
// finds it: a change committed before a request, in any process, is never
// hidden from it by a kept answer.
//
// The memory is bounded in bytes: when a new answer would pass the bound,
// answers are dropped in the order they were kept, except that one served
// since the last pass gets a second chance (the CLOCK algorithm), so a hot
// answer stays and a flood of one-off queries cycles through.
//
// The package knows nothing of HTTP routing or storage: the edge decides
// what may be kept and under which key (server/answers.go), and hands New
// the reading of the generation.
package answercache

import (
	"context"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"
)

// Answer is a kept answer: its status, the headers its handler set and its
// body. It is shared by every request it serves and never changed: the
// header values are clipped, so that an append by a later writer copies.
type Answer struct {
	Status int
	Header http.Header
	Body   []byte
}

// NewAnswer is an answer of status, header and body, each copied.
func NewAnswer(status int, header http.Header, body []byte) *Answer {
	h := make(http.Header, len(header))
	for k, v := range header {
		h[k] = slices.Clip(slices.Clone(v))
	}
	return &Answer{Status: status, Header: h, Body: slices.Clip(slices.Clone(body))}
}

// size is what the answer and its key cost in memory, roughly: the bytes
// of each, and a fixed share for the entry, the map and the slices.
func (a *Answer) size(key string) int64 {
	n := int64(len(key)+len(a.Body)) + entryOverhead
	for k, v := range a.Header {
		n += int64(len(k)) + 32
		for _, s := range v {
			n += int64(len(s)) + 16
		}
	}
	return n
}

// entryOverhead is the memory an entry costs besides its bytes.
const entryOverhead = 256

// entry is one kept answer.
type entry struct {
	key    string
	gen    int64
	answer *Answer
	size   int64
	used   atomic.Bool // served since the eviction's last pass
	gone   bool        // replaced or dropped; under Cache.mu
}

// Cache is a bounded set of answers by key, each valid at one generation.
type Cache struct {
	mu      sync.RWMutex
	entries map[string]*entry
	order   []*entry // in the order kept, from head: the CLOCK's hand
	head    int
	bytes   int64
	max     int64 // the bound of bytes
	gen     int64 // the newest generation read; older answers are gone
	rounds  rounds

	// marks reads the database's reference mark, nil where it has none
	// (New); marked is the last reading with the mark taken before it.
	marks  func() (Mark, bool)
	marked atomic.Pointer[marked]

	hits, misses, readings atomic.Int64
}

// Mark is a database's sign of changes: equal marks read at two moments
// mean that nothing that changes the generation was committed between
// them (storage.Store.ReferenceMark: a SQLite file's commit mark,
// PostgreSQL's reference lease).
type Mark [12]uint32

// marked is a reading of the generation with the mark read before it
// began.
type marked struct {
	mark Mark
	gen  int64
}

// New is a cache of at most maxBytes whose answers are valid while
// generation reads as it did when they were kept. generation must read
// what is committed when it is called, not what was committed before. The
// cache reads until life ends; Fresh fails after.
//
// marks, where the database has them (nil elsewhere), spares readings:
// while the mark read before the last reading began is still the mark,
// nothing that changes the generation came since, and that reading's
// generation is still the one.
func New(life context.Context, maxBytes int64, generation func(context.Context) (int64, error), marks func() (Mark, bool)) *Cache {
	c := &Cache{entries: map[string]*entry{}, max: maxBytes, marks: marks}
	c.rounds.read = func(ctx context.Context) (int64, error) {
		c.readings.Add(1)
		var m Mark
		ok := false
		if marks != nil {
			m, ok = marks()
		}
		gen, err := generation(ctx)
		if err != nil {
			return gen, err
		}
		c.advance(gen) // before a request may take gen, from the round or from the mark
		if ok {
			c.marked.Store(&marked{mark: m, gen: gen})
		}
		// Otherwise the last marked reading stays: while its mark is read
		// again, nothing changed since it, whatever this reading found.
		return gen, nil
	}
	c.rounds.life = life
	c.rounds.wake = make(chan struct{}, 1)
	return c
}

// Fresh is the generation as read after this call began: the request
// waits for a reading that started after it arrived (readings are shared by
// the requests that wait together; rounds.go). A failed reading is its
// error: nothing kept may be served then.
//
// Where the database has marks (New), a request whose mark is the one read
// before the last reading began takes that reading's generation without
// waiting: nothing that changes it was committed since that reading began.
func (c *Cache) Fresh(ctx context.Context) (int64, error) {
	if c.marks != nil {
		if last := c.marked.Load(); last != nil {
			if m, ok := c.marks(); ok && m == last.mark {
				return last.gen, nil
			}
		}
	}
	return c.rounds.wait(ctx)
}

// advance drops every answer when a reading finds a new generation.
func (c *Cache) advance(gen int64) {
	c.mu.RLock()
	same := gen == c.gen
	c.mu.RUnlock()
	if same {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen == c.gen {
		return
	}
	c.gen = gen
	for _, e := range c.entries {
		e.gone = true
	}
	clear(c.entries)
	c.order, c.head, c.bytes = nil, 0, 0
}

// Get is the answer kept under key for generation gen, nil when there is
// none.
func (c *Cache) Get(key string, gen int64) *Answer {
	c.mu.RLock()
	e := c.entries[key]
	c.mu.RUnlock()
	if e == nil || e.gen != gen {
		c.misses.Add(1)
		return nil
	}
	if !e.used.Load() {
		e.used.Store(true)
	}
	c.hits.Add(1)
	return e.answer
}

// MaxAnswer is the largest answer Put keeps, in bytes: an eighth of the
// cache.
func (c *Cache) MaxAnswer() int64 { return c.max / 8 }

// Put keeps a under key for generation gen, unless gen is older than a
// generation already read (a change came since a was rendered) or a alone
// would take more than an eighth of the cache.
func (c *Cache) Put(key string, gen int64, a *Answer) {
	size := a.size(key)
	if size > c.MaxAnswer() {
		return
	}
	e := &entry{key: key, gen: gen, answer: a, size: size}
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if old := c.entries[key]; old != nil {
		old.gone = true
		c.bytes -= old.size
	}
	c.entries[key] = e
	c.order = append(c.order, e)
	c.bytes += size
	c.evict()
}

// evict drops answers from the hand until the cache is within its bound;
// each answer served since the last pass is passed over once.
func (c *Cache) evict() {
	for c.bytes > c.max && c.head < len(c.order) {
		e := c.order[c.head]
		c.order[c.head] = nil
		c.head++
		switch {
		case e.gone:
		case e.used.Swap(false):
			c.order = append(c.order, e)
		default:
			e.gone = true
			delete(c.entries, e.key)
			c.bytes -= e.size
		}
	}
	if c.head > len(c.order)/2 && c.head > 64 {
		c.order = append(c.order[:0:0], c.order[c.head:]...)
		c.head = 0
	}
}

// Stats are a cache's figures: answers kept, their bytes, the lookups
// that found one and those that did not, and the readings of the
// generation.
type Stats struct {
	Answers      int
	Bytes        int64
	Hits, Misses int64
	Readings     int64
}

// Stats reads the cache's figures.
func (c *Cache) Stats() Stats {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return Stats{Answers: len(c.entries), Bytes: c.bytes, Hits: c.hits.Load(), Misses: c.misses.Load(),
		Readings: c.readings.Load()}
}
