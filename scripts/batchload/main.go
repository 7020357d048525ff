// Command batchload measures what docs/decisions.md §11 asks of a large batch: it
// builds entityapi, starts `entityapi serve --demo` on a free loopback port,
// streams an asynchronous batch of N generated accounts to it (the body is
// generated while it is sent, never held in memory), polls the operation to
// success, and prints the rate and the server process's peak RSS (VmHWM of
// /proc/<pid>/status; goal: under 256 MiB for 1,000,000 records).
//
// Usage:
//
//	go run ./scripts/batchload -records 1000000                  # SQLite in a temporary directory
//	go run ./scripts/batchload -postgres-admin postgres://...    # a throwaway database on that server, dropped after
//	go run ./scripts/batchload -database-url postgres://...      # an existing database, left as it is
//
// With -update it first creates the N accounts as above, then streams a batch
// of N `meta.update` items over them, each with a relationship (referredBy,
// the account created before it), and prints the same figures for each batch;
// the peak RSS of the update batch is measured from its start (the process's
// high-water mark is reset through /proc/<pid>/clear_refs).
//
//	go run ./scripts/batchload -records 1000000 -update
//
// Linux only (it reads /proc).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/entityapi/entityapi/scripts/internal/localserver"
)

const (
	goalMiB   = 256
	jsonAPI   = "application/vnd.api+json"
	pollEvery = 250 * time.Millisecond
)

func main() {
	records := flag.Int("records", 1_000_000, "accounts in the batch")
	databaseURL := flag.String("database-url", "", "database of the server (default: SQLite in a temporary directory)")
	pgAdmin := flag.String("postgres-admin", "", "admin URL of a PostgreSQL server: run on a throwaway database created there and dropped after")
	workers := flag.Int("workers", 0, "--workers of the server (0: its default, the number of CPUs)")
	timeout := flag.Duration("timeout", 2*time.Hour, "give up after this long")
	update := flag.Bool("update", false, "after the creates, stream a batch of as many meta.update items with a relationship over them")
	flag.Parse()
	if *records <= 0 || (*databaseURL != "" && *pgAdmin != "") {
		fmt.Fprintln(os.Stderr, "batchload: -records must be positive; give -database-url or -postgres-admin, not both")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	if err := run(ctx, *records, *databaseURL, *pgAdmin, *workers, *update); err != nil {
		fmt.Fprintln(os.Stderr, "batchload:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, records int, databaseURL, pgAdmin string, workers int, update bool) (err error) {
	var extra []string
	if workers > 0 {
		extra = []string{"--workers", strconv.Itoa(workers)}
	}
	srv, err := localserver.StartDemo(ctx, "batchload", databaseURL, pgAdmin, extra...)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, srv.Stop(err != nil)) }()
	database := srv.Database

	base := srv.Base()
	pid := srv.PID()
	fmt.Fprintf(os.Stderr, "batchload: %d accounts to %s (%s, pid %d)\n", records, base, database, pid)
	token, err := localserver.Token(ctx, http.DefaultClient, base)
	if err != nil {
		return err
	}
	var before int64
	if update {
		if before, err = lastAccountID(ctx, base, token); err != nil {
			return err
		}
	}
	creates := func(w io.Writer) error { return localserver.WriteAccounts(w, records, "Load") }
	if err := measure(ctx, base, token, pid, database, "create", records, creates); err != nil {
		return err
	}
	if !update {
		return nil
	}
	after, err := lastAccountID(ctx, base, token)
	if err != nil {
		return err
	}
	if after-before != int64(records) {
		return fmt.Errorf("the created accounts do not have consecutive ids (%d..%d for %d records): cannot address them", before+1, after, records)
	}
	// The update batch's peak is its own.
	if err := localserver.ResetPeak(pid); err != nil {
		return fmt.Errorf("reset the peak RSS: %w", err)
	}
	updates := func(w io.Writer) error { return writeUpdates(w, before+1, records) }
	return measure(ctx, base, token, pid, database, "update", records, updates)
}

// measure streams one batch written by write, polls its operation to success
// and prints the rate and the server's peak RSS.
func measure(ctx context.Context, base, token string, pid int, database, kind string, records int, write func(io.Writer) error) error {
	var peakRSS atomic.Int64 // largest VmRSS sampled, in kB (VmHWM is read at the end)
	sampleCtx, stopSampling := context.WithCancel(ctx)
	defer stopSampling()
	go sampleRSS(sampleCtx, pid, &peakRSS)

	start := time.Now()
	id, err := sendBatch(ctx, base, token, write)
	if err != nil {
		return err
	}
	accepted := time.Since(start)
	uploadKB, _ := localserver.ProcStatus(pid, "VmHWM") // the upload's peak, shown in case processing is cut short
	fmt.Fprintf(os.Stderr, "batchload: %s operation %s accepted after %.1f s (peak RSS so far %.1f MiB); processing\n",
		kind, id, accepted.Seconds(), float64(uploadKB)/1024)
	if err := awaitOperation(ctx, base, token, id, records, start); err != nil {
		return err
	}
	elapsed := time.Since(start)
	hwm, err := localserver.ProcStatus(pid, "VmHWM")
	if err != nil {
		return err
	}
	stopSampling()
	peakMiB := float64(max(hwm, peakRSS.Load())) / 1024
	verdict := "met"
	if peakMiB >= goalMiB {
		verdict = "missed"
	}
	fmt.Printf("\nbatchload %-8s %-6s records %d  seconds %.1f  records/s %.0f  upload (to 202) %.1f s  peak RSS %.1f MiB  goal %d MiB %s\n",
		database, kind, records, elapsed.Seconds(), float64(records)/elapsed.Seconds(), accepted.Seconds(), peakMiB, goalMiB, verdict)
	return nil
}

// lastAccountID is the largest account id (0: none).
func lastAccountID(ctx context.Context, base, token string) (int64, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/admin/api/accounts?sort=-id&page[size]=1", nil)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Accept", jsonAPI)
	req.Header.Set("Authorization", "Bearer "+token)
	var page struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := doJSON(req, http.StatusOK, &page); err != nil {
		return 0, fmt.Errorf("last account: %w", err)
	}
	if len(page.Data) == 0 {
		return 0, nil
	}
	return strconv.ParseInt(page.Data[0].ID, 10, 64)
}

