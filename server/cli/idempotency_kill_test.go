package cli

// Idempotency-Key across processes and SIGKILL (docs/writes.md, "Safe
// retries"; docs/decisions.md §21): keyed creates and keyed synchronous
// batch uploads (one in four, of two accounts) are sent to a process that is
// killed while they run; each is then retried with its key through a second
// process on the same database, and every record must exist exactly once,
// each retry answering what its first request did (or would have).

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

const (
	// keyedCreates are the keyed creates sent to the killed process.
	keyedCreates = 160
	// keyedKillAfter is how many of them are answered before the kill.
	keyedKillAfter = 40
	// keyedPrefix marks their accounts; the demo data has none.
	keyedPrefix = "K-"
)

func TestKeyedWritesSurviveKill(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: this test kills a real server process; make test runs it")
	}
	dialects := killTestDialects(t)
	t.Parallel()
	bin := buildBinary(t)
	for _, dialect := range dialects {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			db := newKillTestDatabase(t, dialect)
			first := startService(t, bin, "first", db.args)
			token := first.token(t)
			type answer struct {
				status int
				id     string
			}
			var (
				mu       sync.Mutex
				answers  = map[int]answer{}
				answered atomic.Int32
				next     atomic.Int32
				wg       sync.WaitGroup
			)
			body := func(i int) []byte {
				if keyedUpload(i) {
					return []byte(fmt.Sprintf(`{"data":[{"type":"accounts","attributes":{"name":"%s%d-a"}},{"type":"accounts","attributes":{"name":"%s%d-b"}}]}`,
						keyedPrefix, i, keyedPrefix, i))
				}
				return []byte(fmt.Sprintf(`{"data":{"type":"accounts","attributes":{"name":"%s%d"}}}`, keyedPrefix, i))
			}
			want := 0
			for i := range keyedCreates {
				want += 1 + boolInt(keyedUpload(i))
			}
			client := &http.Client{Timeout: 10 * time.Second}
			for range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for {
						i := int(next.Add(1)) - 1
						if i >= keyedCreates {
							return
						}
						status, id, err := keyedCreate(client, first.base, token, i, body(i))
						if err != nil {
							continue // the process is gone: the retry tells
						}
						mu.Lock()
						answers[i] = answer{status, id}
						mu.Unlock()
						answered.Add(1)
					}
				}()
			}
			deadline := time.Now().Add(60 * time.Second)
			for answered.Load() < keyedKillAfter && time.Now().Before(deadline) {
				time.Sleep(time.Millisecond)
			}
			first.kill(t)
			wg.Wait()
			stored := db.countPrefix(t, keyedPrefix)
			t.Logf("killed with %d of %d requests answered and %d accounts stored", len(answers), keyedCreates, stored)
			if len(answers) >= keyedCreates {
				t.Fatalf("every request was answered before the kill: send more")
			}

			second := startService(t, bin, "second", db.args)
			token = second.token(t)
			var waited int
			for i := range keyedCreates {
				var status int
				var id string
				for try := 0; ; try++ {
					var err error
					status, id, err = keyedCreate(second.client, second.base, token, i, body(i))
					if err != nil {
						t.Fatalf("retry %d: %v", i, err)
					}
					if status != http.StatusConflict {
						break
					}
					// The first request's process died while it ran: its
					// transaction, and the key it held, end when the database
					// sees its connection close.
					if try == 0 {
						waited++
					}
					if try > 100 {
						t.Fatalf("retry %d: still 409 after 10 s", i)
					}
					time.Sleep(100 * time.Millisecond)
				}
				if status != keyedStatus(i) {
					t.Fatalf("retry %d: status %d", i, status)
				}
				if a, ok := answers[i]; ok && (a.status != keyedStatus(i) || a.id != id) {
					t.Errorf("request %d: first answered %d with id %s, its retry %s", i, a.status, a.id, id)
				}
			}
			total, distinct := db.countPrefix(t, keyedPrefix), db.countDistinctPrefix(t, keyedPrefix)
			// stored-answeredAccounts accounts committed without their
			// answer reaching the client (a retry replays them); the other
			// requests that reached the first process died before their
			// commit (a retry runs them, after a 409 while the database
			// still held the dead transaction's key: waited).
			answeredAccounts := 0
			for i := range answers {
				answeredAccounts += 1 + boolInt(keyedUpload(i))
			}
			t.Logf("retried every request: %d accounts had committed unanswered, %d requests met a 409 first", stored-answeredAccounts, waited)
			if total != want || distinct != want {
				t.Fatalf("%d accounts (%d names) after the retries, want each of the %d once", total, distinct, want)
			}
		})
	}
}

// keyedUpload tells whether request i is a synchronous batch upload (of
// two accounts) rather than a create.
func keyedUpload(i int) bool { return i%4 == 3 }

// keyedStatus is the success of request i.
func keyedStatus(i int) int {
	if keyedUpload(i) {
		return http.StatusOK
	}
	return http.StatusCreated
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// keyedCreate sends request i with its key and returns its status and the
// id of its (first) record; err when no answer came.
func keyedCreate(client *http.Client, base, token string, i int, body []byte) (int, string, error) {
	method := http.MethodPost
	if keyedUpload(i) {
		method = http.MethodPatch
	}
	req, err := http.NewRequest(method, base+"/admin/api/accounts", strings.NewReader(string(body)))
	if err != nil {
		return 0, "", err
	}
	req.Header.Set("Content-Type", "application/vnd.api+json")
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Idempotency-Key", fmt.Sprintf(`"kill-test-%d"`, i))
	if keyedUpload(i) {
		req.Header.Set("X-Mode", "sync")
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	var doc struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil && resp.StatusCode == keyedStatus(i) {
		return 0, "", errors.New("a success without its document")
	}
	var one struct {
		ID string `json:"id"`
	}
	var many []struct {
		ID string `json:"id"`
	}
	if json.Unmarshal(doc.Data, &many) == nil && len(many) > 0 {
		one.ID = many[0].ID
	} else {
		_ = json.Unmarshal(doc.Data, &one)
	}
	return resp.StatusCode, one.ID, nil
}

// countPrefix counts the accounts whose name starts with prefix.
func (d *killTestDatabase) countPrefix(t *testing.T, prefix string) int {
	t.Helper()
	var n int
	d.query(t, "SELECT count(*) FROM accounts WHERE name LIKE '"+prefix+"%'", func(r *sql.Rows) error { return r.Scan(&n) })
	return n
}

// countDistinctPrefix counts their distinct names.
func (d *killTestDatabase) countDistinctPrefix(t *testing.T, prefix string) int {
	t.Helper()
	var n int
	d.query(t, "SELECT count(DISTINCT name) FROM accounts WHERE name LIKE '"+prefix+"%'", func(r *sql.Rows) error { return r.Scan(&n) })
	return n
}
