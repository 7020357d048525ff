package batchclient

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"
)

// maxPollFailures is how many reads of an operation in a row may fail (a
// restarting server, a dropped connection) before the client gives up.
const maxPollFailures = 5

// submitBatch sends the file of f as a batch and follows it to its end.
func submitBatch(ctx context.Context, c *apiClient, f *options, env runEnv) error {
	body, size := env.stdin, int64(-1)
	if f.file != "-" {
		file, err := os.Open(f.file)
		if err != nil {
			return err
		}
		defer file.Close()
		st, err := file.Stat()
		if err != nil {
			return err
		}
		// The file itself is the request body: the transport reads it as it
		// sends, so its size never matters to memory.
		body, size = file, st.Size()
	}
	if err := c.authenticate(ctx); err != nil {
		return err
	}
	began := time.Now()
	view := newProgressView(env.stderr, env.tty, env.lineEvery)
	counted := &countingReader{r: body}
	stop := watchUpload(view, counted, size, env.poll)
	res, err := c.submit(ctx, f.typ, counted, size, f.sync)
	stop()
	view.finish()
	if err != nil {
		return err
	}
	if res.operation == nil { // a synchronous batch, answered in time
		var out bytes.Buffer
		if json.Indent(&out, res.raw, "", "  ") != nil {
			out.Reset()
			out.Write(res.raw)
		}
		fmt.Fprintf(env.stdout, "%s\n", bytes.TrimSpace(out.Bytes()))
		fmt.Fprintf(env.stderr, "synchronous batch written in %s\n", time.Since(began).Round(time.Millisecond))
		return nil
	}
	op := res.operation
	if f.sync {
		fmt.Fprintf(env.stderr, "the synchronous batch outlived the server's timeout: it goes on as operation %s (still all or nothing)\n", op.ID)
	} else {
		fmt.Fprintf(env.stderr, "operation %s accepted after %s (%s uploaded); following it\n", op.ID,
			time.Since(began).Round(time.Millisecond), sizeText(counted.n.Load()))
	}
	view.following(counted.items.n.Load())
	op, err = follow(ctx, c, op, view, env)
	if err != nil {
		return err
	}
	return report(ctx, c, op, time.Since(began), f.maxErrors, env.stdout)
}

// follow polls op until it ends, showing its progress on view.
func follow(ctx context.Context, c *apiClient, op *operation, view *progressView, env runEnv) (*operation, error) {
	defer view.finish()
	// A small batch ends within a fraction of a second: the first reads come
	// sooner, then every env.poll.
	failures, wait := 0, env.poll/8
	for {
		view.update(op)
		if op.ended() {
			return op, nil
		}
		select {
		case <-ctx.Done():
			view.finish()
			return nil, fmt.Errorf("stopped following operation %s, which goes on on the server: entityapi batch status %s", op.ID, op.ID)
		case <-time.After(wait):
			wait = min(2*wait, env.poll)
		}
		next, err := c.operation(ctx, op.ID)
		if err != nil {
			if failures++; failures >= maxPollFailures || ctx.Err() != nil {
				view.finish()
				return nil, fmt.Errorf("following operation %s: %w", op.ID, err)
			}
			continue
		}
		failures, op = 0, next
	}
}

// report prints how op ended and its first errors, and turns the outcome into
// the command's exit code.
func report(ctx context.Context, c *apiClient, op *operation, elapsed time.Duration, maxErrors int, w io.Writer) error {
	fmt.Fprintf(w, "operation %s %s after %s\n", op.ID, op.Status, elapsed.Round(10*time.Millisecond))
	errorCount := int64(-1) // unknown: failed and cancelled operations have no summary
	if op.Summary != nil {
		fmt.Fprintf(w, "  %s\n", op.Summary)
		errorCount = op.Summary.ErrorCount
	}
	if errorCount != 0 && maxErrors > 0 {
		var list bytes.Buffer
		n, err := printErrors(ctx, c, op.ID, min(maxErrors, 1000), maxErrors, &list)
		if err != nil {
			return err
		}
		if n > 0 {
			fmt.Fprintf(w, "errors (the first %d; all of them: entityapi batch errors %s):\n%s", n, op.ID, list.Bytes())
		}
	}
	switch {
	case op.Status != "success":
		return &exitError{code: ExitOperationFailed, err: fmt.Errorf("operation %s ended %s", op.ID, op.Status)}
	case errorCount > 0:
		return &exitError{code: ExitItemErrors, err: fmt.Errorf("operation %s: item errors: %d (the other items are written)", op.ID, errorCount)}
	}
	return nil
}

// sizeText renders a byte count for people.
func sizeText(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}
