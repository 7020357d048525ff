package batchclient

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// barWidth is the number of cells of the terminal progress bar.
const barWidth = 30

// progressView shows an operation while `entityapi batch submit` polls it. On
// a terminal it redraws one bar line in place (\r); anywhere else (a log file,
// CI, a pipe) it writes plain lines, one per change and at most one per
// `every` unless the status changes, so that logs stay readable and short.
type progressView struct {
	w     io.Writer
	tty   bool
	every time.Duration
	now   func() time.Time

	start      time.Time
	accepted   time.Time // when the server took the batch; zero before
	records    int64     // primary records in the batch file; 0: not known
	lastAt     time.Time
	lastStatus string
	lastText   string
	width      int // of the bar line drawn last, to blank what a shorter one leaves
}

func newProgressView(w io.Writer, tty bool, every time.Duration) *progressView {
	return &progressView{w: w, tty: tty, every: every, now: time.Now, start: time.Now()}
}

// following starts the part the server works on: the operation's pace is
// measured from now, records being the batch's primary records (0: unknown).
func (v *progressView) following(records int64) {
	v.accepted, v.records = v.now(), records
}

// update shows op as polled now.
func (v *progressView) update(op *operation) {
	now := v.now()
	elapsed := now.Sub(v.start).Truncate(time.Second)
	since := now.Sub(v.start)
	if !v.accepted.IsZero() {
		since = now.Sub(v.accepted)
	}
	p := pace(op, v.records, since)
	if v.tty {
		v.redraw(fmt.Sprintf("%s %8s  %-9s %s  %s", bar(op.Progress, barWidth), op.percent(), op.Status, elapsed, p))
		return
	}
	text := op.Status + ", progress " + op.percent()
	changedStatus := op.Status != v.lastStatus
	if text == v.lastText || (!changedStatus && now.Sub(v.lastAt) < v.every) {
		return
	}
	fmt.Fprintf(v.w, "operation %s: %s (%s, %s)\n", op.ID, text, elapsed, p)
	v.lastAt, v.lastStatus, v.lastText = now, op.Status, text
}

// pace renders how fast op goes and when it should end, since being the time
// since the server took it and records the batch's primary records (0: not
// known). While it runs, both come from its progress (the share of chunks
// done): records per second = records × share / since, and the time left =
// since × (1 - share) / share; "--" until there is progress to go by. Once
// it has ended, the rate comes from its summary's read count (when it has
// one) and no time is left.
func pace(op *operation, records int64, since time.Duration) string {
	share := 0.0
	if op.Progress != nil {
		share = min(max(*op.Progress/100, 0), 1)
	}
	secs := since.Seconds()
	rate := "-- records/s"
	switch {
	case op.Summary != nil && secs > 0:
		rate = rateText(float64(op.Summary.ReadCount) / secs)
	case op.Summary == nil && records > 0 && share > 0 && secs > 0:
		rate = rateText(float64(records) * share / secs)
	}
	if op.ended() {
		return rate
	}
	if share <= 0 || secs <= 0 {
		return rate + ", ETA --"
	}
	left := time.Duration(float64(since) * (1 - share) / share)
	return rate + ", ETA " + left.Round(time.Second).String()
}

// rateText renders records per second: whole numbers, a decimal below 10.
func rateText(r float64) string {
	if r < 10 {
		return fmt.Sprintf("%.1f records/s", r)
	}
	return fmt.Sprintf("%.0f records/s", r)
}

// redraw replaces the bar's line with line.
func (v *progressView) redraw(line string) {
	pad := ""
	if n := v.width - len(line); n > 0 {
		pad = strings.Repeat(" ", n)
	}
	fmt.Fprintf(v.w, "\r%s%s", line, pad)
	v.width = len(line)
}

// finish ends the bar's line so that what follows starts on its own.
func (v *progressView) finish() {
	if v.tty && v.width > 0 {
		fmt.Fprintln(v.w)
		v.width = 0
	}
}

// bar draws progress (percent, null while new) as width cells.
func bar(progress *float64, width int) string {
	filled := 0
	if progress != nil {
		filled = int(*progress / 100 * float64(width))
	}
	filled = min(max(filled, 0), width)
	return "[" + strings.Repeat("#", filled) + strings.Repeat(".", width-filled) + "]"
}