// sendBatch streams a batch written by write while it is sent, and returns
// the id of the operation of the answer 202.
func sendBatch(ctx context.Context, base, token string, write func(io.Writer) error) (string, error) {
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(write(pw)) }()
	req, err := http.NewRequestWithContext(ctx, http.MethodPatch, base+"/admin/api/accounts", pr)
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", jsonAPI)
	req.Header.Set("Accept", jsonAPI)
	req.Header.Set("Authorization", "Bearer "+token)
	var op localserver.Operation
	if err := doJSON(req, http.StatusAccepted, &op); err != nil {
		return "", fmt.Errorf("batch: %w", err)
	}
	return op.Data.ID, nil
}

// writeUpdates writes {"data":[...]} with n meta.update items over the
// accounts first..first+n-1: a new name, and referredBy the account before
// (the first refers to itself).
func writeUpdates(w io.Writer, first int64, n int) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	_, _ = bw.WriteString(`{"data":[`)
	var num []byte
	for i := range int64(n) {
		if i > 0 {
			_ = bw.WriteByte(',')
		}
		_, _ = bw.WriteString(`{"type":"accounts","id":"`)
		num = strconv.AppendInt(num[:0], first+i, 10)
		_, _ = bw.Write(num)
		_, _ = bw.WriteString(`","meta":{"update":true},"attributes":{"name":"Updated `)
		_, _ = bw.Write(num)
		_, _ = bw.WriteString(`"},"relationships":{"referredBy":{"data":{"type":"accounts","id":"`)
		num = strconv.AppendInt(num[:0], first+max(i-1, 0), 10)
		_, _ = bw.Write(num)
		if _, err := bw.WriteString(`"}}}}`); err != nil {
			return err
		}
	}
	_, _ = bw.WriteString(`]}`)
	return bw.Flush()
}

// awaitOperation polls the operation until it ends; it fails unless it ends
// success with every record read and written.
func awaitOperation(ctx context.Context, base, token, id string, n int, start time.Time) error {
	lastShown := time.Now()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/admin/api/asyncoperations/"+id, nil)
		if err != nil {
			return err
		}
		req.Header.Set("Accept", jsonAPI)
		req.Header.Set("Authorization", "Bearer "+token)
		var op localserver.Operation
		if err := doJSON(req, http.StatusOK, &op); err != nil {
			return fmt.Errorf("operation %s: %w", id, err)
		}
		if ended, err := op.Ended(n); ended {
			return err
		}
		a := op.Data.Attributes
		if time.Since(lastShown) >= 10*time.Second {
			lastShown = time.Now()
			p := "-"
			if a.Progress != nil {
				p = strconv.FormatFloat(*a.Progress, 'f', 2, 64) + "%"
			}
			fmt.Fprintf(os.Stderr, "batchload: %4.0f s  %s  %s\n", time.Since(start).Seconds(), a.Status, p)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pollEvery):
		}
	}
}

// doJSON sends req and decodes the answer into v; it fails unless the status is want.
func doJSON(req *http.Request, want int, v any) error {
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode != want {
		return fmt.Errorf("%s %s: status %d (want %d): %.1000s", req.Method, req.URL.Path, res.StatusCode, want, raw)
	}
	return json.Unmarshal(raw, v)
}

// sampleRSS records the largest VmRSS of the process until ctx ends.
func sampleRSS(ctx context.Context, pid int, peak *atomic.Int64) {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		if kb, err := localserver.ProcStatus(pid, "VmRSS"); err == nil && kb > peak.Load() {
			peak.Store(kb)
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
