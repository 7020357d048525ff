package storagetest

import (
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
)

// CheckStamp checks a created_at/updated_at value as storage returns it: a
// UTC time in whole seconds within the test's run (after is when it began).
// The storage packages' tests share it, since every one of them writes
// stamped records.
func CheckStamp(t *testing.T, v any, after time.Time) time.Time {
	t.Helper()
	ts, ok := v.(time.Time)
	if !ok {
		t.Fatalf("timestamp is %T (%v), want time.Time", v, v)
	}
	if ts.Location() != time.UTC || ts.Nanosecond() != 0 {
		t.Errorf("timestamp %v is not UTC whole seconds", ts)
	}
	if ts.Before(after.Truncate(time.Second)) || ts.After(time.Now().Add(time.Second)) {
		t.Errorf("timestamp %v is not now (test began %v)", ts, after)
	}
	return ts
}

// Table returns a table of the generic queries the test needs, failing the
// test when it is not declared.
func Table(tb testing.TB, s *storage.Store, name string) *storage.Table {
	tb.Helper()
	tbl, ok := s.Table(name)
	if !ok {
		tb.Fatalf("Table(%q) not found", name)
	}
	return tbl
}
