package server_test

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// answerHits is how many reads the server answered from a kept answer.
func answerHits(t *testing.T, a *api) float64 {
	t.Helper()
	return readMetrics(t, a.base+"/metrics")["entityapi_answer_cache_hits_total"]
}

// execStore runs one statement on a's database as an operator would,
// outside the service.
func execStore(t *testing.T, a *api, stmt string) {
	t.Helper()
	if _, err := a.store.DB().ExecContext(context.Background(), stmt); err != nil {
		t.Fatalf("%s: %v", stmt, err)
	}
}

// TestKeptAnswers: a read of reference data is answered from memory the
// second time, byte for byte and header for header as the engine answered
// it; a change to the data, made in the database outside the service, is
// in the very next answer; only 200s of unconditional reads are kept.
func TestKeptAnswers(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		const path = "/admin/api/countries/DE?include=regions"
		first := a.do(http.MethodGet, path, jsonAPI, "").want(t, 200)
		hits := answerHits(t, a)
		second := a.do(http.MethodGet, path, jsonAPI, "").want(t, 200)
		if got := answerHits(t, a); got != hits+1 {
			t.Fatalf("the second read: %v kept answers served, want %v", got, hits+1)
		}
		if string(second.body) != string(first.body) {
			t.Errorf("the kept answer differs:\n%s\nthe engine's:\n%s", second.body, first.body)
		}
		for _, h := range []string{"Content-Type", "ETag", "Cache-Control", "Vary"} {
			if second.header.Get(h) != first.header.Get(h) {
				t.Errorf("%s: kept %q, the engine's %q", h, second.header.Get(h), first.header.Get(h))
			}
		}
		if second.header.Get("X-Request-ID") == first.header.Get("X-Request-ID") {
			t.Errorf("the kept answer repeats the first request's id %s", first.header.Get("X-Request-ID"))
		}

		// Freshness: the reference mark (a SQLite file's commit mark,
		// PostgreSQL's lease) spares the readings while nothing commits
		// (docs/answers.md); without it each request alone makes one. The
		// lease lapses for a moment every 50 ms, and a request then reads:
		// of 20 reads, at most half may.
		readings := func() float64 {
			return readMetrics(t, a.base+"/metrics")["entityapi_answer_cache_readings_total"]
		}
		for i := 0; a.store.Pooler() != storage.PoolerTransaction; i++ { // behind a pooler no lease is held
			if _, ok := a.store.ReferenceMark(); ok {
				break
			}
			if i == 500 {
				t.Fatal("the reference mark never held")
			}
			time.Sleep(10 * time.Millisecond)
		}
		before := readings()
		for range 20 {
			a.do(http.MethodGet, path, jsonAPI, "").want(t, 200)
		}
		if got := readings() - before; got > 10 && a.store.Pooler() != storage.PoolerTransaction {
			t.Errorf("20 kept reads, nothing committed: %v readings of the generation, want at most 10", got)
		}

		// A change outside the service, to the record and to one it
		// includes: the next read shows each.
		execStore(t, a, "UPDATE countries SET name_en = 'Changed Land' WHERE code = 'DE'")
		changed := a.do(http.MethodGet, path, jsonAPI, "").want(t, 200)
		if got := changed.value("data/attributes/name"); got != "Changed Land" {
			t.Fatalf("after the change the name is %v", got)
		}
		execStore(t, a, "UPDATE regions SET name_en = 'Changed Region' WHERE code = 'DE-BY'")
		if !strings.Contains(string(a.do(http.MethodGet, path, jsonAPI, "").want(t, 200).body), "Changed Region") {
			t.Errorf("after a change of an included region, the answer does not show it")
		}
		execStore(t, a, "DELETE FROM regions WHERE code = 'DE-BY'")
		if strings.Contains(string(a.do(http.MethodGet, path, jsonAPI, "").want(t, 200).body), "DE-BY") {
			t.Errorf("after its region was deleted, the answer still links it")
		}

		// Not kept: a 404, a read with If-Match, an organization's records.
		hits = answerHits(t, a)
		for range 2 {
			a.do(http.MethodGet, "/admin/api/countries/XX", jsonAPI, "").want(t, 404)
			a.do(http.MethodGet, path, withHeaders(jsonAPI, "If-Match", "*"), "").want(t, 200)
			a.do(http.MethodGet, "/admin/api/accounts", jsonAPI, "").want(t, 200)
		}
		if got := answerHits(t, a); got != hits {
			t.Errorf("%v kept answers served to 404s, reads with If-Match and accounts", got-hits)
		}
		// HEAD of a kept answer: its headers, no body.
		a.do(http.MethodGet, "/admin/api/regions?page[size]=10", jsonAPI, "").want(t, 200)
		head := a.do(http.MethodHead, "/admin/api/regions?page[size]=10", jsonAPI, "").want(t, 200)
		if len(head.body) != 0 || head.header.Get("ETag") == "" {
			t.Errorf("HEAD of a kept answer: %d bytes, ETag %q", len(head.body), head.header.Get("ETag"))
		}
	})
}

