package server_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// The benchmarks measure the service as DESIGN.md §11 asks: each one runs as
// the sub-benchmarks "sqlite" and (with TEST_DATABASE_URL) "postgres", on a
// fresh migrated store. Most call the handler directly with a recorder, so the
// figure is the service's and not the loopback stack's; the *HTTP variants go
// through a real server and a keep-alive client to give the loopback figure.
// BenchmarkBareHandler is the ceiling: a handler writing the GetOne bytes.
// Run them with: go test ./server -run '^$' -bench . -benchmem

const (
	benchHost   = "http://bench.test"
	benchOne    = "/admin/api/countries/US"
	benchList   = "/admin/api/countries?page[size]=10"
	jsonAPIType = "application/vnd.api+json"
)

// eachDialect runs fn as one sub-benchmark per test database.
func eachDialect(b *testing.B, fn func(b *testing.B, dialect string)) {
	for _, dialect := range storagetest.Dialects() {
		b.Run(dialect, func(b *testing.B) { fn(b, dialect) })
	}
}

// benchServer builds the production handler over a fresh store of dialect,
// as newAPI does, without the listener.
func benchServer(b *testing.B, dialect string) http.Handler {
	b.Helper()
	srv, err := server.New(server.Config{BackofficeBase: "/admin", MaxBody: 64 << 10,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, storagetest.Open(b, dialect))
	if err != nil {
		b.Fatalf("server.New: %v", err)
	}
	return srv
}

// benchRequest builds a request as the server would hand it to the handler;
// the bare handler's benchmark builds the same, so their ratio compares the
// handlers alone.
func benchRequest(b *testing.B, method, target, accept, contentType string, body io.Reader) *http.Request {
	req, err := http.NewRequest(method, benchHost+target, body)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Accept", accept)
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	return req
}

// serve answers one GET through h and fails unless it is a 200.
func serve(b *testing.B, h http.Handler, target, accept string) *httptest.ResponseRecorder {
	w := httptest.NewRecorder()
	h.ServeHTTP(w, benchRequest(b, http.MethodGet, target, accept, "", nil))
	if w.Code != http.StatusOK {
		b.Fatalf("GET %s: status %d\n%s", target, w.Code, w.Body.Bytes())
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

func BenchmarkGetListPlain(b *testing.B) {
	eachDialect(b, func(b *testing.B, dialect string) {
		benchGet(b, benchServer(b, dialect), benchList, "application/json")
	})
}

// bareHandler writes the bytes and Content-Type the service answers target
// with, captured once: the fastest any handler could send that response.
func bareHandler(b *testing.B, dialect, target string) http.Handler {
	b.Helper()
	w := serve(b, benchServer(b, dialect), target, jsonAPIType)
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

// BenchmarkBareHandler is the ceiling DESIGN.md §11 compares BenchmarkGetOne
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
		h := benchServer(b, dialect)
		n := 0
		create := func() {
			n++
			body := `{"data":{"type":"accounts","attributes":{"name":"Bench ` + strconv.Itoa(n) + `"}}}`
			w := httptest.NewRecorder()
			h.ServeHTTP(w, benchRequest(b, http.MethodPost, "/admin/api/accounts", jsonAPIType, jsonAPIType, strings.NewReader(body)))
			if w.Code != http.StatusCreated {
				b.Fatalf("POST account %d: status %d\n%s", n, w.Code, w.Body.Bytes())
			}
		}
		create()
		b.ReportAllocs()
		b.ResetTimer()
		for b.Loop() {
			create()
		}
	})
}
