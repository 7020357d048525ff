package cli

// End-to-end reliability of webhook deliveries (issue 19): two processes of
// the real binary on one PostgreSQL deliver the events of a batch to a
// receiver; one is killed with SIGKILL while deliveries are in flight, and
// still every event arrives at least once.

import (
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/entityapi/entityapi/server/webhook"
)

// killHooksSize is the number of accounts (and so of messages) of the test.
const killHooksSize = 3000

func TestKilledDuringWebhookDelivery(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: this test kills a real server process in the middle of webhook deliveries; make test runs it")
	}
	if os.Getenv("TEST_DATABASE_URL") == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("CI must set TEST_DATABASE_URL")
		}
		t.Skip("two processes need PostgreSQL: set TEST_DATABASE_URL")
	}
	bin := buildBinary(t)
	db := newKillTestDatabase(t, "postgres")

	var (
		mu     sync.Mutex
		secret string
		got    = map[string]int{}
		bad    []string
	)
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		payload, _ := io.ReadAll(r.Body)
		time.Sleep(5 * time.Millisecond) // deliveries stay in flight a moment
		id := r.Header.Get("webhook-id")
		var ts int64
		_ = json.Unmarshal([]byte(r.Header.Get("webhook-timestamp")), &ts)
		mu.Lock()
		defer mu.Unlock()
		want, err := webhook.Sign(secret, id, ts, payload)
		if err != nil || !strings.Contains(r.Header.Get("webhook-signature"), want) {
			bad = append(bad, id)
		}
		got[id]++
	}))
	defer rcv.Close()
	received := func() (int, int) {
		mu.Lock()
		defer mu.Unlock()
		attempts := 0
		for _, n := range got {
			attempts += n
		}
		return len(got), attempts
	}

	flags := []string{"--webhook-allow-http", "--webhook-allow-private", "--webhook-poll", "100ms",
		"--webhook-backoff", "200ms", "--webhook-timeout", "1s", "--workers", "8"}
	first := startService(t, bin, "first", db.args, flags...)
	second := startService(t, bin, "second", db.args, flags...)
	token := first.token(t)
	status, raw := first.request(t, http.MethodPost, "/admin/api/webhooks", token,
		[]byte(`{"data":{"type":"webhooks","attributes":{"url":"`+rcv.URL+`","eventTypes":["accounts.created"]}}}`), nil)
	if status != http.StatusCreated {
		t.Fatalf("create the webhook: %d %s", status, raw)
	}
	var created struct {
		Data struct {
			Meta struct {
				Secret string `json:"secret"`
			} `json:"meta"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &created); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	secret = created.Data.Meta.Secret
	mu.Unlock()

	status, raw = first.request(t, http.MethodPatch, "/admin/api/accounts", token, batchBody(killHooksSize), nil)
	if status != http.StatusAccepted {
		t.Fatalf("batch: status %d: %.300s", status, raw)
	}
	// Kill the first process once deliveries are flowing and far from done.
	deadline := time.Now().Add(60 * time.Second)
	for {
		if n, _ := received(); n >= killHooksSize/10 {
			break
		}
		if time.Now().After(deadline) {
			n, _ := received()
			t.Fatalf("only %d messages arrived in 60 s", n)
		}
		time.Sleep(5 * time.Millisecond)
	}
	first.kill(t)
	atKill, _ := received()
	t.Logf("killed the first process with %d of %d messages delivered; jobs: %s", atKill, killHooksSize, db.webhookJobStates(t))
	if atKill >= killHooksSize {
		t.Fatal("every message arrived before the kill: make the batch larger")
	}

	// The second process finishes: the dispatch and the deliveries the kill
	// cut off are rescued and run again.
	deadline = time.Now().Add(150 * time.Second)
	for {
		n, _ := received()
		if n >= killHooksSize {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d messages arrived; jobs: %s", n, killHooksSize, db.webhookJobStates(t))
		}
		time.Sleep(50 * time.Millisecond)
	}
	n, attempts := received()
	t.Logf("all %d messages arrived (%d deliveries); jobs: %s", n, attempts, db.webhookJobStates(t))
	_ = second
	mu.Lock()
	defer mu.Unlock()
	if len(bad) > 0 {
		t.Errorf("%d deliveries were not signed with the webhook's secret, such as %s", len(bad), bad[0])
	}
	for id := range got {
		if !strings.HasPrefix(id, "evt_") {
			t.Errorf("unexpected message %s", id)
		}
	}
}

// webhookJobStates counts the webhook jobs by state.
func (d *killTestDatabase) webhookJobStates(t *testing.T) string {
	t.Helper()
	var out []string
	d.query(t, `SELECT kind || ' ' || state || ': ' || count(*) FROM river_job WHERE kind LIKE 'webhook%' GROUP BY kind, state ORDER BY kind, state`,
		func(rows *sql.Rows) error {
			var s string
			if err := rows.Scan(&s); err != nil {
				return err
			}
			out = append(out, s)
			return nil
		})
	return strings.Join(out, ", ")
}
