package batchclient

import (
	"strings"
	"testing"
	"time"
)

// TestBatchClientPace renders the rate and the time left of an operation
// from its progress, the file's record count and its summary.
func TestBatchClientPace(t *testing.T) {
	p := func(v float64) *float64 { return &v }
	for _, tt := range []struct {
		name     string
		op       operation
		records  int64
		since    time.Duration
		want     string
		wantLine string // the terminal bar, when given
	}{
		{name: "new", op: operation{Status: "new"}, records: 1000, want: "-- records/s, ETA --"},
		{name: "running, nothing done yet", op: operation{Status: "running", Progress: p(0)}, records: 1000, since: 2 * time.Second, want: "-- records/s, ETA --"},
		{name: "a quarter in 10 s", op: operation{Status: "running", Progress: p(25)}, records: 1000, since: 10 * time.Second, want: "25 records/s, ETA 30s",
			wantLine: "[#######.......................]   25.00%  running   0s  25 records/s, ETA 30s"},
		{name: "count unknown", op: operation{Status: "running", Progress: p(50)}, since: 2 * time.Second, want: "-- records/s, ETA 2s"},
		{name: "slow", op: operation{Status: "running", Progress: p(10)}, records: 5, since: time.Second, want: "0.5 records/s, ETA 9s"},
		{name: "almost done", op: operation{Status: "running", Progress: p(99.99)}, records: 100000, since: 100 * time.Second, want: "1000 records/s, ETA 0s"},
		{name: "long", op: operation{Status: "running", Progress: p(1)}, records: 1000000, since: 2 * time.Hour, want: "1.4 records/s, ETA 198h0m0s"},
		{name: "success: the summary's count", op: operation{Status: "success", Progress: p(100), Summary: &opSummary{ReadCount: 100000}},
			records: 99000, since: 6500 * time.Millisecond, want: "15385 records/s",
			wantLine: "[##############################]  100.00%  success   0s  15385 records/s"},
		{name: "failed", op: operation{Status: "failed", Progress: p(0)}, records: 1000, since: time.Second, want: "-- records/s"},
		{name: "cancelled: the pace while it ran", op: operation{Status: "cancelled", Progress: p(40)}, records: 1000, since: 4 * time.Second, want: "100 records/s"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := pace(&tt.op, tt.records, tt.since); got != tt.want {
				t.Errorf("pace = %q, want %q", got, tt.want)
			}
			if tt.wantLine == "" {
				return
			}
			var out strings.Builder
			start := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
			v := newProgressView(&out, true, time.Second)
			v.now, v.start = func() time.Time { return start }, start
			v.following(tt.records)
			v.now = func() time.Time { return start.Add(tt.since) }
			v.start = start.Add(tt.since) // the bar's elapsed time: 0s
			v.update(&tt.op)
			if got := out.String(); got != "\r"+tt.wantLine {
				t.Errorf("bar %q, want %q", got, "\r"+tt.wantLine)
			}
		})
	}
}

// TestBatchClientRecordCount counts the records of a batch file as it streams
// out, whole and one byte at a time.
func TestBatchClientRecordCount(t *testing.T) {
	for _, tt := range []struct {
		name, doc string
		want      int64
	}{
		{"two records", `{"data":[{"type":"accounts"},{"type":"accounts","attributes":{"data":[{"a":1}]}}]}`, 2},
		{"included after", `{"data":[{"type":"a"}],"included":[{"type":"b"},{"type":"c"}]}`, 1},
		{"included first", `{"included":[{}, {}], "meta": {"x": [1]}, "data" : [ {}, {}, {} ]}`, 3},
		{"brackets and quotes in strings", `{"data":[{"name":"a{[\"}]"},{"name":"\\"},{"name":"]}"}]}`, 3},
		{"lines", "{\n  \"data\": [\n    {\"type\": \"accounts\"},\n    {\"type\": \"accounts\"}\n  ]\n}\n", 2},
		{"a key spelt with an escape", `{"d\u0061ta":[{}]}`, 0},
		{"data as a value", `{"x":"data","y":[{}]}`, 0},
		{"a longer key", `{"database":[{}],"dat":[{}]}`, 0},
		{"not an object", `[{"data":[{}]}]`, 0},
		{"empty", ``, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var whole, bytewise itemCounter
			_, _ = whole.Write([]byte(tt.doc))
			for i := range len(tt.doc) {
				_, _ = bytewise.Write([]byte{tt.doc[i]})
			}
			if whole.n.Load() != tt.want || bytewise.n.Load() != tt.want {
				t.Errorf("counted %d (whole), %d (byte by byte), want %d", whole.n.Load(), bytewise.n.Load(), tt.want)
			}
		})
	}
}
