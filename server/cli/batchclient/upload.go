package batchclient

import (
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// A large batch file takes a while to upload before the server answers with
// its operation; the upload is shown too, so that the command never looks
// stuck. The counting reader sits between the file and the transport and
// holds no data, so the body still streams.

// countingReader counts the bytes the transport has read from r, and the
// records among them (items).
type countingReader struct {
	r     io.Reader
	n     atomic.Int64
	items itemCounter
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	_, _ = c.items.Write(p[:n])
	return n, err
}

// watchUpload shows the progress of body (of size bytes, -1: unknown) on view
// every interval until the returned stop is called; stop waits for the
// watcher to end, so that view is the caller's again.
func watchUpload(view *progressView, body *countingReader, size int64, every time.Duration) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				view.uploaded(body.n.Load(), size)
			}
		}
	}()
	return func() {
		close(done)
		wg.Wait()
	}
}

// uploaded shows that n bytes of size (-1: unknown) have been sent.
func (v *progressView) uploaded(n, size int64) {
	var percent *float64
	text := "uploaded " + sizeText(n)
	if size > 0 {
		p := float64(n) * 100 / float64(size)
		percent = &p
		text += " of " + sizeText(size)
	}
	if v.tty {
		pct := "-"
		if percent != nil {
			pct = fmt.Sprintf("%.2f%%", *percent)
		}
		v.redraw(fmt.Sprintf("%s %8s  %s", bar(percent, barWidth), pct, text))
		return
	}
	now := v.now()
	if text == v.lastText || now.Sub(v.lastAt) < v.every {
		return
	}
	fmt.Fprintln(v.w, text)
	v.lastAt, v.lastText = now, text
}
