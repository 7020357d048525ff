package server_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// keyed is the JSON:API headers with an Idempotency-Key.
func keyed(key string) map[string]string { return keyedWith(jsonAPI, key) }

// idempotencyRows counts the keys kept in the database.
func (a *api) idempotencyRows(t *testing.T) int {
	t.Helper()
	n, err := a.store.DB().NewSelect().Table("idempotency_keys").Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return int(n)
}

// sameAnswer fails unless a retry's answer is the first one: its status,
// kept headers and body, byte for byte.
func sameAnswer(t *testing.T, first, retry *result) {
	t.Helper()
	if retry.status != first.status || string(retry.body) != string(first.body) {
		t.Fatalf("retry answered %d\n%s\nwant the first answer, %d\n%s", retry.status, retry.body, first.status, first.body)
	}
	for _, h := range []string{"Location", "ETag", "Content-Type"} {
		if retry.header.Get(h) != first.header.Get(h) {
			t.Errorf("retry's %s is %q, the first answer's %q", h, retry.header.Get(h), first.header.Get(h))
		}
	}
}

// TestIdempotencyKeyReplaysEveryWrite: a retry of each kind of keyed write
// (create, update, delete, delete by filter, relationship writes, atomic
// operations; JSON:API and plain) gets the first answer again, with no
// second write and no second change event.
func TestIdempotencyKeyReplaysEveryWrite(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		acct := a.createAccount(t, "Keyed Parent")
		contact := a.do(http.MethodPost, "/admin/api/contacts", jsonAPI,
			`{"data":{"type":"contacts","attributes":{"firstName":"Kay","lastName":"Keyed"}}}`).want(t, 201).value("data/id").(string)
		steps := []struct {
			name, method, path string
			headers            map[string]string
			body               string
			status             int
		}{
			{"create", http.MethodPost, "/admin/api/accounts", nil, `{"data":{"type":"accounts","attributes":{"name":"Keyed Create"}}}`, 201},
			{"create plain", http.MethodPost, "/admin/api/weightunits", plain, `{"id":"keyed-plain"}`, 201},
			{"update", http.MethodPatch, "/admin/api/accounts/" + acct, nil, `{"data":{"type":"accounts","id":"` + acct + `","attributes":{"name":"Keyed Update"}}}`, 200},
			{"add to a relationship", http.MethodPost, "/admin/api/accounts/" + acct + "/relationships/contacts", nil, `{"data":[{"type":"contacts","id":"` + contact + `"}]}`, 204},
			{"replace a relationship", http.MethodPatch, "/admin/api/contacts/" + contact + "/relationships/accounts", nil, `{"data":[{"type":"accounts","id":"` + acct + `"}]}`, 204},
			{"atomic", http.MethodPost, "/admin/api/operations", atomicHeaders, `{"atomic:operations":[{"op":"add","data":{"type":"weightunits","id":"keyed-atomic"}}]}`, 200},
			{"delete", http.MethodDelete, "/admin/api/weightunits/keyed-plain", nil, "", 204},
			{"delete by filter", http.MethodDelete, "/admin/api/weightunits?filter[id]=keyed-atomic", nil, "", 204},
		}
		for i, s := range steps {
			headers := map[string]string{}
			for k, v := range jsonAPI {
				headers[k] = v
			}
			for k, v := range s.headers {
				headers[k] = v
			}
			headers["Idempotency-Key"] = `"step-` + string(rune('a'+i)) + `"`
			events, accounts := a.eventCount(t), a.count("/admin/api/accounts")
			first := a.do(s.method, s.path, headers, s.body).want(t, s.status)
			eventsAfter, accountsAfter := a.eventCount(t), a.count("/admin/api/accounts")
			if eventsAfter == events {
				t.Fatalf("%s: the first request recorded no change event", s.name)
			}
			for retry := 0; retry < 2; retry++ {
				sameAnswer(t, first, a.do(s.method, s.path, headers, s.body))
			}
			if n := a.eventCount(t); n != eventsAfter {
				t.Errorf("%s: the retries recorded %d more change events", s.name, n-eventsAfter)
			}
			if n := a.count("/admin/api/accounts"); n != accountsAfter || (s.name == "create" && n != accounts+1) {
				t.Errorf("%s: %d accounts after the retries, %d before them, %d before the first", s.name, n, accountsAfter, accounts)
			}
		}
	})
}

