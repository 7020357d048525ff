package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/entityapi/entityapi/scripts/internal/localserver"
	"github.com/jackc/pgx/v5"
)

// The batch target: an asynchronous batch of accounts through a service,
// timed from the first byte of the upload to the operation's success, against
// the same rows written straight into the service's database.

// Rows per multi-row INSERT of the raw floor: as many as the bound
// parameters allow (4 per row; PostgreSQL takes 65,535 parameters, SQLite
// 32,766). The operation is polled every pollOperation: the success is seen
// up to that long after it happened, an error the floors (timed to their
// commit) do not have; at 50 ms it was 3% of a batch of a second, at 10 ms
// the polls cost the service about a hundred small GETs a second.
const (
	insertColumns       = 4
	postgresInsertRows  = 65535 / insertColumns
	sqliteInsertRows    = 32766 / insertColumns
	pollOperation       = 10 * time.Millisecond
	batchOperationLimit = 30 * time.Minute
)

// batchBody is a batch of n accounts named "<prefix> <i>".
func batchBody(n int, prefix string) []byte {
	b := make([]byte, 0, n*(len(prefix)+56)+16)
	b = append(b, `{"data":[`...)
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":"accounts","attributes":{"name":`...)
		b = strconv.AppendQuote(b, prefix+" "+strconv.Itoa(i))
		b = append(b, `}}`...)
	}
	return append(b, `]}`...)
}

func measureBatch(ctx context.Context, n, round int, s system) (sample, error) {
	prefix := "Batch " + strconv.Itoa(round+1) + " " + s.name
	switch s.name {
	case sysInsert:
		return timeRows(n, func() error { return rawInsert(ctx, s.db, prefix, n, false) })
	case sysInsertEvent:
		return timeRows(n, func() error { return rawInsert(ctx, s.db, prefix, n, true) })
	case sysCopy:
		return timeRows(n, func() error { return rawCopy(ctx, s.db, prefix, n, false) })
	case sysCopyEvent:
		return timeRows(n, func() error { return rawCopy(ctx, s.db, prefix, n, true) })
	}
	body := batchBody(n, prefix)
	runtime.GC()
	before, err := s.svc.counters(ctx)
	if err != nil {
		return sample{}, err
	}
	start := time.Now()
	if err := runBatch(ctx, s.svc, body, n); err != nil {
		return sample{}, err
	}
	elapsed := time.Since(start)
	after, err := s.svc.counters(ctx)
	if err != nil {
		return sample{}, err
	}
	sm := sample{rate: float64(n) / elapsed.Seconds(), cpuUS: -1}
	sm.allocs, sm.statements = perRequest(before, after, int64(n))
	return sm, nil
}

func timeRows(n int, fn func() error) (sample, error) {
	start := time.Now()
	if err := fn(); err != nil {
		return sample{}, err
	}
	return sample{rate: float64(n) / time.Since(start).Seconds(), allocs: -1, statements: -1, cpuUS: -1}, nil
}

// runBatch uploads body and polls the operation until it ends; it fails
// unless it ends success with every record written.
func runBatch(ctx context.Context, svc *service, body []byte, n int) error {
	raw, _, err := svc.api(ctx, http.MethodPatch, "/admin/api/accounts", body, http.StatusAccepted)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(batchOperationLimit)
	for {
		var op localserver.Operation
		if err := json.Unmarshal(raw, &op); err != nil {
			return err
		}
		if ended, err := op.Ended(n); ended {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("operation %s still %s after %s", op.Data.ID, op.Data.Attributes.Status, batchOperationLimit)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(pollOperation):
		}
		if raw, _, err = svc.api(ctx, http.MethodGet, "/admin/api/asyncoperations/"+op.Data.ID, nil, http.StatusOK); err != nil {
			return err
		}
	}
}

