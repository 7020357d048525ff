package dialect_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage/dialect"
)

// TestTextValue: the one text form of values where they travel as text.
func TestTextValue(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 28, 17, 30, 5, 0, time.FixedZone("CET", 3600))
	for _, tc := range []struct {
		name string
		in   any
		want any
	}{
		{"a time, in UTC", at, "2026-11-28 16:30:05"},
		{"JSON", json.RawMessage(`{"a":1}`), `{"a":1}`},
		{"bytes", []byte("x"), "x"},
		{"anything else, as it is", int64(7), int64(7)},
		{"a string, as it is", "s", "s"},
	} {
		if got := dialect.TextValue(tc.in); got != tc.want {
			t.Errorf("%s: TextValue(%v) = %#v, want %#v", tc.name, tc.in, got, tc.want)
		}
	}
}
