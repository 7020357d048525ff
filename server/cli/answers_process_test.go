package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestKeptAnswersAcrossProcesses (issue 34; docs/answers.md): two
// processes serve one database and keep the answers of reference data in
// memory; while readers keep both busy, the data changes in the database
// again and again (as a migration of a third process or an operator would
// change it: the API writes no reference data). After each change has
// committed, the next read through either process shows it: no kept answer
// is served after a change it does not show.
func TestKeptAnswersAcrossProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: this test runs two server processes; make test runs it")
	}
	bin := buildBinary(t)
	for _, dialect := range killTestDialects(t) {
		t.Run(dialect, func(t *testing.T) {
			db := newKillTestDatabase(t, dialect)
			first := startService(t, bin, "first", db.args)
			second := startService(t, bin, "second", db.args)
			processes := []*service{first, second}
			const path = "/api/countries/DE"
			nameOf := func(s *service) string {
				t.Helper()
				status, raw := s.request(t, http.MethodGet, path, "", nil, nil)
				var doc struct {
					Data struct {
						Attributes struct {
							Name string `json:"name"`
						} `json:"attributes"`
					} `json:"data"`
				}
				if status != http.StatusOK || json.Unmarshal(raw, &doc) != nil {
					t.Fatalf("GET %s on the %s process: %d %.300s", path, s.name, status, raw)
				}
				return doc.Data.Attributes.Name
			}
			// Readers keep both processes serving kept answers meanwhile.
			ctx, stop := context.WithCancel(context.Background())
			var readers sync.WaitGroup
			var served atomic.Int64
			for _, s := range processes {
				for range 4 {
					readers.Add(1)
					go func() {
						defer readers.Done()
						for ctx.Err() == nil {
							req, _ := http.NewRequestWithContext(ctx, http.MethodGet, s.base+path, nil)
							req.Header.Set("Accept", "application/vnd.api+json")
							if res, err := s.client.Do(req); err == nil {
								res.Body.Close()
								served.Add(1)
							}
						}
					}()
				}
			}
			defer func() { stop(); readers.Wait() }()
			for i := range 20 {
				name := "Germany " + strconv.Itoa(i)
				db.exec(t, "UPDATE countries SET name_en = '"+name+"' WHERE code = 'DE'")
				for _, s := range processes {
					if got := nameOf(s); got != name {
						t.Fatalf("change %d: the %s process answers %q after %q committed", i, s.name, got, name)
					}
				}
				time.Sleep(20 * time.Millisecond) // let the readers fill the caches again
			}
			stop()
			readers.Wait()
			if served.Load() < 100 {
				t.Errorf("the readers were served %d answers in all", served.Load())
			}
			// Both kept answers meanwhile: the test did not pass by reading
			// the database every time.
			for _, s := range processes {
				_, raw := s.request(t, http.MethodGet, "/metrics", "", nil, map[string]string{"Accept": "text/plain"})
				if hits := metricOf(string(raw), "entityapi_answer_cache_hits_total"); hits < 10 {
					t.Errorf("the %s process served %v kept answers", s.name, hits)
				}
			}
		})
	}
}

// exec runs one statement on the shared database, as an operator would.
func (d *killTestDatabase) exec(t *testing.T, stmt string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := d.db.ExecContext(ctx, stmt); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

// metricOf is the value of an unlabelled series in a /metrics text, 0 when
// it has none.
func metricOf(text, name string) float64 {
	for _, line := range strings.Split(text, "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, _ := strconv.ParseFloat(v, 64)
			return f
		}
	}
	return 0
}
