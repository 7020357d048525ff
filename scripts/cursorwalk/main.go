// Command cursorwalk measures cursor paging (issue 18) over a large list: it
// builds entityapi, starts `entityapi serve --demo` on a free loopback port,
// loads N accounts through one asynchronous batch, then walks all of them by
// cursor (page[after], following links.next to the end) and prints the time
// per page at each tenth of the walk, beside the time of a page by number
// (page[number], an OFFSET) at the same depths. A cursor page is found
// through the index, so its time stays flat however deep the walk; a page by
// number reads every row before it.
//
// Usage:
//
//	go run ./scripts/cursorwalk -records 1000000               # SQLite in a temporary directory
//	go run ./scripts/cursorwalk -records 20000 -size 100       # a quick look
//	go run ./scripts/cursorwalk -postgres-admin postgres://... # a throwaway database on that server, dropped after
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/entityapi/entityapi/scripts/internal/localserver"
)

const (
	jsonAPI   = "application/vnd.api+json"
	pollEvery = 250 * time.Millisecond
	depths    = 10 // the walk is reported by tenths
	// numberSamples is how many pages by number are timed at each depth.
	numberSamples = 5
)

func main() {
	records := flag.Int("records", 1_000_000, "accounts to load and walk")
	size := flag.Int("size", 100, "page[size] of the walk (1 to 1000)")
	databaseURL := flag.String("database-url", "", "database of the server (default: SQLite in a temporary directory)")
	pgAdmin := flag.String("postgres-admin", "", "admin URL of a PostgreSQL server: run on a throwaway database created there and dropped after")
	timeout := flag.Duration("timeout", 2*time.Hour, "give up after this long")
	flag.Parse()
	if *records <= 0 || *size < 1 || *size > 1000 || (*databaseURL != "" && *pgAdmin != "") {
		fmt.Fprintln(os.Stderr, "cursorwalk: -records must be positive, -size 1 to 1000; give -database-url or -postgres-admin, not both")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	if err := run(ctx, *records, *size, *databaseURL, *pgAdmin); err != nil {
		fmt.Fprintln(os.Stderr, "cursorwalk:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, records, size int, databaseURL, pgAdmin string) (err error) {
	srv, err := localserver.StartDemo(ctx, "cursorwalk", databaseURL, pgAdmin)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, srv.Stop(err != nil)) }()
	database := srv.Database
	c := &client{base: srv.Base()}
	if c.token, err = localserver.Token(ctx, http.DefaultClient, c.base); err != nil {
		return err
	}
	demo, err := c.count(ctx)
	if err != nil {
		return err
	}
	start := time.Now()
	fmt.Fprintf(os.Stderr, "cursorwalk: loading %d accounts (%s)\n", records, database)
	if err := c.load(ctx, records); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "cursorwalk: loaded in %.1f s; walking by %d\n", time.Since(start).Seconds(), size)
	records += demo // the demo data's accounts are walked too
	times, err := c.walk(ctx, records, size)
	if err != nil {
		return err
	}
	report(ctx, c, database, records, size, times)
	return nil
}

// client calls the started server as the demo administrator.
type client struct {
	base, token string
}

func (c *client) get(ctx context.Context, path string, v any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		return err
	}
	return c.do(req, http.StatusOK, v)
}

// count is the number of accounts (X-Include: totalCount).
func (c *client) count(ctx context.Context) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.base+"/admin/api/accounts?page[size]=1", nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("X-Include", "totalCount")
	var p page
	res, err := c.send(req, http.StatusOK, &p)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(res.Get("X-Include-Total-Count"))
}

func (c *client) do(req *http.Request, want int, v any) error {
	_, err := c.send(req, want, v)
	return err
}

// send sends req as the administrator, decodes the answer into v and
// returns its header; it fails unless the status is want.
func (c *client) send(req *http.Request, want int, v any) (http.Header, error) {
	req.Header.Set("Accept", jsonAPI)
	req.Header.Set("Authorization", "Bearer "+c.token)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != want {
		return nil, fmt.Errorf("%s %s: status %d (want %d): %.1000s", req.Method, req.URL, res.StatusCode, want, raw)
	}
	return res.Header, json.Unmarshal(raw, v)
}

// load streams one asynchronous batch of n accounts and waits for it.
func (c *client) load(ctx context.Context, n int) error {
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(localserver.WriteAccounts(pw, n, "Walk")) }()
	req, err := http.NewRequestWithContext(ctx, http.MethodPatch, c.base+"/admin/api/accounts", pr)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", jsonAPI)
	var op localserver.Operation
	if err := c.do(req, http.StatusAccepted, &op); err != nil {
		return fmt.Errorf("batch: %w", err)
	}
	for {
		if err := c.get(ctx, "/admin/api/asyncoperations/"+op.Data.ID, &op); err != nil {
			return err
		}
		if ended, err := op.Ended(n); ended {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pollEvery):
		}
	}
}

type page struct {
	Data  []struct{ ID string } `json:"data"`
	Links struct {
		Next string `json:"next"`
	} `json:"links"`
}

// walk follows links.next from the start to the end and returns the time
// of each page; it fails unless it met every record once.
func (c *client) walk(ctx context.Context, n, size int) ([]time.Duration, error) {
	var times []time.Duration
	seen := 0
	last := int64(0)
	next := c.base + "/admin/api/accounts?page[size]=" + strconv.Itoa(size) + "&page[after]="
	for next != "" {
		var p page
		start := time.Now()
		if err := c.get(ctx, strings.TrimPrefix(next, c.base), &p); err != nil {
			return nil, err
		}
		times = append(times, time.Since(start))
		for _, d := range p.Data {
			id, err := strconv.ParseInt(d.ID, 10, 64)
			if err != nil || id <= last {
				return nil, fmt.Errorf("page %d: id %s after %d: the walk is not in key order", len(times), d.ID, last)
			}
			last = id
		}
		seen += len(p.Data)
		next = p.Links.Next
	}
	if seen != n {
		return nil, fmt.Errorf("the walk met %d accounts, want %d", seen, n)
	}
	return times, nil
}

// report prints the median time per page of each tenth of the walk, and the
// time of a page by number at the start of that tenth.
func report(ctx context.Context, c *client, database string, n, size int, times []time.Duration) {
	fmt.Printf("\ncursorwalk %s: %d accounts, %d pages of %d\n", database, n, len(times), size)
	fmt.Printf("%-8s %10s %16s %18s\n", "depth", "page", "cursor ms/page", "number ms/page")
	var first float64
	for d := range depths {
		from, to := d*len(times)/depths, (d+1)*len(times)/depths
		if from == to {
			continue
		}
		cursor := median(times[from:to])
		number := -1.0
		var samples []time.Duration
		for range numberSamples {
			start := time.Now()
			var p page
			if err := c.get(ctx, fmt.Sprintf("/admin/api/accounts?page[size]=%d&page[number]=%d", size, from+1), &p); err != nil {
				break
			}
			samples = append(samples, time.Since(start))
		}
		if len(samples) > 0 {
			number = median(samples)
		}
		if d == 0 {
			first = cursor
		}
		fmt.Printf("%-8s %10d %16.2f %18.2f\n", fmt.Sprintf("%d%%", d*100/depths), from+1, cursor, number)
	}
	lastTenth := median(times[(depths-1)*len(times)/depths:])
	fmt.Printf("cursor page time, last tenth / first tenth: %.2f\n", lastTenth/first)
}

// median is the median of ds in milliseconds.
func median(ds []time.Duration) float64 {
	s := slices.Clone(ds)
	slices.Sort(s)
	return float64(s[len(s)/2].Microseconds()) / 1000
}
