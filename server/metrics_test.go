package server_test

import (
	"bufio"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// scrape is one reading of /metrics: series (name{labels}) to value.
type scrape map[string]float64

// series names one series as the text format writes it: labels sorted by name.
func series(name string, labels ...string) string {
	pairs := make([]string, 0, len(labels)/2)
	for i := 0; i+1 < len(labels); i += 2 {
		pairs = append(pairs, labels[i]+`="`+labels[i+1]+`"`)
	}
	sort.Strings(pairs)
	if len(pairs) == 0 {
		return name
	}
	return name + "{" + strings.Join(pairs, ",") + "}"
}

// readMetrics scrapes a server's /metrics (outside the OpenAPI documents:
// docs/decisions.md §2, so no contract check) and checks its media type.
func readMetrics(t *testing.T, url string) scrape {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK || !strings.HasPrefix(res.Header.Get("Content-Type"), "text/plain") {
		body, _ := io.ReadAll(res.Body)
		t.Fatalf("GET %s: %d %s\n%s", url, res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	out := scrape{}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

// awaitMetric scrapes until the series reaches want (counters of batch chunks
// move just after the operation's commit, which a client may see first).
func awaitMetric(t *testing.T, url, name string, want float64) scrape {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		m := readMetrics(t, url)
		if m[name] >= want || time.Now().After(deadline) {
			if m[name] != want {
				t.Errorf("%s = %v, want %v", name, m[name], want)
			}
			return m
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestMetricsRequests counts requests by route template, never by raw path,
// and times them; unmatched requests share one label.
func TestMetricsRequests(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		a.token("admin") // fetched before the first reading, so it is no difference
		guest := map[string]string{"Accept": "application/vnd.api+json", "Authorization": ""}
		cases := []struct {
			name, path string
			headers    map[string]string
			status     int
			want       string
		}{
			{"a record by id", "/admin/api/accounts/123", jsonAPI, 404,
				series("entityapi_http_requests_total", "app", "backoffice", "method", "GET", "route", "/admin/api/accounts/:id", "status", "404")},
			{"a list", "/admin/api/countries?page[size]=1", jsonAPI, 200,
				series("entityapi_http_requests_total", "app", "backoffice", "method", "GET", "route", "/admin/api/countries", "status", "200")},
			{"a storefront record as a guest", "/api/countries/DE", guest, 200,
				series("entityapi_http_requests_total", "app", "storefront", "method", "GET", "route", "/api/countries/:id", "status", "200")},
			{"an unknown path", "/nowhere/123", jsonAPI, 404,
				series("entityapi_http_requests_total", "app", "none", "method", "GET", "route", "unmatched", "status", "404")},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				before := readMetrics(t, a.base+"/metrics")
				a.do(http.MethodGet, tc.path, tc.headers, "").want(t, tc.status)
				after := readMetrics(t, a.base+"/metrics")
				if d := after[tc.want] - before[tc.want]; d != 1 {
					t.Errorf("%s moved by %v, want 1", tc.want, d)
				}
				hist := strings.Replace(tc.want, "entityapi_http_requests_total", "entityapi_http_request_duration_seconds_count", 1)
				if d := after[hist] - before[hist]; d != 1 {
					t.Errorf("%s moved by %v, want 1", hist, d)
				}
				for s := range after {
					if strings.Contains(s, "123") || strings.Contains(s, "/DE") || strings.Contains(s, "page[") {
						t.Errorf("a raw path reached a label: %s", s)
					}
				}
			})
		}
	})
}

// TestMetricsAuth moves the token and authentication failure counters.
func TestMetricsAuth(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		url := a.base + "/metrics"
		issued := series("entityapi_tokens_issued_total", "app", "backoffice", "grant", "client_credentials")
		before := readMetrics(t, url)
		a.token("admin")
		if d := readMetrics(t, url)[issued] - before[issued]; d != 1 {
			t.Errorf("%s moved by %v after a token, want 1", issued, d)
		}
		for _, tc := range []struct {
			name string
			send func() int
			want string
		}{
			{"a malformed bearer token", func() int {
				return a.do(http.MethodGet, "/admin/api/countries", map[string]string{"Authorization": "Bearer not-a-jwt"}, "").status
			}, series("entityapi_auth_failures_total", "source", "bearer", "reason", "malformed")},
			{"no token", func() int {
				return a.do(http.MethodGet, "/admin/api/countries", map[string]string{"Authorization": ""}, "").status
			}, series("entityapi_auth_failures_total", "source", "bearer", "reason", "missing_token")},
			{"a wrong client secret", func() int {
				res, err := http.Post(a.base+"/admin/oauth2-token", "application/json",
					strings.NewReader(`{"grant_type":"client_credentials","client_id":"test-admin","client_secret":"wrong"}`))
				if err != nil {
					t.Fatal(err)
				}
				res.Body.Close()
				return res.StatusCode
			}, series("entityapi_auth_failures_total", "source", "token_endpoint", "reason", "invalid_client")},
		} {
			t.Run(tc.name, func(t *testing.T) {
				before := readMetrics(t, url)
				if status := tc.send(); status != http.StatusUnauthorized {
					t.Fatalf("status %d, want 401", status)
				}
				if d := readMetrics(t, url)[tc.want] - before[tc.want]; d != 1 {
					t.Errorf("%s moved by %v, want 1", tc.want, d)
				}
			})
		}
	})
}

