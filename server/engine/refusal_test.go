package engine_test

import (
	"net/http"
	"testing"
)

// TestRefusal: which refused method is JSON:API's 403 for an unsupported
// update and which is HTTP's 405 (docs/decisions.md §17); the HTTP tests
// (TestRefusedUpdates) show the answers, Allow and details included.
func TestRefusal(t *testing.T) {
	t.Parallel()
	eachDialect(t, func(t *testing.T, b *testBundle) {
		routes := b.e.Routes()
		for _, c := range []struct {
			name, method, path string
			jsonAPI            bool
			status             int
		}{
			{"PATCH of a read-only record", http.MethodPatch, "/admin/api/countries/DE", true, 403},
			{"PATCH of a read-only record, plain", http.MethodPatch, "/admin/api/countries/DE", false, 405},
			{"PATCH of a read-only relationship", http.MethodPatch, "/admin/api/accounts/1/relationships/organization", true, 403},
			{"POST to a read-only relationship", http.MethodPost, "/admin/api/countries/DE/relationships/regions", true, 403},
			{"DELETE from a to-one relationship", http.MethodDelete, "/admin/api/accounts/1/relationships/owner", true, 403},
			{"POST to a to-one relationship, plain", http.MethodPost, "/admin/api/accounts/1/relationships/owner", false, 405},
			{"DELETE of a record that cannot be deleted", http.MethodDelete, "/admin/api/countries/DE", true, 405},
			{"POST to a read-only collection", http.MethodPost, "/admin/api/countries", true, 405},
			{"PUT of a record", http.MethodPut, "/admin/api/accounts/1", true, 405},
			{"PATCH of a subresource", http.MethodPatch, "/admin/api/accounts/1/owner", true, 405},
			{"PATCH of a collection without batch", http.MethodPatch, "/admin/api/countries", true, 405},
			{"a method the path allows", http.MethodPatch, "/admin/api/accounts/1", true, 405},
			{"a path the engine does not route", http.MethodPatch, "/admin/oauth2-token", true, 405},
		} {
			if got := routes.Refusal(c.method, c.path, c.jsonAPI).Kind.Status(); got != c.status {
				t.Errorf("%s: %s %s (JSON:API %v) is %d, want %d", c.name, c.method, c.path, c.jsonAPI, got, c.status)
			}
		}
	})
}