// rawInsert writes n accounts named prefix+i with the columns the batch
// writes, in multi-row INSERTs of as many rows as the parameters allow, in
// one transaction; with events, then their change events with one
// INSERT ... SELECT of the rows past the largest key before them. On SQLite
// the rows' audit rows too, with or without events, the same way: the
// batch writes them whatever the floor compares it with (PostgreSQL's audit
// triggers, in the schema, write them for the floor's rows as for the
// service's).
func rawInsert(ctx context.Context, db *floorDB, prefix string, n int, events bool) error {
	chunk := sqliteInsertRows
	if db.dialect == "postgres" {
		chunk = postgresInsertRows
	}
	ts := db.timeArg(time.Now())
	args := make([]any, 0, insertColumns*chunk)
	var written int64
	statement := func(rows int) string {
		var b strings.Builder
		b.WriteString("INSERT INTO accounts (organization_id, name, created_at, updated_at) VALUES ")
		for i := range rows {
			if i > 0 {
				b.WriteString(", ")
			}
			if db.dialect == "postgres" {
				p := i*insertColumns + 1
				fmt.Fprintf(&b, "($%d, $%d, $%d, $%d)", p, p+1, p+2, p+3)
			} else {
				b.WriteString("(?, ?, ?, ?)") // numbered ones cost modernc a search per parameter
			}
		}
		return b.String()
	}
	// insert writes the rows in chunks through exec, which runs one statement
	// in the transaction and says how many rows it wrote.
	insert := func(exec func(text string, args []any) (int64, error)) error {
		full := statement(chunk)
		for start := 0; start < n; start += chunk {
			rows := min(chunk, n-start)
			args = args[:0]
			for i := start; i < start+rows; i++ {
				args = append(args, floorOrg, prefix+" "+strconv.Itoa(i), ts, ts)
			}
			text := full
			if rows < chunk {
				text = statement(rows)
			}
			k, err := exec(text, args)
			if err != nil {
				return fmt.Errorf("insert: %w", err)
			}
			written += k
		}
		if written != int64(n) {
			return fmt.Errorf("raw insert wrote %d rows, want %d", written, n)
		}
		return nil
	}
	// withEvents runs insert, and with events the events of what it wrote:
	// last reads the largest key before, record writes the events after.
	withEvents := func(last func() (int64, error), record func(after int64) (int64, error), exec func(text string, args []any) (int64, error)) error {
		var after int64
		if events || db.dialect == "sqlite" {
			var err error
			if after, err = last(); err != nil {
				return fmt.Errorf("last key: %w", err)
			}
		}
		if err := insert(exec); err != nil {
			return err
		}
		if db.dialect == "sqlite" { // the full-text index, as the service writes it (writeSearchIndex)
			if _, err := exec(db.text["writeSearchNotes"], nil); err != nil {
				return fmt.Errorf("search index: %w", err)
			}
		}
		if db.dialect == "sqlite" { // the audit rows, as the service's triggers write them (PostgreSQL's write them for the floor too)
			if k, err := exec(db.text["accountAuditsAfter"], []any{floorOrg, ts, after}); err != nil || k != int64(n) {
				return fmt.Errorf("audits: %d rows for %d (%v)", k, n, err)
			}
		}
		if !events {
			return nil
		}
		k, err := record(after)
		if err != nil {
			return fmt.Errorf("events: %w", err)
		}
		if k != int64(n) {
			return fmt.Errorf("%d events for %d rows", k, n)
		}
		return nil
	}
	if db.pool != nil {
		return db.inPgxTx(ctx, func(tx pgx.Tx) error {
			exec := func(text string, args []any) (int64, error) {
				tag, err := tx.Exec(ctx, text, args...)
				return tag.RowsAffected(), err
			}
			return withEvents(func() (last int64, err error) {
				err = tx.QueryRow(ctx, db.text["lastAccount"]).Scan(&last)
				return last, err
			}, func(after int64) (int64, error) {
				return exec(db.text["accountEventsAfter"], []any{floorOrg, ts, after})
			}, exec)
		})
	}
	return db.inSQLiteTx(ctx, func(tx *sql.Tx) error {
		exec := func(text string, args []any) (int64, error) {
			res, err := tx.ExecContext(ctx, text, args...)
			if err != nil {
				return 0, err
			}
			return res.RowsAffected()
		}
		return withEvents(func() (last int64, err error) {
			err = tx.QueryRowContext(ctx, db.text["lastAccount"]).Scan(&last)
			return last, err
		}, func(after int64) (int64, error) {
			return exec(db.text["accountEventsAfter"], []any{floorOrg, ts, after})
		}, exec)
	})
}

// rawCopy writes the same rows with COPY (pgx CopyFrom) in one transaction;
// with events, then their change events with one INSERT ... SELECT of the
// rows past the largest key before them, as rawInsert does (issue 34's
// floor of the batch at the COPY rate: the rows and the events the service
// writes, in the fastest way PostgreSQL takes them).
func rawCopy(ctx context.Context, db *floorDB, prefix string, n int, events bool) error {
	return db.inPgxTx(ctx, func(tx pgx.Tx) error {
		ts := db.timeArg(time.Now())
		var after int64
		if events {
			if err := tx.QueryRow(ctx, db.text["lastAccount"]).Scan(&after); err != nil {
				return fmt.Errorf("last key: %w", err)
			}
		}
		copied, err := tx.CopyFrom(ctx, pgx.Identifier{"accounts"}, []string{"organization_id", "name", "created_at", "updated_at"},
			pgx.CopyFromSlice(n, func(i int) ([]any, error) {
				return []any{int64(floorOrg), prefix + " " + strconv.Itoa(i), ts, ts}, nil
			}))
		if err != nil {
			return fmt.Errorf("copy: %w", err)
		}
		if copied != int64(n) {
			return fmt.Errorf("copy wrote %d rows, want %d", copied, n)
		}
		if !events {
			return nil
		}
		tag, err := tx.Exec(ctx, db.text["accountEventsAfter"], floorOrg, ts, after)
		if err != nil {
			return fmt.Errorf("events: %w", err)
		}
		if tag.RowsAffected() != int64(n) {
			return fmt.Errorf("%d events for %d rows", tag.RowsAffected(), n)
		}
		return nil
	})
}
