package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// The batch benchmarks of docs/decisions.md §11: an asynchronous batch of
// benchRecords accounts through a real server (first byte sent to success)
// against a raw multi-row INSERT of the same rows into the same table. Both
// report records/s; scripts/benchratio prints their ratio per database (goal:
// 0.5 or better). An iteration takes seconds, and each one starts from a
// fresh migrated database outside the timer, so `make bench` runs them with
// -benchtime 1x:
//
//	go test ./server -run '^$' -bench '100k$' -benchtime 1x

const (
	benchRecords  = 100_000
	rawInsertRows = 1000 // rows per INSERT statement of BenchmarkRawInsert100k
	benchMainOrg  = 1    // the organization "Main" of createPrincipals
)

// benchBatchBody is a batch of n accounts named "<prefix> <i>", the request
// body of BenchmarkBatchAccounts100k.
func benchBatchBody(n int, prefix string) []byte {
	b := make([]byte, 0, n*(len(prefix)+56)+16)
	b = append(b, `{"data":[`...)
	for i := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"type":"accounts","attributes":{"name":"`...)
		b = append(b, prefix...)
		b = append(b, ' ')
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, `"}}`...)
	}
	return append(b, `]}`...)
}

// batchServer is a server as newAPI starts it (real HTTP on the loopback,
// workers on), for benchmarks, with the admin's token.
type batchServer struct {
	base   string
	token  string
	client *http.Client
	close  func()
}

func startBatchServer(b *testing.B, store *storage.Store) *batchServer {
	b.Helper()
	cfg := server.Config{BackofficeBase: "/admin", MaxBody: 64 << 10,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Jobs:   jobs.Config{Workers: runtime.NumCPU(), PollEvery: 100 * time.Millisecond}}
	srv, err := server.New(cfg, store)
	if err != nil {
		b.Fatalf("server.New: %v", err)
	}
	hs := httptest.NewServer(srv)
	tr := &http.Transport{MaxIdleConnsPerHost: 4}
	s := &batchServer{base: hs.URL, client: &http.Client{Transport: tr},
		close: func() { tr.CloseIdleConnections(); hs.Close(); srv.Close() }}
	createPrincipals(b, store)
	p := principalNamed(b, "admin")
	body := `{"grant_type":"client_credentials","client_id":"` + p.client + `","client_secret":"` + p.client + `-secret"}`
	res, err := s.client.Post(s.base+"/admin/oauth2-token", "application/json", strings.NewReader(body))
	if err != nil {
		s.close()
		b.Fatal(err)
	}
	defer res.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(res.Body).Decode(&tok); err != nil || res.StatusCode != http.StatusOK {
		s.close()
		b.Fatalf("token: status %d, %v", res.StatusCode, err)
	}
	s.token = tok.AccessToken
	return s
}

