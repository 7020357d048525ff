package cli

// End-to-end reliability of batches (docs/decisions.md §11, "Nothing lost"): the
// binary is built and run as a real process, killed with SIGKILL in the middle
// of an asynchronous batch, started again on the same database, and the
// operation must end as if nothing had happened: every record written once.

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // driver "pgx" for the direct count
	_ "modernc.org/sqlite"             // driver "sqlite" for the direct count
)

const (
	// killBatchSize is the number of accounts of the killed batch: 200 chunks,
	// several seconds of work on either database, so that the kill lands while
	// chunks are still to do.
	killBatchSize = 20000
	// killNamePrefix marks the batch's accounts; the demo data has none.
	killNamePrefix = "R-"
	// restartTimeout bounds the wait for the operation after the restart: the
	// chunk that was running when the process died is retried only once the
	// new process is River's leader (the dead leader's term expires after
	// about 15 s) and its rescuer has run (--job-rescue-after 2s).
	restartTimeout = 90 * time.Second
	// killAtProgress is the progress (percent) after which the process is
	// killed.
	killAtProgress = 10
)

func TestKilledDuringBatch(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: this test kills real server processes in the middle of batches; make test runs it")
	}
	bin := buildBinary(t)
	for _, dialect := range killTestDialects(t) {
		t.Run(dialect, func(t *testing.T) {
			began := time.Now()
			db := newKillTestDatabase(t, dialect)
			// The first process: it takes the batch and dies in its middle.
			first := startService(t, bin, "first", db.args)
			token := first.token(t)
			body := batchBody(killBatchSize)
			var accepted struct {
				Data struct {
					ID     string `json:"id"`
					Type   string `json:"type"`
					Status string `json:"status"`
				} `json:"data"`
			}
			status, raw := first.request(t, http.MethodPatch, "/admin/api/accounts", token, body, nil)
			if status != http.StatusAccepted {
				t.Fatalf("batch: status %d, want 202: %.500s", status, raw)
			}
			if err := json.Unmarshal(raw, &accepted); err != nil || accepted.Data.ID == "" || accepted.Data.Type != "asyncoperations" {
				t.Fatalf("batch: unexpected answer (%v): %.500s", err, raw)
			}
			opPath := "/admin/api/asyncoperations/" + accepted.Data.ID
			t.Logf("operation %s accepted after %v", accepted.Data.ID, time.Since(began).Round(time.Millisecond))

			// Kill once a tenth of the chunks are done and a taken one is not:
			// River marks that chunk's job running, and its transaction is
			// open or about to be. Only the rescue of that job can finish the
			// batch. (Chunks that committed just before the kill may keep
			// running jobs too; their retry must change nothing.)
			deadline := time.Now().Add(30 * time.Second)
			for {
				op := first.operation(t, opPath, token)
				if op.Status == "running" && op.Progress != nil && *op.Progress >= killAtProgress {
					if *op.Progress >= 100 {
						t.Fatalf("the operation reached progress %v before it could be killed: make the batch larger", *op.Progress)
					}
					break
				}
				if op.Status != "new" && op.Status != "running" {
					t.Fatalf("the operation ended (%s) before it could be killed: make the batch larger", op.Status)
				}
				if time.Now().After(deadline) {
					t.Fatalf("the operation did not reach progress %v in 30 s: %s", killAtProgress, op.raw)
				}
				time.Sleep(20 * time.Millisecond)
			}
			deadline = time.Now().Add(10 * time.Second)
			for db.cutOff(t) == 0 && time.Now().Before(deadline) {
				time.Sleep(2 * time.Millisecond)
			}
			first.kill(t)
			before := db.count(t)
			cut := db.cutOff(t)
			t.Logf("killed after %v with %d accounts (%d distinct) written, %d chunks taken and unfinished; chunk jobs by state: %s",
				time.Since(began).Round(time.Millisecond), before.total, before.distinct, cut, db.jobStates(t))
			if before.total != before.distinct || before.total == 0 || before.total >= killBatchSize {
				t.Fatalf("at the kill: %d accounts, %d distinct names, want between 1 and %d, all distinct: make the batch larger",
					before.total, before.distinct, killBatchSize-1)
			}
			if cut == 0 {
				t.Log("the kill fell between chunks: this run retries only committed chunks")
			}

			// The second process, on the same database, finishes the batch.
			restarted := time.Now()
			second := startService(t, bin, "second", db.args)
			token = second.token(t)
			var final operationState
			deadline = time.Now().Add(restartTimeout)
			for {
				final = second.operation(t, opPath, token)
				if final.Status != "new" && final.Status != "running" {
					break
				}
				if time.Now().After(deadline) {
					progress := "null"
					if final.Progress != nil {
						progress = strconv.FormatFloat(*final.Progress, 'f', -1, 64)
					}
					c := db.count(t)
					t.Fatalf("the operation is still %s (progress %s) %v after the restart; %d accounts (%d distinct) written; %s",
						final.Status, progress, restartTimeout, c.total, c.distinct, db.unfinished(t))
				}
				time.Sleep(250 * time.Millisecond)
			}
			t.Logf("operation %s after %v from the restart (%v in all)", final.Status,
				time.Since(restarted).Round(time.Millisecond), time.Since(began).Round(time.Millisecond))

			if final.Status != "success" {
				t.Fatalf("operation ended %q, want success: %s", final.Status, final.raw)
			}
			if final.Progress == nil || *final.Progress != 100 {
				t.Errorf("progress %v, want 100", final.Progress)
			}
			s := final.Summary
			if s == nil {
				t.Fatalf("no summary on success: %s", final.raw)
			}
			if s.ReadCount != killBatchSize || s.WriteCount != killBatchSize || s.ErrorCount != 0 ||
				s.CreateCount != killBatchSize || s.UpdateCount != 0 {
				t.Errorf("summary %+v, want readCount = writeCount = createCount = %d, errorCount = updateCount = 0",
					*s, killBatchSize)
			}
			// The jobs the kill cut off may be retried after the operation
			// ended (their chunks had committed); a retry must change nothing.
			for {
				if states := db.jobStates(t); !unsettled(states) {
					t.Logf("chunk jobs settled %v after the restart: %s", time.Since(restarted).Round(time.Millisecond), states)
					break
				} else if time.Now().After(deadline) {
					t.Errorf("chunk jobs still unsettled %v after the restart: %s; %s", restartTimeout, states, db.unfinished(t))
					break
				}
				time.Sleep(250 * time.Millisecond)
			}
			if n := second.totalCount(t, token); n != killBatchSize {
				t.Errorf("the API counts %d accounts named %s*, want %d", n, killNamePrefix, killBatchSize)
			}
			c := db.count(t)
			if c.total != killBatchSize || c.distinct != killBatchSize {
				t.Errorf("the database holds %d accounts named %s* (%d distinct names), want %d, all distinct (lost: %d, duplicated: %d)",
					c.total, killNamePrefix, c.distinct, killBatchSize, killBatchSize-c.distinct, c.total-c.distinct)
			}
		})
	}
}

