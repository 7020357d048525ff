package authstore

import (
	"context"
	"strconv"
	"testing"
	"time"
)

// TestMemoryFailuresBound: the memory counter keeps at most its capacity;
// a flood of new keys evicts the least recently used counts below their
// ceiling, never a count at its ceiling (a block stays), and ended counts
// make room first.
func TestMemoryFailuresBound(t *testing.T) {
	ctx, now := context.Background(), time.Now()
	m := newMemoryFailures(4)
	add := func(key string, at time.Time, ceiling int) FailureCount {
		t.Helper()
		c, err := m.Add(ctx, key, at, time.Minute, ceiling)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for range 3 {
		add("blocked", now, 3)
	}
	for i := range 100 {
		add("flood-"+strconv.Itoa(i), now, 3)
		if len(m.byKey) > 4 {
			t.Fatalf("%d counts kept, capacity 4", len(m.byKey))
		}
	}
	if c, _ := m.Peek(ctx, "blocked", now); c.N != 3 {
		t.Errorf("the blocked key was evicted by the flood: count %d", c.N)
	}
	if c, _ := m.Peek(ctx, "flood-99", now); c.N != 1 {
		t.Errorf("the newest key: count %d", c.N)
	}
	if c, _ := m.Peek(ctx, "flood-0", now); c.N != 0 {
		t.Errorf("the oldest flood key is still kept: count %d", c.N)
	}
	later := now.Add(time.Minute)
	add("fresh", later, 3)
	if len(m.byKey) != 1 {
		t.Errorf("after every window ended: %d counts kept, want only the new one", len(m.byKey))
	}
}

// TestMemoryFailuresFullOnly: with every count at its ceiling, a new key
// still finds room (the least recently used block goes).
func TestMemoryFailuresFullOnly(t *testing.T) {
	ctx, now := context.Background(), time.Now()
	m := newMemoryFailures(2)
	for _, k := range []string{"a", "b", "c"} {
		if _, err := m.Add(ctx, k, now, time.Minute, 1); err != nil {
			t.Fatal(err)
		}
	}
	if len(m.byKey) != 2 || m.full.Len() != 2 || m.open.Len() != 0 {
		t.Fatalf("kept %d (%d full, %d open), want b and c full", len(m.byKey), m.full.Len(), m.open.Len())
	}
	if c, _ := m.Peek(ctx, "a", now); c.N != 0 {
		t.Errorf("a, the least recently used, is still kept")
	}
}