// send makes one JSON:API request and decodes the answer into v; it fails
// unless the status is want.
func (s *batchServer) send(b *testing.B, method, path string, body io.Reader, want int, v any) {
	req, err := http.NewRequest(method, s.base+path, body)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Accept", jsonAPIType)
	if body != nil {
		req.Header.Set("Content-Type", jsonAPIType)
	}
	req.Header.Set("Authorization", "Bearer "+s.token)
	res, err := s.client.Do(req)
	if err != nil {
		b.Fatalf("%s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode != want {
		b.Fatalf("%s %s: status %d (want %d), %v\n%.2000s", method, path, res.StatusCode, want, err, raw)
	}
	if err := json.Unmarshal(raw, v); err != nil {
		b.Fatalf("%s %s: %v\n%.2000s", method, path, err, raw)
	}
}

// benchOperation is the part of an asyncoperations document the benchmark reads.
type benchOperation struct {
	Data struct {
		ID         string `json:"id"`
		Attributes struct {
			Status  string `json:"status"`
			Summary *struct {
				ReadCount  int `json:"readCount"`
				WriteCount int `json:"writeCount"`
				ErrorCount int `json:"errorCount"`
			} `json:"summary"`
		} `json:"attributes"`
	} `json:"data"`
}

// batch sends body as an asynchronous accounts batch, polls the operation
// until it has ended, and returns it and how long the answer 202 took.
func (s *batchServer) batch(b *testing.B, body []byte) (*benchOperation, time.Duration) {
	start := time.Now()
	var op benchOperation
	s.send(b, http.MethodPatch, "/admin/api/accounts", bytes.NewReader(body), http.StatusAccepted, &op)
	accepted := time.Since(start)
	id := op.Data.ID
	deadline := time.Now().Add(30 * time.Minute)
	for {
		switch op.Data.Attributes.Status {
		case "success", "failed", "cancelled":
			return &op, accepted
		}
		if time.Now().After(deadline) {
			b.Fatalf("operation %s did not end: status %q", id, op.Data.Attributes.Status)
		}
		time.Sleep(10 * time.Millisecond) // benchhttp's pollOperation: the success is seen at most that late
		op = benchOperation{}
		s.send(b, http.MethodGet, "/admin/api/asyncoperations/"+id, nil, http.StatusOK, &op)
	}
}

// BenchmarkBatchAccounts100k: an asynchronous batch of 100,000 accounts on a
// server with runtime.NumCPU() workers, timed from the first byte sent to the
// operation's success.
func BenchmarkBatchAccounts100k(b *testing.B) {
	eachDialect(b, func(b *testing.B, dialect string) {
		iterations := 0
		var accepted time.Duration
		for b.Loop() {
			b.StopTimer()
			iterations++
			s := startBatchServer(b, storagetest.Open(b, dialect))
			body := benchBatchBody(benchRecords, "Batch "+strconv.Itoa(iterations))
			runtime.GC()
			b.StartTimer()

			op, upload := s.batch(b, body)

			b.StopTimer()
			accepted += upload
			s.close()
			sum := op.Data.Attributes.Summary
			if op.Data.Attributes.Status != "success" || sum == nil || sum.ReadCount != benchRecords ||
				sum.WriteCount != benchRecords || sum.ErrorCount != 0 {
				b.Fatalf("operation %s ended %q with summary %+v, want success with %d read and written",
					op.Data.ID, op.Data.Attributes.Status, sum, benchRecords)
			}
			b.StartTimer()
		}
		b.ReportMetric(float64(benchRecords*iterations)/b.Elapsed().Seconds(), "records/s")
		b.ReportMetric(accepted.Seconds()/float64(iterations), "s-to-202/op")
	})
}

// BenchmarkRawInsert100k: the rows BenchmarkBatchAccounts100k writes, with
// the columns it writes, inserted straight into accounts through the store's
// Bun DB: multi-row INSERTs of rawInsertRows rows in one transaction.
func BenchmarkRawInsert100k(b *testing.B) {
	eachDialect(b, func(b *testing.B, dialect string) {
		iterations := 0
		for b.Loop() {
			b.StopTimer()
			iterations++
			store := storagetest.Open(b, dialect)
			prefix := "Raw " + strconv.Itoa(iterations) + " "
			runtime.GC()
			b.StartTimer()

			rawInsertAccounts(b, store, prefix, benchRecords)

			b.StopTimer()
			var n int
			if err := store.DB().NewSelect().Table("accounts").ColumnExpr("count(*)").
				Where("name LIKE ?", prefix+"%").Scan(context.Background(), &n); err != nil || n != benchRecords {
				b.Fatalf("%d accounts inserted (want %d), %v", n, benchRecords, err)
			}
			b.StartTimer()
		}
		b.ReportMetric(float64(benchRecords*iterations)/b.Elapsed().Seconds(), "records/s")
	})
}

// rawInsertAccounts inserts n accounts named prefix+i in one transaction, as
// the batch writes them: organization, name, created_at and updated_at (the
// key comes from the database here; the batch reserves it first).
func rawInsertAccounts(b *testing.B, store *storage.Store, prefix string, n int) {
	ctx := context.Background()
	tx, err := store.DB().BeginTx(ctx, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	ts := time.Now().UTC().Truncate(time.Second)
	var sql strings.Builder
	args := make([]any, 0, 4*rawInsertRows)
	for start := 0; start < n; start += rawInsertRows {
		sql.Reset()
		args = args[:0]
		sql.WriteString("INSERT INTO accounts (organization_id, name, created_at, updated_at) VALUES ")
		for i := start; i < min(start+rawInsertRows, n); i++ {
			if i > start {
				sql.WriteString(", ")
			}
			sql.WriteString("(?, ?, ?, ?)")
			args = append(args, benchMainOrg, prefix+strconv.Itoa(i), ts, ts)
		}
		if _, err := tx.ExecContext(ctx, sql.String(), args...); err != nil {
			b.Fatalf("insert: %v", err)
		}
	}
	if err := tx.Commit(); err != nil {
		b.Fatal(err)
	}
}
