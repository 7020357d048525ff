package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"time"
)

// profiler takes the server's heap profiles from its --debug-addr into dir:
// one when the RSS baseline is taken (after the warm-up) and one at the
// end, so that `go tool pprof -base heap-start.pb.gz heap-end.pb.gz` shows
// what grew in between (docs/production.md, "Profiles").
type profiler struct {
	addr, dir string
}

// heap writes the heap profile to dir/heap-<name>.pb.gz after a GC (pprof's
// gc=1), so that it holds what is live, not what awaits collection.
func (p profiler) heap(ctx context.Context, name string) error {
	if p.dir == "" {
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+p.addr+"/debug/pprof/heap?gc=1", nil)
	if err != nil {
		return err
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("heap profile: %w", err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return fmt.Errorf("heap profile: %s", res.Status)
	}
	path := filepath.Join(p.dir, "heap-"+name+".pb.gz")
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, res.Body); err != nil {
		f.Close()
		return err
	}
	fmt.Fprintf(os.Stderr, "soak: heap profile %s\n", path)
	return f.Close()
}

// heapAfter takes the "start" profile once warm has passed since start,
// unless ctx ends first.
func (p profiler) heapAfter(ctx context.Context, start time.Time, warm time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(time.Until(start.Add(warm))):
		if err := p.heap(ctx, "start"); err != nil {
			fmt.Fprintln(os.Stderr, "soak:", err)
		}
	}
}