// mainPackage is the entityapi command: the main package at the module's
// root, which runs this package's Main.
const mainPackage = "github.com/entityapi/entityapi"

// buildBinary builds the entityapi binary of this source tree.
// killTestDialects are the databases a killed-process test runs on:
// SQLite, and PostgreSQL where TEST_DATABASE_URL names a server (which CI
// must).
func killTestDialects(t *testing.T) []string {
	t.Helper()
	if os.Getenv("CI") == "true" && os.Getenv("TEST_DATABASE_URL") == "" {
		t.Fatal("CI must set TEST_DATABASE_URL")
	}
	dialects := []string{"sqlite"}
	if os.Getenv("TEST_DATABASE_URL") != "" {
		dialects = append(dialects, "postgres")
	}
	return dialects
}

func buildBinary(t *testing.T) string {
	t.Helper()
	gotool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command is needed to build the binary: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "entityapi")
	cmd := exec.Command(gotool, "build", "-o", bin, mainPackage)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// killTestDatabase is the database both processes share, with a connection
// of the test's own to count what is in it, around the API.
type killTestDatabase struct {
	args    []string // the serve flags naming it
	dialect string
	db      *sql.DB
}

// newKillTestDatabase gives a fresh SQLite data directory, or a fresh
// PostgreSQL database on the server of TEST_DATABASE_URL dropped at the end
// (after the processes are gone: cleanups run last in, first out).
func newKillTestDatabase(t *testing.T, dialect string) *killTestDatabase {
	t.Helper()
	d := &killTestDatabase{dialect: dialect}
	var driver, source string
	switch dialect {
	case "sqlite":
		dir := t.TempDir()
		d.args = []string{"--data-dir", dir}
		driver, source = "sqlite", "file:"+filepath.Join(dir, "entityapi.db")+"?_pragma=busy_timeout(10000)"
	case "postgres":
		admin := os.Getenv("TEST_DATABASE_URL")
		u, err := url.Parse(admin)
		if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
			t.Fatalf("TEST_DATABASE_URL must be a postgres:// URL")
		}
		var b [6]byte
		_, _ = rand.Read(b[:])
		name := "entityapi_reliability_" + hex.EncodeToString(b[:])
		if err := adminExec(admin, "CREATE DATABASE "+name); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if err := adminExec(admin, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
				t.Error(err)
			}
		})
		u.Path = "/" + name
		d.args = []string{"--database-url", u.String()}
		driver, source = "pgx", u.String()
	default:
		t.Fatalf("unknown dialect %q", dialect)
	}
	db, err := sql.Open(driver, source)
	if err != nil {
		t.Fatalf("open the database: %v", err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	d.db = db
	return d
}

// adminExec runs one statement on the server of TEST_DATABASE_URL.
func adminExec(admin, stmt string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return fmt.Errorf("TEST_DATABASE_URL is unreachable: %w", err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(ctx, stmt); err != nil {
		return fmt.Errorf("%s: %w", stmt, err)
	}
	return nil
}

// query runs one query and hands each row to scan.
func (d *killTestDatabase) query(t *testing.T, q string, scan func(*sql.Rows) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rows, err := d.db.QueryContext(ctx, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	for rows.Next() {
		if err := scan(rows); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

type accountCount struct{ total, distinct int }

// count counts the batch's accounts and their distinct names.
func (d *killTestDatabase) count(t *testing.T) accountCount {
	t.Helper()
	var c accountCount
	d.query(t, "SELECT count(*), count(DISTINCT name) FROM accounts WHERE name LIKE '"+killNamePrefix+"%'",
		func(r *sql.Rows) error { return r.Scan(&c.total, &c.distinct) })
	return c
}

// chunkJoin joins River's chunk jobs (river_job, arguments ChunkJob) to the
// staged chunks they name.
func (d *killTestDatabase) chunkJoin() string {
	op, chunk := "json_extract(j.args, '$.operation')", "json_extract(j.args, '$.chunk')"
	if d.dialect == "postgres" {
		op, chunk = "(j.args->>'operation')::bigint", "(j.args->>'chunk')::int"
	}
	return "river_job j JOIN async_operation_chunks c ON c.operation_id = " + op + " AND c.number = " + chunk +
		" WHERE j.kind = 'batch_chunk'"
}

// cutOff counts the chunks taken (their job running) but not finished.
func (d *killTestDatabase) cutOff(t *testing.T) int {
	t.Helper()
	var n int
	d.query(t, "SELECT count(*) FROM "+d.chunkJoin()+" AND j.state = 'running' AND NOT c.done",
		func(r *sql.Rows) error { return r.Scan(&n) })
	return n
}

// unfinished describes the chunks not done and their jobs, for a failure.
func (d *killTestDatabase) unfinished(t *testing.T) string {
	t.Helper()
	var parts []string
	d.query(t, "SELECT c.number, j.state, j.attempt, j.attempted_at FROM "+d.chunkJoin()+
		" AND (NOT c.done OR j.state NOT IN ('completed', 'cancelled', 'discarded')) ORDER BY c.number, j.id",
		func(r *sql.Rows) error {
			var number, attempt int
			var state string
			var at sql.NullString
			if err := r.Scan(&number, &state, &attempt, &at); err != nil {
				return err
			}
			parts = append(parts, fmt.Sprintf("chunk %d: job %s, attempt %d, attempted at %s", number, state, attempt, at.String))
			return nil
		})
	var chunks, done int
	d.query(t, "SELECT count(*), count(CASE WHEN done THEN 1 END) FROM async_operation_chunks",
		func(r *sql.Rows) error { return r.Scan(&chunks, &done) })
	if len(parts) > 20 {
		parts = append(parts[:20], fmt.Sprintf("... %d more", len(parts)-20))
	}
	return fmt.Sprintf("%d of %d chunks done; chunks unfinished or with an unfinished job: [%s]", done, chunks, strings.Join(parts, "; "))
}

// jobStates lists River's chunk jobs by state ("available=198 running=2").
func (d *killTestDatabase) jobStates(t *testing.T) string {
	t.Helper()
	var parts []string
	d.query(t, "SELECT state, count(*) FROM river_job WHERE kind = 'batch_chunk' GROUP BY state ORDER BY state",
		func(r *sql.Rows) error {
			var state string
			var n int
			if err := r.Scan(&state, &n); err != nil {
				return err
			}
			parts = append(parts, fmt.Sprintf("%s=%d", state, n))
			return nil
		})
	return strings.Join(parts, " ")
}

// unsettled tells whether jobStates lists a job that may still run.
func unsettled(states string) bool {
	for _, part := range strings.Fields(states) {
		state, _, _ := strings.Cut(part, "=")
		if state != "completed" && state != "cancelled" && state != "discarded" {
			return true
		}
	}
	return false
}

func batchBody(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"data":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"type":"accounts","attributes":{"name":"%s%06d"}}`, killNamePrefix, i+1)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// service is one running `entityapi serve` process.
type service struct {
	name   string
	base   string
	cmd    *exec.Cmd
	out    *syncBuffer
	exited chan struct{} // closed when the process has ended
	client *http.Client
}

// startService starts the binary on a free port and waits until it answers;
// extra are more serve flags. A cleanup kills it and, when the test failed,
// logs its output.
func startService(t *testing.T, bin, name string, dbArgs []string, extra ...string) *service {
	t.Helper()
	addr := freeAddr(t)
	args := append([]string{"serve", "--demo", "--addr", addr, "--job-rescue-after", "2s", "--workers", "2"}, dbArgs...)
	args = append(args, extra...)
	cmd := exec.Command(bin, args...)
	// ENTITYAPI_* settings of the caller would change what is tested.
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ENTITYAPI_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	s := &service{name: name, base: "http://" + addr, cmd: cmd, out: &syncBuffer{}, exited: make(chan struct{}),
		client: &http.Client{Timeout: 60 * time.Second}}
	cmd.Stdout, cmd.Stderr = s.out, s.out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	go func() {
		_ = cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(func() {
		s.stop()
		if t.Failed() {
			t.Logf("output of the %s process (%s):\n%s", name, strings.Join(args, " "), s.out.String())
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-s.exited:
			t.Fatalf("the %s process ended at start: %v", name, cmd.ProcessState)
		default:
		}
		resp, err := s.client.Get(s.base + "/admin/api/openapi.yaml")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("the %s process does not answer on %s: %v", name, addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop kills the process (if it still runs) and waits for its end.
func (s *service) stop() {
	_ = s.cmd.Process.Kill()
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
	}
}

// kill ends the process with SIGKILL, as a crash would.
func (s *service) kill(t *testing.T) {
	t.Helper()
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatalf("kill %s: %v", s.name, err)
	}
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		t.Fatalf("the %s process did not end after SIGKILL", s.name)
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("find a free port: %v", err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// request sends one request and returns the status and the body.
func (s *service) request(t *testing.T, method, path, token string, body []byte, headers map[string]string) (int, []byte) {
	t.Helper()
	status, raw, _ := s.requestHeader(t, method, path, token, body, headers)
	return status, raw
}

func (s *service) requestHeader(t *testing.T, method, path, token string, body []byte, headers map[string]string) (int, []byte, http.Header) {
	t.Helper()
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, s.base+path, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/vnd.api+json")
	if body != nil {
		req.Header.Set("Content-Type", "application/vnd.api+json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s on the %s process: %v", method, path, s.name, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s on the %s process: %v", method, path, s.name, err)
	}
	return resp.StatusCode, raw, resp.Header
}

// token gets a back-office token of the demo administrator client.
func (s *service) token(t *testing.T) string {
	t.Helper()
	body := `{"grant_type":"client_credentials","client_id":"demo-backoffice","client_secret":"demo-backoffice-secret"}`
	req, err := http.NewRequest(http.MethodPost, s.base+"/admin/oauth2-token", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := s.client.Do(req)
	if err != nil {
		t.Fatalf("token from the %s process: %v", s.name, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if resp.StatusCode != http.StatusOK || json.Unmarshal(raw, &tok) != nil || tok.AccessToken == "" {
		t.Fatalf("token from the %s process: status %d: %.500s", s.name, resp.StatusCode, raw)
	}
	return tok.AccessToken
}

type operationSummary struct {
	ReadCount   int `json:"readCount"`
	WriteCount  int `json:"writeCount"`
	ErrorCount  int `json:"errorCount"`
	CreateCount int `json:"createCount"`
	UpdateCount int `json:"updateCount"`
}

type operationState struct {
	Status   string            `json:"status"`
	Progress *float64          `json:"progress"`
	Summary  *operationSummary `json:"summary"`
	raw      []byte
}

func (s *service) operation(t *testing.T, path, token string) operationState {
	t.Helper()
	status, raw := s.request(t, http.MethodGet, path, token, nil, nil)
	if status != http.StatusOK {
		t.Fatalf("GET %s: status %d: %.500s", path, status, raw)
	}
	var doc struct {
		Data struct {
			Attributes operationState `json:"attributes"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatalf("GET %s: %v: %.500s", path, err, raw)
	}
	doc.Data.Attributes.raw = raw
	return doc.Data.Attributes
}

// totalCount counts the batch's accounts through the API.
func (s *service) totalCount(t *testing.T, token string) int {
	t.Helper()
	path := "/admin/api/accounts?filter[name][starts_with]=" + url.QueryEscape(killNamePrefix) + "&page[size]=1"
	status, raw, h := s.requestHeader(t, http.MethodGet, path, token, nil, map[string]string{"X-Include": "totalCount"})
	if status != http.StatusOK {
		t.Fatalf("GET %s: status %d: %.500s", path, status, raw)
	}
	n, err := strconv.Atoi(h.Get("X-Include-Total-Count"))
	if err != nil {
		t.Fatalf("GET %s: X-Include-Total-Count %q", path, h.Get("X-Include-Total-Count"))
	}
	return n
}

// syncBuffer collects a process's output from its two streams.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
