package server_test

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// The benchmarks measure the service as docs/decisions.md §11 asks: each one runs as
// the sub-benchmarks "sqlite" and (with TEST_DATABASE_URL) "postgres", on a
// fresh migrated store. Most call the handler directly with a recorder, so the
// figure is the service's and not the loopback stack's; the *HTTP variants go
// through a real server and a keep-alive client to give the loopback figure.
// BenchmarkBareHandler is the ceiling: a handler writing the GetOne bytes
// (BenchmarkBareHandlerList and BenchmarkBareHandlerContacts likewise for
// BenchmarkGetList and BenchmarkContactsInclude).
// Run them with: go test ./server -run '^$' -bench . -benchmem

const (
	benchHost = "http://bench.test"
	benchOne  = "/admin/api/countries/US"
	benchList = "/admin/api/countries?page[size]=10"
	// benchRegions is make bench-http's list target: a page whose records
	// have no to-many relationship, so one statement.
	benchRegions = "/admin/api/regions?page[size]=10"
	jsonAPIType  = "application/vnd.api+json"

	// On seedCRM's data (benchUsers, benchAccounts, benchContacts): a page of
	// contacts with their accounts (through the join table) and owners, and
	// a filtered list sorted on two fields.
	benchContactsInclude = "/admin/api/contacts?include=accounts,owner&page[size]=50"
	benchFiltered        = "/admin/api/contacts?filter[lastName][starts_with]=L&sort=-createdAt,lastName&page[size]=20"
	benchUsers           = 10
	benchAccounts        = 50
	benchContacts        = 200
)

// eachDialect runs fn as one sub-benchmark per test database.
func eachDialect(b *testing.B, fn func(b *testing.B, dialect string)) {
	for _, dialect := range storagetest.Dialects() {
		b.Run(dialect, func(b *testing.B) { fn(b, dialect) })
	}
}

// benchServer builds the production handler over a fresh store of dialect,
// as newAPI does, without the listener.
func benchServer(tb testing.TB, dialect string) http.Handler {
	tb.Helper()
	return benchServerOn(tb, storagetest.Open(tb, dialect))
}

func benchServerOn(tb testing.TB, store *storage.Store) http.Handler {
	tb.Helper()
	return benchServerWith(tb, store, 0)
}

// benchServerWith is benchServerOn with answerCache as Config.AnswerCache
// (0: the default; negative: no kept answers).
func benchServerWith(tb testing.TB, store *storage.Store, answerCache int64) http.Handler {
	tb.Helper()
	srv, err := server.New(server.Config{BackofficeBase: "/admin", MaxBody: 64 << 10, AnswerCache: answerCache,
		Logger: slog.New(server.NewJSONLogHandler(io.Discard, nil))}, store)
	if err != nil {
		tb.Fatalf("server.New: %v", err)
	}
	tb.Cleanup(srv.Close)
	createPrincipals(tb, store)
	return withToken(srv, tokenFor(tb, srv, "admin"))
}

// tokenFor asks the handler's token endpoint for a principal's access token.
func tokenFor(tb testing.TB, h http.Handler, name string) string {
	tb.Helper()
	p := principalNamed(tb, name)
	body := `{"grant_type":"client_credentials","client_id":"` + p.client + `","client_secret":"` + p.client + `-secret"}`
	r := httptest.NewRequest(http.MethodPost, "/admin/oauth2-token", strings.NewReader(body))
	r.Header.Set("Content-Type", "application/json")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &tok); err != nil || w.Code != http.StatusOK {
		tb.Fatalf("token for %s: %d %s", name, w.Code, w.Body)
	}
	return tok.AccessToken
}

// withToken sends every request with a bearer token, as a client would.
func withToken(h http.Handler, token string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") == "" {
			r.Header.Set("Authorization", "Bearer "+token)
		}
		h.ServeHTTP(w, r)
	})
}

// benchSeededServer is benchServer over seedCRM's records.
func benchSeededServer(tb testing.TB, dialect string) http.Handler {
	tb.Helper()
	store := storagetest.Open(tb, dialect)
	seedCRM(tb, store, benchUsers, benchAccounts, benchContacts)
	return benchServerOn(tb, store)
}

// benchLastNames start with L half of the time, for benchFiltered.
var benchLastNames = []string{"Lee", "Miller", "Lopez", "Smith", "Lewis", "Nguyen", "Larsen", "Kim", "Lambert", "Brown"}

