package storage

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// TestValueConversion covers the kinds and driver types that the database
// tests cannot reach with the current tables (dates, floats, text forms).
func TestValueConversion(t *testing.T) {
	at := time.Date(2024, 2, 3, 4, 5, 6, 700, time.FixedZone("X", 3600))
	s := "x"
	tests := []struct {
		name  string
		kind  Kind
		in    any
		write bool
		want  any
	}{
		{"int from int", KindInt, 7, false, int64(7)},
		{"int from uint8", KindInt, uint8(7), false, int64(7)},
		{"float from int", KindFloat, 2, false, 2.0},
		{"string pointer", KindString, &s, false, "x"},
		{"nil pointer", KindString, (*string)(nil), false, nil},
		{"time write truncates, UTC", KindTime, at, true, time.Date(2024, 2, 3, 3, 5, 6, 0, time.UTC)},
		{"time condition keeps fraction", KindTime, at, false, time.Date(2024, 2, 3, 3, 5, 6, 700, time.UTC)},
		{"date", KindDate, time.Date(2024, 2, 3, 0, 0, 0, 0, time.UTC), true, "2024-02-03"},
		{"json raw", KindJSON, json.RawMessage(`{"a":1}`), true, json.RawMessage(`{"a":1}`)},
		{"json value", KindJSON, []int{1, 2}, true, json.RawMessage(`[1,2]`)},
		{"json null is NULL", KindJSON, json.RawMessage(`null`), true, nil},
	}
	for _, tc := range tests {
		got, err := toSQL(tc.kind, tc.in, tc.write)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: toSQL = %#v, %v; want %#v", tc.name, got, err, tc.want)
		}
	}
	for _, bad := range []struct {
		kind Kind
		in   any
	}{{KindString, 1}, {KindInt, "1"}, {KindBool, 1}, {KindTime, "2024-01-01"}, {KindJSON, json.RawMessage(`{`)}} {
		if _, err := toSQL(bad.kind, bad.in, true); err == nil {
			t.Errorf("toSQL(%s, %#v) accepted", kindName(bad.kind), bad.in)
		}
	}
}

func TestValueNormalization(t *testing.T) {
	utc := time.Date(2024, 2, 3, 4, 5, 6, 0, time.UTC)
	tests := []struct {
		name string
		kind Kind
		in   any
		want any
	}{
		{"sqlite bool", KindBool, int64(1), true},
		{"sqlite false", KindBool, int64(0), false},
		{"int32", KindInt, int32(5), int64(5)},
		{"float from integer", KindFloat, int64(3), 3.0},
		{"bytes to string", KindString, []byte("ab"), "ab"},
		{"sqlite time text", KindTime, "2024-02-03 04:05:06", utc},
		{"zoned time", KindTime, utc.In(time.FixedZone("X", 7200)), utc},
		{"rfc3339 text", KindTime, "2024-02-03T05:05:06.5+01:00", utc},
		{"date from time", KindDate, time.Date(2024, 2, 3, 0, 0, 0, 0, time.UTC), time.Date(2024, 2, 3, 0, 0, 0, 0, time.UTC)},
		{"date from text", KindDate, "2024-02-03", time.Date(2024, 2, 3, 0, 0, 0, 0, time.UTC)},
		{"json text", KindJSON, `{"a":1}`, json.RawMessage(`{"a":1}`)},
		{"null", KindJSON, nil, nil},
		// The forms the SQLite driver read in time columns, which Find now
		// hands to fromSQL as text.
		{"space and Z", KindTime, "2024-02-03 04:05:06Z", utc},
		{"space and offset", KindTime, "2024-02-03 05:05:06+01:00", utc},
		{"minutes only", KindTime, "2024-02-03 04:05", utc.Truncate(time.Minute)},
		{"minutes only, T", KindTime, "2024-02-03T04:05", utc.Truncate(time.Minute)},
		{"time.Time.String", KindTime, "2024-02-03 05:05:06.25 +0100 CET", utc},
		{"time.Time.String, monotonic", KindTime, "2024-02-03 04:05:06 +0000 UTC m=+0.001", utc},
		{"date from time text", KindDate, "2024-02-03 04:05:06", time.Date(2024, 2, 3, 0, 0, 0, 0, time.UTC)},
	}
	for _, tc := range tests {
		got, err := fromSQL(tc.kind, tc.in)
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: fromSQL = %#v, %v; want %#v", tc.name, got, err, tc.want)
		}
	}
	if _, err := fromSQL(KindTime, "yesterday"); err == nil {
		t.Error("fromSQL accepted a time that is no time")
	}
}

// TestNormalizedValuesNotBoxedAgain bounds reading a value that already has
// its kind's Go type: no allocation (scanRows calls fromSQL for every value
// of every row).
func TestNormalizedValuesNotBoxedAgain(t *testing.T) {
	for _, tc := range []struct {
		kind Kind
		in   any
	}{
		{KindString, "text"},
		{KindInt, int64(123456)},
		{KindFloat, 1.5},
		{KindBool, true},
		{KindTime, time.Date(2024, 2, 3, 4, 5, 6, 0, time.UTC)},
		{KindDate, time.Date(2024, 2, 3, 0, 0, 0, 0, time.UTC)},
	} {
		var got any
		allocs := testing.AllocsPerRun(100, func() { got, _ = fromSQL(tc.kind, tc.in) })
		if allocs != 0 || !reflect.DeepEqual(got, tc.in) {
			t.Errorf("fromSQL(%s, %#v) = %#v with %v allocations, want the value itself and none", kindName(tc.kind), tc.in, got, allocs)
		}
	}
}