// TestMetricsBatch moves the chunk and item counters with an asynchronous and
// a synchronous batch, and shows operations by state, the job queue and the
// pool, all read at scrape time.
func TestMetricsBatch(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		url := a.base + "/metrics"
		m := readMetrics(t, url)
		for _, s := range []string{
			series("entityapi_batch_operations", "state", "success"), series("entityapi_batch_operations", "state", "staging"),
			series("entityapi_batch_jobs", "state", "available"), series("entityapi_batch_jobs", "state", "running"),
			series("entityapi_db_pool_connections", "state", "in_use"), series("entityapi_db_pool_connections", "state", "idle"),
			"entityapi_db_pool_max_connections", "entityapi_db_pool_waits_total", "entityapi_db_statements_total", "go_goroutines",
		} {
			if _, ok := m[s]; !ok {
				t.Errorf("no series %s", s)
			}
		}
		if m["entityapi_db_pool_max_connections"] <= 0 {
			t.Errorf("entityapi_db_pool_max_connections = %v", m["entityapi_db_pool_max_connections"])
		}
		success := series("entityapi_batch_operations", "state", "success")
		r := a.do(http.MethodPatch, "/admin/api/accounts", jsonAPI, batchAccounts(3, "Metric", 1)).want(t, 202)
		a.awaitOperation(t, get(r.doc, "data/id").(string))
		m = awaitMetric(t, url, series("entityapi_batch_chunks_processed_total", "type", "accounts", "mode", "async"), 1)
		for s, want := range map[string]float64{
			series("entityapi_batch_items_total", "type", "accounts", "result", "written"): 2,
			series("entityapi_batch_items_total", "type", "accounts", "result", "failed"):  1,
			success: 1,
		} {
			if m[s] != want {
				t.Errorf("%s = %v, want %v", s, m[s], want)
			}
		}

		sync := map[string]string{"Accept": "application/vnd.api+json", "Content-Type": "application/vnd.api+json", "X-Mode": "sync"}
		a.do(http.MethodPatch, "/admin/api/accounts", sync, batchAccounts(2, "Synced")).want(t, 200)
		m = awaitMetric(t, url, series("entityapi_batch_chunks_processed_total", "type", "accounts", "mode", "sync"), 1)
		if s := series("entityapi_batch_items_total", "type", "accounts", "result", "written"); m[s] != 4 {
			t.Errorf("%s = %v after the sync batch, want 4", s, m[s])
		}
	})
}

// TestMetricsSeparateAddress leaves /metrics out of the main handler with
// SeparateMetrics (--metrics-addr): 404 there, served by MetricsHandler.
func TestMetricsSeparateAddress(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			srv, err := server.New(server.Config{BackofficeBase: "/admin", SeparateMetrics: true,
				Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, storagetest.Open(t, dialect))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(srv.Close)
			main := httptest.NewServer(srv)
			t.Cleanup(main.Close)
			metrics := httptest.NewServer(srv.MetricsHandler())
			t.Cleanup(metrics.Close)
			res, err := http.Get(main.URL + "/metrics")
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusNotFound {
				t.Errorf("/metrics on the main address: %d, want 404", res.StatusCode)
			}
			m := readMetrics(t, metrics.URL+"/metrics")
			if s := series("entityapi_http_requests_total", "app", "none", "method", "GET", "route", "unmatched", "status", "404"); m[s] != 1 {
				t.Errorf("%s = %v, want 1 (the refused /metrics)", s, m[s])
			}
		})
	}
}

// TestMetricsMadeUpMethods: requests with methods of the client's own
// invention are counted under one method label, OTHER, whatever route they
// reach, so that a caller cannot add a series per request (each would stay
// in memory and in every scrape for the life of the process).
func TestMetricsMadeUpMethods(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		const sent = 40
		for path, status := range map[string]int{"/admin/api/countries": http.StatusMethodNotAllowed, "/nowhere/at/all": http.StatusNotFound} {
			t.Run(path, func(t *testing.T) {
				before := readMetrics(t, a.base+"/metrics")
				for i := range sent {
					a.do(fmt.Sprintf("MADEUP%d", i), path, jsonAPI, "").want(t, status)
				}
				after := readMetrics(t, a.base+"/metrics")
				moved := 0.0
				for s, v := range after {
					if !strings.HasPrefix(s, "entityapi_http_requests_total{") {
						continue
					}
					if strings.Contains(s, "MADEUP") {
						t.Fatalf("a made-up method became a label: %s", s)
					}
					if strings.Contains(s, `method="OTHER"`) {
						moved += v - before[s]
					}
				}
				if moved != sent {
					t.Errorf("the OTHER series moved by %v, want %d", moved, sent)
				}
			})
		}
	})
}
