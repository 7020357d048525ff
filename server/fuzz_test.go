package server_test

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// FuzzRequestDocument sends arbitrary bodies to the create and update operations:
// whatever the bytes, the answer is a documented client error or success, never
// a 500 or a panic.
func FuzzRequestDocument(f *testing.F) {
	for _, seed := range []string{
		`{"data":{"type":"accounts","attributes":{"name":"x"}}}`,
		`{"data":{"type":"accounts","attributes":{"name":null}}}`,
		`{"data":[{"type":"accounts"}]}`,
		`{"data":{"type":"accounts","id":"1","relationships":{"x":{"data":null}}}}`,
		`{"@x":1,"data":{"type":"accounts","@y":{"z":[1]},"attributes":{"@a":1,"name":"x"}}}`, `{"\u0040x":[{"@y":`,
		`{"data":`, `[]`, `null`, `"\ud800"`, "{\"data\":{\"type\":\"accounts\",\"attributes\":{\"name\":\"\xff\"}}}",
	} {
		f.Add(seed, true)
		f.Add(seed, false)
	}
	store := storagetest.Open(f, "sqlite")
	srv, err := server.New(server.Config{BackofficeBase: "/admin", Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, store)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(srv.Close)
	createPrincipals(f, store)
	h := withToken(srv, tokenFor(f, srv, "admin"))
	f.Fuzz(func(t *testing.T, body string, jsonAPI bool) {
		for _, target := range []struct{ method, path string }{{http.MethodPost, "/admin/api/accounts"}, {http.MethodPatch, "/admin/api/accounts/1"}} {
			r := httptest.NewRequest(target.method, target.path, strings.NewReader(body))
			if jsonAPI {
				r.Header.Set("Content-Type", "application/vnd.api+json")
			} else {
				r.Header.Set("Content-Type", "application/json")
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code >= 500 {
				t.Fatalf("%s %s with %q: status %d: %s", target.method, target.path, body, w.Code, w.Body)
			}
		}
	})
}