// TestKeptAnswersKeyedByWhatChangesThem: each input of an answer has its
// own kept answer: the format, the localization, X-Include, the host of the
// links, a guest or a client, the roles. A caller never gets an answer made
// for another input.
func TestKeptAnswersKeyedByWhatChangesThem(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		const path = "/api/countries/DE"
		sf := a.caller("storefront")
		reads := []struct {
			name    string
			who     *api
			headers map[string]string
			path    string
			want    string // in the body
		}{
			{"guest, JSON:API", a, guest, path, `"type":"countries"`},
			{"guest, plain", a, map[string]string{"Accept": "application/json", "Authorization": ""}, path, `"name":"Germany"`},
			{"guest, German", a, withHeaders(guest, "X-Localization-ID", "2"), path, "Deutschland"},
			{"guest, X-Include", a, withHeaders(guest, "X-Include", "totalCount"), "/api/countries?page[size]=1", `"type":"countries"`},
			{"storefront client", sf, map[string]string{"Accept": "application/vnd.api+json"}, path, `"type":"countries"`},
			{"back-office admin", a, jsonAPI, "/admin/api/userroles?page[size]=1", `"type":"userroles"`},
			{"back-office viewer", a.caller("viewer"), jsonAPI, "/admin/api/userroles?page[size]=1", `"type":"userroles"`},
		}
		first := make([]*result, len(reads))
		for i, r := range reads {
			first[i] = r.who.do(http.MethodGet, r.path, r.headers, "").want(t, 200)
			if !strings.Contains(string(first[i].body), r.want) {
				t.Errorf("%s: the answer lacks %s:\n%.400s", r.name, r.want, first[i].body)
			}
		}
		hits := answerHits(t, a)
		for i, r := range reads {
			again := r.who.do(http.MethodGet, r.path, r.headers, "").want(t, 200)
			if string(again.body) != string(first[i].body) || again.header.Get("ETag") != first[i].header.Get("ETag") ||
				again.header.Get("Cache-Control") != first[i].header.Get("Cache-Control") ||
				again.header.Get("X-Include-Total-Count") != first[i].header.Get("X-Include-Total-Count") {
				t.Errorf("%s: the second answer is not the first:\n%s %s\n%s %s", r.name,
					again.header, again.body, first[i].header, first[i].body)
			}
		}
		if got := answerHits(t, a); got != hits+float64(len(reads)) {
			t.Errorf("%v of %d second reads answered from memory", got-hits, len(reads))
		}
		// The links name the host the request came to: another host has
		// answers of its own.
		for _, host := range []string{"one.example", "two.example", "one.example"} {
			req, err := http.NewRequest(http.MethodGet, a.base+path, nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Host = host
			req.Header.Set("Accept", "application/vnd.api+json")
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			if !strings.Contains(string(body), "http://"+host+"/api/countries/DE") || strings.Count(string(body), ".example") != strings.Count(string(body), host) {
				t.Errorf("read through host %s: %s", host, body)
			}
		}
		// The storefront client's answer is private, the guest's public:
		// each kept with its own headers.
		wantCache(t, "a kept guest's answer", a.do(http.MethodGet, path, guest, "").want(t, 200), "public, max-age=60")
		wantCache(t, "a kept client's answer", sf.do(http.MethodGet, path, map[string]string{"Accept": "application/vnd.api+json"}, "").want(t, 200), "private, no-cache")
	})
}

// TestKeptAnswersBounded: --answer-cache bounds the memory of kept answers:
// a flood of distinct queries keeps at most that many bytes, and no answer
// over an eighth of it is kept; a negative size keeps none.
func TestKeptAnswersBounded(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			store := storagetest.Open(t, dialect)
			const size = 64 << 10
			a := newAPIWith(t, store, func(cfg *server.Config) { cfg.AnswerCache = size })
			for i := range 60 {
				a.do(http.MethodGet, "/admin/api/regions?page[size]=20&page[number]="+strconv.Itoa(i+1), jsonAPI, "").want(t, 200)
			}
			m := readMetrics(t, a.base+"/metrics")
			if b := m["entityapi_answer_cache_bytes"]; b <= 0 || b > size {
				t.Errorf("after 60 pages the kept answers take %v bytes, want some and at most %d", b, size)
			}
			if n := m["entityapi_answer_cache_answers"]; n <= 0 || n >= 60 {
				t.Errorf("%v answers kept of 60 of about 6 KiB each, in 64 KiB", n)
			}
			// A page larger than an eighth of the cache is not kept.
			a.do(http.MethodGet, "/admin/api/regions?page[size]=100", jsonAPI, "").want(t, 200)
			before := answerHits(t, a)
			a.do(http.MethodGet, "/admin/api/regions?page[size]=100", jsonAPI, "").want(t, 200)
			if answerHits(t, a) != before {
				t.Errorf("an answer over an eighth of the cache was kept")
			}

			off := startAPI(t, store, func(cfg *server.Config) { cfg.AnswerCache = -1 })
			off.do(http.MethodGet, "/admin/api/countries/DE", jsonAPI, "").want(t, 200)
			off.do(http.MethodGet, "/admin/api/countries/DE", jsonAPI, "").want(t, 200)
			if _, ok := readMetrics(t, off.base+"/metrics")["entityapi_answer_cache_hits_total"]; ok {
				t.Errorf("with the cache off, its metrics are still served")
			}
		})
	}
}

