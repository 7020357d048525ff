package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestDatabaseOutage stops and starts a real PostgreSQL (a server of the
// test's own) under a stream of POSTs from four clients: every answer is a
// 201 or a 503 with Retry-After and an error document in the negotiated
// format (never a 500, never a 401 for the valid token); /readyz and the
// token endpoint answer 503 while it is down; the service recovers by
// itself; and every acknowledged write is stored.
func TestDatabaseOutage(t *testing.T) {
	t.Parallel()
	cluster := storagetest.NewCluster(t)
	ctx := context.Background()
	store := cluster.Store(t)
	a := newAPI(t, store)
	token := a.token("admin")

	var (
		created  sync.Map // id -> true, of every 201
		oks, bad atomic.Int64
		outages  atomic.Int64
		mu       sync.Mutex
		problems []string
		stop     = make(chan struct{})
		wg       sync.WaitGroup
	)
	fail := func(format string, args ...any) {
		bad.Add(1)
		mu.Lock()
		defer mu.Unlock()
		if len(problems) < 10 {
			problems = append(problems, fmt.Sprintf(format, args...))
		}
	}
	for w := range 4 {
		headers := jsonAPI
		if w%2 == 1 {
			headers = plain
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Timeout: 30 * time.Second}
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				body := fmt.Sprintf(`{"data":{"type":"accounts","attributes":{"name":"w%d-%d"}}}`, w, n)
				if headers["Accept"] == "application/json" {
					body = fmt.Sprintf(`{"name":"w%d-%d"}`, w, n)
				}
				req, _ := http.NewRequest(http.MethodPost, a.base+"/admin/api/accounts", strings.NewReader(body))
				for k, v := range headers {
					req.Header.Set(k, v)
				}
				req.Header.Set("Authorization", "Bearer "+token)
				res, err := client.Do(req)
				if err != nil {
					fail("POST: %v", err)
					continue
				}
				raw, _ := io.ReadAll(res.Body)
				res.Body.Close()
				switch res.StatusCode {
				case http.StatusCreated:
					var doc struct {
						ID   json.Number `json:"id"` // the plain format's
						Data struct{ ID string }
					}
					_ = json.Unmarshal(raw, &doc)
					id := doc.Data.ID
					if id == "" {
						id = doc.ID.String()
					}
					created.Store(id, true)
					oks.Add(1)
				case http.StatusServiceUnavailable:
					outages.Add(1)
					if res.Header.Get("Retry-After") == "" || !strings.Contains(string(raw), "service unavailable") ||
						!strings.HasPrefix(res.Header.Get("Content-Type"), headers["Accept"]) {
						fail("503 without Retry-After or its document (%s): %s", res.Header.Get("Content-Type"), raw)
					}
					time.Sleep(50 * time.Millisecond) // as a client honouring Retry-After would, briefly
				default:
					fail("POST answered %d: %s", res.StatusCode, raw)
				}
			}
		}()
	}
	waitFor := func(what string, cond func() bool) {
		t.Helper()
		for deadline := time.Now().Add(2 * time.Minute); !cond(); {
			if time.Now().After(deadline) {
				close(stop)
				wg.Wait()
				t.Fatalf("waited 2 minutes for %s", what)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitFor("writes before the outage", func() bool { return oks.Load() >= 40 })
	if err := cluster.Stop(); err != nil {
		t.Fatal(err)
	}
	waitFor("answers during the outage", func() bool { return outages.Load()+bad.Load() >= 8 })

	// While it is down: the probes, the token endpoint and a read.
	res, err := http.Get(a.base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable {
		t.Errorf("/readyz while the database is down = %d, want 503", res.StatusCode)
	}
	p := principalNamed(t, "admin")
	res, err = http.Post(a.base+"/admin/oauth2-token", "application/json", strings.NewReader(
		`{"grant_type":"client_credentials","client_id":"`+p.client+`","client_secret":"`+p.client+`-secret"}`))
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") == "" ||
		jsonField(raw, "error") != "temporarily_unavailable" {
		t.Errorf("token request while the database is down = %d (Retry-After %q): %s, want 503 temporarily_unavailable",
			res.StatusCode, res.Header.Get("Retry-After"), raw)
	}
	for _, h := range []map[string]string{jsonAPI, plain} {
		r := a.do(http.MethodGet, "/admin/api/accounts?page[size]=1", h, "")
		if r.status != http.StatusServiceUnavailable {
			t.Errorf("GET (%s) while the database is down = %d: %s", h["Accept"], r.status, r.body)
		} else if secs, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || secs <= 0 {
			t.Errorf("GET (%s) while down: Retry-After %q", h["Accept"], r.header.Get("Retry-After"))
		}
	}

	if err := cluster.Start(); err != nil {
		t.Fatal(err)
	}
	before := oks.Load()
	waitFor("writes after the restart", func() bool { return oks.Load() >= before+40 })
	close(stop)
	wg.Wait()

	mu.Lock()
	for _, p := range problems {
		t.Error(p)
	}
	mu.Unlock()
	if n := bad.Load(); n > 0 {
		t.Errorf("%d answers were neither 201 nor a proper 503", n)
	}
	var ids []any
	created.Range(func(k, _ any) bool {
		id, err := strconv.ParseInt(k.(string), 10, 64)
		if err != nil {
			t.Errorf("created id %q", k)
		}
		ids = append(ids, id)
		return true
	})
	n, err := store.Count(ctx, storage.Query{Table: storagetest.Table(t, store, "accounts"), Org: 1,
		Where: []storage.Cond{{Column: "id", Op: storage.Eq, Values: ids}}})
	if err != nil || n != len(ids) {
		t.Errorf("%d of %d acknowledged accounts are stored (%v)", n, len(ids), err)
	}
	t.Logf("%d created, %d answered 503 during the outage", len(ids), outages.Load())
	res, err = http.Get(a.base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Errorf("/readyz after the restart = %d, want 200", res.StatusCode)
	}
}