// seedCRM adds users (each with a role and the one business unit), accounts
// and contacts owned by them in turn, and puts each contact in one to three
// accounts. Creation times repeat every 50 records, so sorting on them has
// ties for the next sort field to break.
func seedCRM(tb testing.TB, s *storage.Store, users, accounts, contacts int) {
	tb.Helper()
	bu := seedRows(tb, s, "businessunits", storage.Row{"name": "Sales"})
	rows := make([]storage.Row, users)
	for i := range rows {
		n := strconv.Itoa(i + 1)
		rows[i] = storage.Row{"username": "crm" + n, "email": "crm" + n + "@example.com", "first_name": "Crm",
			"last_name": "User" + n, "enabled": true, "owner_id": num(bu[0])}
	}
	u := seedRows(tb, s, "users", rows...)
	roles := make([][2]string, len(u))
	for i, id := range u {
		roles[i] = [2]string{id, "ROLE_USER"}
	}
	seedLinks(tb, s, "user_userroles", roles...)
	base := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	rows = make([]storage.Row, accounts)
	for i := range rows {
		rows[i] = storage.Row{"name": "Account " + strconv.Itoa(i+1), "owner_id": num(u[i%len(u)]),
			"created_at": base.AddDate(0, 0, i%50)}
	}
	acc := seedRows(tb, s, "accounts", rows...)
	rows = make([]storage.Row, contacts)
	for i := range rows {
		n := strconv.Itoa(i + 1)
		rows[i] = storage.Row{"first_name": "First" + n, "last_name": benchLastNames[i%len(benchLastNames)] + " " + n,
			"primary_email": "contact" + n + "@example.com", "job_title": "Buyer", "owner_id": num(u[i%len(u)]),
			"created_at": base.AddDate(0, 0, i%50)}
	}
	c := seedRows(tb, s, "contacts", rows...)
	var links [][2]string
	for i, id := range c {
		for k := 0; k <= i%3; k++ {
			links = append(links, [2]string{acc[(i+k*7)%len(acc)], id})
		}
	}
	seedLinks(tb, s, "account_contacts", links...)
}

// benchRequest builds a request as the server would hand it to the handler;
// the bare handler's benchmark builds the same, so their ratio compares the
// handlers alone.
func benchRequest(tb testing.TB, method, target, accept, contentType string, body io.Reader) *http.Request {
	req, err := http.NewRequest(method, benchHost+target, body)
	if err != nil {
		tb.Fatal(err)
	}
	req.Header.Set("Accept", accept)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return req
}

// serve answers one GET through h and fails unless it is a 200.
func serve(tb testing.TB, h http.Handler, target, accept string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, benchRequest(tb, http.MethodGet, target, accept, "", nil))
	if w.Code != http.StatusOK {
		tb.Fatalf("GET %s: status %d\n%s", target, w.Code, w.Body.Bytes())
	}
	return w
}

// benchGet measures GET target through h.
func benchGet(b *testing.B, h http.Handler, target, accept string) {
	serve(b, h, target, accept) // warm up, and check the answer once
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		serve(b, h, target, accept)
	}
}

func BenchmarkGetOne(b *testing.B) {
	eachDialect(b, func(b *testing.B, dialect string) {
		benchGet(b, benchServer(b, dialect), benchOne, jsonAPIType)
	})
}

func BenchmarkGetList(b *testing.B) {
	eachDialect(b, func(b *testing.B, dialect string) {
		benchGet(b, benchServer(b, dialect), benchList, jsonAPIType)
	})
}

// BenchmarkGetRegions is the list target of make bench-http.
func BenchmarkGetRegions(b *testing.B) {
	eachDialect(b, func(b *testing.B, dialect string) {
		benchGet(b, benchServer(b, dialect), benchRegions, jsonAPIType)
	})
}

func BenchmarkGetListPlain(b *testing.B) {
	eachDialect(b, func(b *testing.B, dialect string) {
		benchGet(b, benchServer(b, dialect), benchList, "application/json")
	})
}

// bareHandler writes the bytes and Content-Type the service answers target
// with, captured once: the fastest any handler could send that response.
func bareHandler(b *testing.B, dialect, target string) http.Handler {
	b.Helper()
	return bareHandlerOf(b, benchServer(b, dialect), target)
}

// bareHandlerOf is bareHandler for the answer of a given service.
func bareHandlerOf(b *testing.B, h http.Handler, target string) http.Handler {
	b.Helper()
	w := serve(b, h, target, jsonAPIType)
	body := w.Body.Bytes()
	contentType := w.Header().Get("Content-Type")
	if contentType != jsonAPIType || len(body) == 0 {
		b.Fatalf("GET %s: Content-Type %q, %d bytes", target, contentType, len(body))
	}
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", contentType)
		w.WriteHeader(http.StatusOK)
		_, _ = w.Write(body)
	})
}

// BenchmarkBareHandler is the ceiling docs/decisions.md §11 compares BenchmarkGetOne
// with (goal: a third of its rate or better).
func BenchmarkBareHandler(b *testing.B) {
	eachDialect(b, func(b *testing.B, dialect string) {
		benchGet(b, bareHandler(b, dialect, benchOne), benchOne, jsonAPIType)
	})
}

// BenchmarkBareHandlerList is the same ceiling for BenchmarkGetList.
func BenchmarkBareHandlerList(b *testing.B) {
	eachDialect(b, func(b *testing.B, dialect string) {
		benchGet(b, bareHandler(b, dialect, benchList), benchList, jsonAPIType)
	})
}