// TestIdempotencyKeyStandsForOneRequest: the same key with another request
// (body, address, method, format) is a 422 that writes nothing; keys belong
// to their caller, so another caller's key of the same text is its own.
func TestIdempotencyKeyStandsForOneRequest(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		h := keyed(`"one-request"`)
		a.do(http.MethodPost, "/admin/api/weightunits", h, `{"data":{"type":"weightunits","id":"first","attributes":{"conversionRates":{"kg":1}}}}`).want(t, 201)
		before := a.count("/admin/api/weightunits?page[size]=100")
		for _, tc := range []struct {
			name, method, path string
			headers            map[string]string
			body               string
		}{
			{"another body", http.MethodPost, "/admin/api/weightunits", h, `{"data":{"type":"weightunits","id":"second","attributes":{"conversionRates":{"kg":2}}}}`},
			{"another address", http.MethodPost, "/admin/api/accounts", h, `{"data":{"type":"accounts","attributes":{"name":"Elsewhere"}}}`},
			{"another method", http.MethodDelete, "/admin/api/weightunits/first", h, ""},
			{"another format", http.MethodPost, "/admin/api/weightunits", map[string]string{"Idempotency-Key": `"one-request"`, "Accept": "application/json", "Content-Type": "application/json"},
				`{"id":"first","conversionRates":{"kg":1}}`},
		} {
			r := a.do(tc.method, tc.path, tc.headers, tc.body).want(t, 422)
			if got := r.value("errors/0/source/header"); got != nil && got != "Idempotency-Key" {
				t.Errorf("%s: the 422 points at %v", tc.name, got)
			}
			if r.doc != nil && r.value("errors/0/title") != "Idempotency-Key is already used" {
				t.Errorf("%s: %s", tc.name, r.body)
			}
		}
		if n := a.count("/admin/api/weightunits?page[size]=100"); n != before {
			t.Errorf("the refused requests wrote: %d weight units, %d before", n, before)
		}
		a.do(http.MethodGet, "/admin/api/weightunits/first", jsonAPI, "").want(t, 200)
		// Another user of the organization, and another organization: the
		// same text is their own key.
		a.caller("manager").do(http.MethodPost, "/admin/api/weightunits", h, `{"data":{"type":"weightunits","id":"second","attributes":{}}}`).want(t, 201)
		a.caller("elsewhere-admin").do(http.MethodPost, "/admin/api/weightunits", h, `{"data":{"type":"weightunits","id":"elsewhere-first","attributes":{"conversionRates":{"kg":1}}}}`).want(t, 201)
	})
}

// TestIdempotencyKeyKeepsRefusals: a refused write (a 4xx) keeps its
// answer, which a retry gets even when the request would now succeed; a
// conflict of the moment (409) keeps nothing, and its retry runs again.
func TestIdempotencyKeyKeepsRefusals(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		h := keyed("refused-1")
		body := `{"data":{"type":"accounts","attributes":{"name":"Owned"},"relationships":{"owner":{"data":{"type":"users","id":"999999"}}}}}`
		first := a.do(http.MethodPost, "/admin/api/accounts", h, body).want(t, 404)
		again := a.do(http.MethodPost, "/admin/api/accounts", h, body).want(t, 404)
		// The same document, but for the request id it names: the retry's
		// own, as its X-Request-ID (the contract check holds them equal).
		firstID, againID := requestIDOf(first), requestIDOf(again)
		if firstID == "" || againID == firstID ||
			strings.Replace(string(first.body), firstID, againID, 1) != string(again.body) {
			t.Errorf("the refusal's retry answered\n%s\nthe first\n%s", again.body, first.body)
		}

		a.do(http.MethodPost, "/admin/api/weightunits", jsonAPI, `{"data":{"type":"weightunits","id":"taken"}}`).want(t, 201)
		h = keyed("conflict-1")
		clash := `{"data":{"type":"weightunits","id":"taken","attributes":{"conversionRates":{"kg":3}}}}`
		a.do(http.MethodPost, "/admin/api/weightunits", h, clash).want(t, 409)
		a.do(http.MethodDelete, "/admin/api/weightunits/taken", jsonAPI, "").want(t, 204)
		created := a.do(http.MethodPost, "/admin/api/weightunits", h, clash).want(t, 201)
		sameAnswer(t, created, a.do(http.MethodPost, "/admin/api/weightunits", h, clash))
	})
}

// requestIDOf is the request id an error document names.
func requestIDOf(r *result) string {
	s, _ := r.value("meta/requestId").(string)
	return s
}

