package batchclient

// The progress display of `entityapi batch submit`: a bar redrawn in place on
// a terminal, plain rate-limited lines anywhere else. The terminal decision is
// injected (runEnv.tty), never taken from a real terminal.

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage/storagetest"
)

func TestBatchClientBar(t *testing.T) {
	p := func(v float64) *float64 { return &v }
	for _, tt := range []struct {
		progress *float64
		want     string
	}{
		{nil, "[..........]"},
		{p(0), "[..........]"},
		{p(45.5), "[####......]"},
		{p(99.99), "[#########.]"},
		{p(100), "[##########]"},
		{p(250), "[##########]"}, // never wider than the bar
	} {
		if got := bar(tt.progress, 10); got != tt.want {
			t.Errorf("bar(%v) = %q, want %q", tt.progress, got, tt.want)
		}
	}
}

// TestBatchClientPlainLines feeds polls at a fake clock: a line per change,
// at most one per interval, but a new status always.
func TestBatchClientPlainLines(t *testing.T) {
	p := func(v float64) *float64 { return &v }
	polls := []struct {
		at       time.Duration
		status   string
		progress *float64
	}{
		{0, "new", nil},
		{500 * time.Millisecond, "new", nil},         // no change: no line
		{time.Second, "running", p(10)},              // new status: a line at once
		{1500 * time.Millisecond, "running", p(20)},  // changed, but within the interval
		{3 * time.Second, "running", p(30)},          // changed and the interval passed
		{3100 * time.Millisecond, "success", p(100)}, // new status
		{3200 * time.Millisecond, "success", p(100)}, // no change
	}
	want := []string{
		"operation 7: new, progress - (0s, -- records/s, ETA --)",
		"operation 7: running, progress 10.00% (1s, 100 records/s, ETA 9s)",
		"operation 7: running, progress 30.00% (3s, 100 records/s, ETA 7s)",
		"operation 7: success, progress 100.00% (3s, 323 records/s)",
	}
	var out bytes.Buffer
	start := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	now := start
	v := newProgressView(&out, false, 2*time.Second)
	v.now, v.start = func() time.Time { return now }, start
	v.following(1000)
	for _, poll := range polls {
		now = start.Add(poll.at)
		op := &operation{ID: "7", Status: poll.status, Progress: poll.progress}
		if op.Status == "success" {
			op.Summary = &opSummary{ReadCount: 1000, WriteCount: 1000}
		}
		v.update(op)
	}
	v.finish()
	if got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n"); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestBatchClientProgressOutput submits the same batch with and without a
// terminal to a real server: the bar (carriage returns, ended by a newline)
// only on the terminal, and the result the same on both.
func TestBatchClientProgressOutput(t *testing.T) {
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			b := setupBatch(t, dialect)
			b.file(t, "progress.json", accounts(300, "progress"))
			args := append(append([]string{"submit"}, creds...), "--type", "accounts", "--file", "$DIR/progress.json")
			for _, tty := range []bool{true, false} {
				got := b.run(t, tty, nil, "", append([]string(nil), args...)...)
				if got.code != ExitOK || !strings.Contains(got.stdout, "300 read, 300 written") {
					t.Fatalf("tty %v: exit code %d\n%s%s", tty, got.code, got.stdout, got.stderr)
				}
				if strings.Contains(got.stdout, "\r") {
					t.Errorf("tty %v: a carriage return on stdout: %q", tty, got.stdout)
				}
				hasBar := strings.Contains(got.stderr, "\r[")
				switch {
				case tty && !hasBar:
					t.Errorf("terminal: no bar in %q", got.stderr)
				case tty && !strings.Contains(got.stderr, "[##############################]  100.00%  success"):
					t.Errorf("terminal: no full bar in %q", got.stderr)
				case tty && !strings.HasSuffix(got.stderr, "\n"):
					t.Errorf("terminal: the bar's line is not ended: %q", got.stderr)
				case !tty && strings.Contains(got.stderr, "\r"):
					t.Errorf("not a terminal: a carriage return in %q", got.stderr)
				case !tty && !strings.Contains(got.stderr, ": success, progress 100.00% ("):
					t.Errorf("not a terminal: no final progress line in %q", got.stderr)
				case !regexp.MustCompile(`success.* [0-9.]+ records/s`).MatchString(got.stderr):
					t.Errorf("tty %v: no rate from the 300 records in %q", tty, got.stderr)
				}
			}
		})
	}
}

// TestBatchClientUploadProgress shows an upload in both forms.
func TestBatchClientUploadProgress(t *testing.T) {
	type step struct {
		at      time.Duration
		n, size int64
	}
	for _, tt := range []struct {
		name  string
		tty   bool
		steps []step
		want  string
	}{
		{"plain, known size", false, []step{{0, 512 << 10, 2 << 20}, {time.Second, 1 << 20, 2 << 20}, {2 * time.Second, 3 << 19, 2 << 20}},
			"uploaded 512.0 KiB of 2.0 MiB\nuploaded 1.5 MiB of 2.0 MiB\n"},
		{"plain, standard input", false, []step{{0, 3 << 10, -1}, {3 * time.Second, 3 << 10, -1}},
			"uploaded 3.0 KiB\n"},
		{"terminal, known size", true, []step{{0, 1 << 20, 2 << 20}},
			"\r[###############...............]   50.00%  uploaded 1.0 MiB of 2.0 MiB\n"},
		{"terminal, standard input", true, []step{{0, 3 << 10, -1}},
			"\r[..............................]        -  uploaded 3.0 KiB\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			start := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
			now := start
			v := newProgressView(&out, tt.tty, 2*time.Second)
			v.now, v.start = func() time.Time { return now }, start
			for _, s := range tt.steps {
				now = start.Add(s.at)
				v.uploaded(s.n, s.size)
			}
			v.finish()
			if out.String() != tt.want {
				t.Errorf("output %q, want %q", out.String(), tt.want)
			}
		})
	}
}

// TestBatchClientWatchUpload checks that the watcher reports what the
// transport has read so far, and that stop returns once it has ended.
func TestBatchClientWatchUpload(t *testing.T) {
	var out bytes.Buffer
	body := &countingReader{r: strings.NewReader(strings.Repeat("x", 4000))}
	v := newProgressView(&out, true, time.Second)
	stop := watchUpload(v, body, 4000, 5*time.Millisecond)
	if _, err := body.Read(make([]byte, 1000)); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond)
	stop()
	if got := out.String(); !strings.Contains(got, "25.00%  uploaded 1000 bytes of 3.9 KiB") {
		t.Errorf("output %q, want the upload at 25%%", got)
	}
	if body.n.Load() != 1000 {
		t.Errorf("counted %d bytes, want 1000", body.n.Load())
	}
}
