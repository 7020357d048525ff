package server_test

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/storage/storagetest"
)

// BenchmarkPatchAccount measures PATCH /admin/api/accounts/{id} changing one
// attribute, the update beside BenchmarkCreateAccount's create; stmts/op is
// how many SQL statements (BEGIN and COMMIT included) one request sends.
func BenchmarkPatchAccount(b *testing.B) {
	eachDialect(b, func(b *testing.B, dialect string) {
		store := storagetest.Open(b, dialect)
		h := benchServerOn(b, store)
		w := httptest.NewRecorder()
		h.ServeHTTP(w, benchRequest(b, http.MethodPost, "/admin/api/accounts", jsonAPIType, jsonAPIType,
			strings.NewReader(`{"data":{"type":"accounts","attributes":{"name":"Bench"}}}`)))
		if w.Code != http.StatusCreated {
			b.Fatalf("POST account: status %d\n%s", w.Code, w.Body.Bytes())
		}
		id := w.Header().Get("Location")
		id = id[strings.LastIndex(id, "/")+1:]
		n := 0
		patch := func() {
			n++
			body := `{"data":{"type":"accounts","id":"` + id + `","attributes":{"name":"Bench ` + strconv.Itoa(n) + `"}}}`
			w := httptest.NewRecorder()
			h.ServeHTTP(w, benchRequest(b, http.MethodPatch, "/admin/api/accounts/"+id, jsonAPIType, jsonAPIType, strings.NewReader(body)))
			if w.Code != http.StatusOK {
				b.Fatalf("PATCH account %s: status %d\n%s", id, w.Code, w.Body.Bytes())
			}
		}
		patch()
		b.ReportAllocs()
		before := store.Statements()
		b.ResetTimer()
		for b.Loop() {
			patch()
		}
		b.StopTimer()
		b.ReportMetric(float64(store.Statements()-before)/float64(b.N), "stmts/op")
	})
}