// TestIdempotencyKeyWhileTheFirstRuns: a retry while the first request runs
// is a 409 with Retry-After, whatever its body (the first's is not known
// until it commits); on PostgreSQL through a second server too, as from
// another process (SQLite runs in one process). Once the first commits, a
// retry gets its answer, through the other server as well: as it would
// after the first process died between its commit and its answer.
func TestIdempotencyKeyWhileTheFirstRuns(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		other := startAPI(t, a.store, nil) // a second process on the same database
		// Tokens first: nothing below may wait for SQLite's one writer,
		// which the held request keeps.
		a.token(a.as)
		other.token(other.as)
		retryVia := []*api{a}
		if a.store.Dialect() == "postgres" {
			retryVia = append(retryVia, other)
		}
		hold := &server.KeyedHold{Written: make(chan struct{}), Release: make(chan struct{})}
		a.srv.HoldKeyedWrites(hold)
		h := keyed(`"running"`)
		body := `{"data":{"type":"accounts","attributes":{"name":"Slow"}}}`
		done := make(chan int, 1)
		go func() {
			done <- a.raw(http.MethodPost, "/admin/api/accounts", body, "Idempotency-Key", `"running"`)
		}()
		select {
		case <-hold.Written:
		case status := <-done:
			t.Fatalf("the first request answered %d before it wrote", status)
		}
		for _, via := range retryVia {
			for _, b := range []string{body, `{"data":{"type":"accounts","attributes":{"name":"Other"}}}`} {
				running := via.do(http.MethodPost, "/admin/api/accounts", h, b).want(t, 409)
				if running.header.Get("Retry-After") == "" || running.value("errors/0/source/header") != "Idempotency-Key" {
					t.Errorf("the 409 of a running key: Retry-After %q, %s", running.header.Get("Retry-After"), running.body)
				}
			}
		}
		a.srv.HoldKeyedWrites(nil)
		close(hold.Release)
		if status := <-done; status != 201 {
			t.Fatalf("the first request answered %d", status)
		}
		retry := other.do(http.MethodPost, "/admin/api/accounts", h, body).want(t, 201)
		other.do(http.MethodPost, "/admin/api/accounts", h, `{"data":{"type":"accounts","attributes":{"name":"Other"}}}`).want(t, 422)
		if n := a.count("/admin/api/accounts?filter[name]=Slow"); n != 1 {
			t.Errorf("%d accounts named Slow, want 1", n)
		}
		if retry.value("data/attributes/name") != "Slow" {
			t.Errorf("the retry's answer: %s", retry.body)
		}
	})
}

// TestIdempotencyKeyBounds: the header's syntax and its length; reads
// ignore it.
func TestIdempotencyKeyBounds(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		create := func(key, id string) *result {
			return a.do(http.MethodPost, "/admin/api/weightunits", keyed(key), `{"data":{"type":"weightunits","id":"`+id+`","attributes":{"conversionRates":{"kg":1}}}}`)
		}
		for _, key := range []string{`"`, `"open`, `"a"b"`, `"\n"`, `""`, "two words", `"` + strings.Repeat("k", 256) + `"`, `"tab	"`} {
			r := create(key, "never").want(t, 400)
			if r.value("errors/0/source/header") != "Idempotency-Key" {
				t.Errorf("%q: %s", key, r.body)
			}
		}
		create(`"a \"quoted\" key \\ with escapes"`, "escaped").want(t, 201)
		create(strings.Repeat("k", 255), "longest").want(t, 201)
		create("bare-key_1.2~x", "bare").want(t, 201)
		// The same key quoted or bare is one key.
		create(`"bare-key_1.2~x"`, "bare").want(t, 201)
		// Reads ignore it.
		a.do(http.MethodGet, "/admin/api/weightunits/bare", keyed("read"), "").want(t, 200)
	})
}

// TestIdempotencyKeyLimits: a caller's live keys are bounded (429), a key
// expires with its lifetime (a retry then runs again) and the housekeeping
// deletes expired keys; an answer larger than a key keeps is a 422 that
// writes nothing.
func TestIdempotencyKeyLimits(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			store := storagetest.Open(t, dialect)
			a := newAPIWith(t, store, func(c *server.Config) { c.Idempotency.MaxKeys = 2 })
			post := func(a *api, key, id string) *result {
				// No conversionRates: a manager posts it too, who may not set them.
				return a.do(http.MethodPost, "/admin/api/weightunits", keyed(key), `{"data":{"type":"weightunits","id":"`+id+`","attributes":{}}}`)
			}
			post(a, "k1", "u1").want(t, 201)
			post(a, "k2", "u2").want(t, 201)
			post(a, "k3", "u3").want(t, 429)
			post(a, "k1", "u1").want(t, 201) // a retry of a held key is not a new key
			post(a.caller("manager"), "k3", "u3").want(t, 201)
			a.do(http.MethodGet, "/admin/api/weightunits/u3", jsonAPI, "").want(t, 200)

			small := startAPI(t, store, func(c *server.Config) { c.Idempotency.MaxAnswer = 100 })
			r := post(small, "big", "big").want(t, 422)
			if r.value("errors/0/source/header") != "Idempotency-Key" {
				t.Errorf("an answer over the kept size: %s", r.body)
			}
			a.do(http.MethodGet, "/admin/api/weightunits/big", jsonAPI, "").want(t, 404)

			// A lifetime so short that every key has expired by its retry.
			short := startAPI(t, store, func(c *server.Config) { c.Idempotency.TTL = time.Nanosecond })
			post(short.caller("manager"), "again", "e1").want(t, 201)
			post(short.caller("manager"), "again", "e1").want(t, 409) // ran again: the record exists
			post(short.caller("manager"), "gone", "e2").want(t, 201)
			rows := a.idempotencyRows(t)
			if err := a.srv.Maintain(context.Background()); err != nil {
				t.Fatal(err)
			}
			if n := a.idempotencyRows(t); n >= rows {
				t.Errorf("the housekeeping left %d of %d keys, the expired ones among them", n, rows)
			}
		})
	}
}
