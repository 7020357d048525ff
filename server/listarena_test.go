package server_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestListsShareNoObjects: lists cut their resource objects from pooled
// arenas handed back once each answer is encoded (server/engine/arena.go).
// Lists of different types, sizes and shapes (titles, sparse fieldsets,
// included records), answered over and over from several goroutines, must
// each answer exactly what they answered alone: no field left by an
// earlier request, no object changed by a later one.
func TestListsShareNoObjects(t *testing.T) {
	t.Parallel()
	targets := []string{
		"/admin/api/regions?page[size]=10&metaProperties=title",
		"/admin/api/regions?page[size]=25&include=country",
		"/admin/api/countries?page[size]=10&fields[countries]=name",
		"/admin/api/regions?page[size]=2",
		"/admin/api/countries?page[size]=5&include=regions",
	}
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			h := benchServer(t, dialect)
			want := make([][]byte, len(targets))
			for i, target := range targets {
				want[i] = serve(t, h, target, jsonAPIType).Body.Bytes()
			}
			var wg sync.WaitGroup
			failures := make(chan string, 64)
			for g := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for n := range 40 {
						i := (g + n*(g+1)) % len(targets)
						w := httptest.NewRecorder()
						h.ServeHTTP(w, benchRequest(t, http.MethodGet, targets[i], jsonAPIType, "", nil))
						if w.Code != http.StatusOK || !bytes.Equal(w.Body.Bytes(), want[i]) {
							failures <- fmt.Sprintf("GET %s answered %d:\n%s\nwant:\n%s", targets[i], w.Code, w.Body.Bytes(), want[i])
							return
						}
					}
				}()
			}
			wg.Wait()
			close(failures)
			for f := range failures {
				t.Error(f)
			}
		})
	}
}
