package authstore

import (
	"container/list"
	"context"
	"crypto/sha256"
	"sync"
	"time"
)

// memoryFailures is the FailureCounter of a SQLite store: one process owns
// the database, so its memory is the only place attempts arrive. It keeps at
// most capacity counts. Counts that reached their ceiling (a blocked key)
// are kept apart and forgotten only when they expire or when nothing else is
// left to forget: flooding the counter with new keys, which costs an attacker
// one request each, then evicts only other unblocked counts, never the block
// the attacker wants lifted.
type memoryFailures struct {
	capacity int

	mu    sync.Mutex
	open  *list.List // of *memoryCount below their ceiling, most recently used first
	full  *list.List // of *memoryCount at their ceiling, most recently used first
	byKey map[[sha256.Size]byte]*list.Element
}

type memoryCount struct {
	key  [sha256.Size]byte
	n    int
	ends time.Time
	full bool // in memoryFailures.full
}

func newMemoryFailures(capacity int) *memoryFailures {
	return &memoryFailures{capacity: max(capacity, 1), open: list.New(), full: list.New(),
		byKey: map[[sha256.Size]byte]*list.Element{}}
}

// Add implements FailureCounter.
func (m *memoryFailures) Add(_ context.Context, key string, now time.Time, window time.Duration, ceiling int) (FailureCount, error) {
	ceiling = max(ceiling, 1)
	h := hashKey(key)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.dropExpired(now)
	e, ok := m.byKey[h]
	if ok && !now.Before(e.Value.(*memoryCount).ends) {
		m.remove(e)
		ok = false
	}
	if !ok {
		if len(m.byKey) >= m.capacity {
			m.evict()
		}
		e = m.open.PushFront(&memoryCount{key: h, ends: now.Add(window)})
		m.byKey[h] = e
	}
	c := e.Value.(*memoryCount)
	if c.n < ceiling {
		c.n++
	}
	m.touch(e, c.n >= ceiling)
	return FailureCount{N: c.n, Ends: c.ends}, nil
}

// Peek implements FailureCounter.
func (m *memoryFailures) Peek(_ context.Context, key string, now time.Time) (FailureCount, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.byKey[hashKey(key)]
	if !ok {
		return FailureCount{}, nil
	}
	c := e.Value.(*memoryCount)
	if !now.Before(c.ends) {
		m.remove(e)
		return FailureCount{}, nil
	}
	return FailureCount{N: c.n, Ends: c.ends}, nil
}

// Forget implements FailureCounter.
func (m *memoryFailures) Forget(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if e, ok := m.byKey[hashKey(key)]; ok {
		m.remove(e)
	}
	return nil
}

// touch moves e to the front of the list its count belongs in now.
func (m *memoryFailures) touch(e *list.Element, full bool) {
	c := e.Value.(*memoryCount)
	if c.full == full {
		m.listOf(c).MoveToFront(e)
		return
	}
	m.listOf(c).Remove(e)
	c.full = full
	m.byKey[c.key] = m.listOf(c).PushFront(c)
}

// dropExpired forgets the ended counts at the back of both lists (the least
// recently used, which are the likeliest to have ended); others go when
// they are next looked at or evicted.
func (m *memoryFailures) dropExpired(now time.Time) {
	for _, l := range []*list.List{m.open, m.full} {
		for e := l.Back(); e != nil && !now.Before(e.Value.(*memoryCount).ends); e = l.Back() {
			m.remove(e)
		}
	}
}

// evict forgets one count: the least recently used below its ceiling, or,
// when every count is at its ceiling, the least recently used of those.
func (m *memoryFailures) evict() {
	if e := m.open.Back(); e != nil {
		m.remove(e)
		return
	}
	if e := m.full.Back(); e != nil {
		m.remove(e)
	}
}

func (m *memoryFailures) remove(e *list.Element) {
	c := e.Value.(*memoryCount)
	m.listOf(c).Remove(e)
	delete(m.byKey, c.key)
}

func (m *memoryFailures) listOf(c *memoryCount) *list.List {
	if c.full {
		return m.full
	}
	return m.open
}
