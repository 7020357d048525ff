package main

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
	lastAt     time.Time
	lastStatus string
	lastText   string
	width      int // of the bar line drawn last, to blank what a shorter one leaves
}

func newProgressView(w io.Writer, tty bool, every time.Duration) *progressView {
	return &progressView{w: w, tty: tty, every: every, now: time.Now, start: time.Now()}
}

// update shows op as polled now.
func (v *progressView) update(op *operation) {
	now := v.now()
	elapsed := now.Sub(v.start).Truncate(time.Second)
	if v.tty {
		v.redraw(fmt.Sprintf("%s %8s  %-9s %s", bar(op.Progress, barWidth), op.percent(), op.Status, elapsed))
		return
	}
	text := op.Status + ", progress " + op.percent()
	changedStatus := op.Status != v.lastStatus
	if text == v.lastText || (!changedStatus && now.Sub(v.lastAt) < v.every) {
		return
	}
	fmt.Fprintf(v.w, "operation %s: %s (%s)\n", op.ID, text, elapsed)
	v.lastAt, v.lastStatus, v.lastText = now, op.Status, text
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