// BenchmarkContactsInclude is a page of 50 contacts with their accounts and
// owners included, on seedCRM's records.
func BenchmarkContactsInclude(b *testing.B) {
	eachDialect(b, func(b *testing.B, dialect string) {
		benchGet(b, benchSeededServer(b, dialect), benchContactsInclude, jsonAPIType)
	})
}

// BenchmarkBareHandlerContacts is the ceiling for BenchmarkContactsInclude.
func BenchmarkBareHandlerContacts(b *testing.B) {
	eachDialect(b, func(b *testing.B, dialect string) {
		benchGet(b, bareHandlerOf(b, benchSeededServer(b, dialect), benchContactsInclude), benchContactsInclude, jsonAPIType)
	})
}

// BenchmarkFilteredSortedList is a page of 20 contacts filtered with
// starts_with and sorted on two fields, on seedCRM's records.
func BenchmarkFilteredSortedList(b *testing.B) {
	eachDialect(b, func(b *testing.B, dialect string) {
		benchGet(b, benchSeededServer(b, dialect), benchFiltered, jsonAPIType)
	})
}

// benchGetHTTP measures GET path through a real server on the loopback, with
// one keep-alive client.
func benchGetHTTP(b *testing.B, h http.Handler, path string) {
	hs := httptest.NewServer(h)
	b.Cleanup(hs.Close)
	tr := &http.Transport{MaxIdleConnsPerHost: 4}
	b.Cleanup(tr.CloseIdleConnections)
	client := &http.Client{Transport: tr}
	fetch := func() {
		req, err := http.NewRequest(http.MethodGet, hs.URL+path, nil)
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Accept", jsonAPIType)
		res, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, err = io.Copy(io.Discard, res.Body) // read it all so the connection is reused
		res.Body.Close()
		if err != nil || res.StatusCode != http.StatusOK {
			b.Fatalf("GET %s: status %d, %v", path, res.StatusCode, err)
		}
	}
	fetch()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		fetch()
	}
}

func BenchmarkGetOneHTTP(b *testing.B) {
	eachDialect(b, func(b *testing.B, dialect string) {
		benchGetHTTP(b, benchServer(b, dialect), benchOne)
	})
}

// BenchmarkBareHandlerHTTP is BenchmarkGetOneHTTP's ceiling on the loopback.
func BenchmarkBareHandlerHTTP(b *testing.B) {
	eachDialect(b, func(b *testing.B, dialect string) {
		benchGetHTTP(b, bareHandler(b, dialect, benchOne), benchOne)
	})
}

func BenchmarkCreateAccount(b *testing.B) {
	eachDialect(b, func(b *testing.B, dialect string) {
		benchWrite(b, accountCreator(b, benchServer(b, dialect)))
	})
}

// BenchmarkPatchAccount renames one account over and over.
func BenchmarkPatchAccount(b *testing.B) {
	eachDialect(b, func(b *testing.B, dialect string) {
		benchWrite(b, accountPatcher(b, benchServer(b, dialect)))
	})
}

// benchWrite measures write, after one call that warms up and checks it.
func benchWrite(b *testing.B, write func()) {
	write()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		write()
	}
}

// accountCreator returns a function that creates one account through h per
// call, each with a new name, and fails unless it is a 201.
func accountCreator(tb testing.TB, h http.Handler) func() {
	n := 0
	return func() {
		n++
		body := `{"data":{"type":"accounts","attributes":{"name":"Bench ` + strconv.Itoa(n) + `"}}}`
		w := httptest.NewRecorder()
		h.ServeHTTP(w, benchRequest(tb, http.MethodPost, "/admin/api/accounts", jsonAPIType, jsonAPIType, strings.NewReader(body)))
		if w.Code != http.StatusCreated {
			tb.Fatalf("POST account %d: status %d\n%s", n, w.Code, w.Body.Bytes())
		}
	}
}

// accountPatcher creates one account through h and returns a function that
// renames it per call, failing unless the answer is a 200.
func accountPatcher(tb testing.TB, h http.Handler) func() {
	body := `{"data":{"type":"accounts","attributes":{"name":"Patched"}}}`
	w := httptest.NewRecorder()
	h.ServeHTTP(w, benchRequest(tb, http.MethodPost, "/admin/api/accounts", jsonAPIType, jsonAPIType, strings.NewReader(body)))
	var created struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(w.Body.Bytes(), &created); err != nil || w.Code != http.StatusCreated {
		tb.Fatalf("POST account: status %d\n%s", w.Code, w.Body.Bytes())
	}
	target := "/admin/api/accounts/" + created.Data.ID
	n := 0
	return func() {
		n++
		body := `{"data":{"type":"accounts","id":"` + created.Data.ID + `","attributes":{"name":"Renamed ` + strconv.Itoa(n) + `"}}}`
		w := httptest.NewRecorder()
		h.ServeHTTP(w, benchRequest(tb, http.MethodPatch, target, jsonAPIType, jsonAPIType, strings.NewReader(body)))
		if w.Code != http.StatusOK {
			tb.Fatalf("PATCH %s: status %d\n%s", target, w.Code, w.Body.Bytes())
		}
	}
}