// requestIDs are the request ids of error documents, which differ from
// request to request.
var requestIDs = regexp.MustCompile(`"requestId":"[0-9a-f]+"`)

// TestKeptAnswersRevalidate: a read with If-None-Match is answered from the
// kept answer exactly as the engine answers it: a 304 with the same
// headers when the tag matches, the 200 when it does not, the engine's 400
// when the header is malformed. The engine's answers come from a second
// server on the same database that keeps none.
func TestKeptAnswersRevalidate(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			store := storagetest.Open(t, dialect)
			a := newAPI(t, store)
			engine := startAPI(t, store, func(cfg *server.Config) { cfg.AnswerCache = -1 })
			for _, c := range []struct {
				who     string
				path    string
				headers map[string]string
			}{
				{"admin", "/admin/api/countries/DE", jsonAPI},
				{"admin", "/admin/api/regions?page[size]=3", withHeaders(jsonAPI, "X-Include", "totalCount")},
				{"guest", "/api/countries/DE", guest},
			} {
				kept, direct := a.caller(c.who), engine.caller(c.who)
				if c.who == "guest" {
					kept, direct = a, engine
				}
				// Each server's links name its own address, and the tags of
				// its answers follow: each is asked with its own tag.
				keptTag := kept.do(http.MethodGet, c.path, c.headers, "").want(t, 200).header.Get("ETag")
				directTag := direct.do(http.MethodGet, c.path, c.headers, "").want(t, 200).header.Get("ETag")
				hits := answerHits(t, a)
				for _, inm := range []struct {
					value  string // %s: the server's tag
					status int
				}{{"%s", 304}, {"W/%s", 304}, {`"other", %s`, 304}, {"*", 304}, {`"other"`, 200}, {"not a tag", 400}} {
					header := func(tag string) map[string]string {
						v := inm.value
						if strings.Contains(v, "%s") {
							v = strings.Replace(v, "%s", tag, 1)
						}
						return withHeaders(c.headers, "If-None-Match", v)
					}
					got := kept.do(http.MethodGet, c.path, header(keptTag), "").want(t, inm.status)
					want := direct.do(http.MethodGet, c.path, header(directTag), "").want(t, inm.status)
					if requestIDs.ReplaceAllString(strings.ReplaceAll(string(got.body), a.base, ""), "") !=
						requestIDs.ReplaceAllString(strings.ReplaceAll(string(want.body), engine.base, ""), "") {
						t.Errorf("%s If-None-Match %s: kept\n%s\nthe engine's\n%s", c.path, inm.value, got.body, want.body)
					}
					if (got.header.Get("ETag") == keptTag) != (want.header.Get("ETag") == directTag) {
						t.Errorf("%s If-None-Match %s: ETag kept %q (of %q), the engine's %q (of %q)", c.path, inm.value,
							got.header.Get("ETag"), keptTag, want.header.Get("ETag"), directTag)
					}
					for _, name := range []string{"Content-Type", "Cache-Control", "Vary", "X-Include-Total-Count"} {
						if got.header.Get(name) != want.header.Get(name) {
							t.Errorf("%s If-None-Match %s: %s kept %q, the engine's %q", c.path, inm.value, name, got.header.Get(name), want.header.Get(name))
						}
					}
					if (got.header.Get("Content-Length") == "") != (want.header.Get("Content-Length") == "") {
						t.Errorf("%s If-None-Match %s: Content-Length kept %q, the engine's %q", c.path, inm.value,
							got.header.Get("Content-Length"), want.header.Get("Content-Length"))
					}
				}
				if got := answerHits(t, a); got != hits+5 {
					t.Errorf("%s: %v conditional reads answered from the kept answer, want 5 (not the malformed one)", c.path, got-hits)
				}
			}
		})
	}
}
