package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/server/engine"
)

// TestNegotiate covers every row of the format table of DESIGN.md §3.
func TestNegotiate(t *testing.T) {
	cases := []struct {
		name, accept, contentType, body string
		format                          engine.Format
		status                          int // 0: acceptable
		jsonAPIErrors                   bool
	}{
		{name: "accept json:api", accept: "application/vnd.api+json", format: engine.JSONAPI},
		{name: "accept json:api with q", accept: "text/html, application/vnd.api+json;q=0.5", format: engine.JSONAPI},
		{name: "content type json:api", contentType: "application/vnd.api+json", body: "{}", format: engine.JSONAPI},
		{name: "every json:api accept has parameters", accept: "application/vnd.api+json; ext=\"x\"", format: engine.JSONAPI, status: 406, jsonAPIErrors: true},
		{name: "json:api content type with parameters", accept: "application/vnd.api+json", contentType: "application/vnd.api+json; charset=utf-8", body: "{}", format: engine.JSONAPI, status: 415, jsonAPIErrors: true},
		{name: "json:api body but accept excludes it", accept: "text/html", contentType: "application/vnd.api+json", body: "{}", format: engine.JSONAPI, status: 406, jsonAPIErrors: true},
		{name: "json:api body, accept json", accept: "application/json", contentType: "application/vnd.api+json", body: "{}", format: engine.JSONAPI},
		{name: "no headers", format: engine.Plain},
		{name: "any", accept: "*/*", format: engine.Plain},
		{name: "plain json", accept: "application/json", contentType: "application/json; charset=utf-8", body: "{}", format: engine.Plain},
		{name: "plain accept excludes json", accept: "text/html", format: engine.Plain, status: 406},
		{name: "plain body of another type", contentType: "text/plain", body: "x", format: engine.Plain, status: 415},
		{name: "plain body without content type", body: "{}", format: engine.Plain, status: 415},
		{name: "json:api accept with q=0 only", accept: "application/vnd.api+json;q=0", format: engine.JSONAPI, status: 406, jsonAPIErrors: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			method := http.MethodGet
			var r *http.Request
			if tc.body != "" {
				method = http.MethodPost
				r = httptest.NewRequest(method, "/admin/api/accounts", strings.NewReader(tc.body))
			} else {
				r = httptest.NewRequest(method, "/admin/api/accounts", nil)
			}
			if tc.accept != "" {
				r.Header.Set("Accept", tc.accept)
			}
			if tc.contentType != "" {
				r.Header.Set("Content-Type", tc.contentType)
			} else {
				r.Header.Del("Content-Type")
			}
			n := negotiate(r)
			if n.format != tc.format {
				t.Errorf("format %v, want %v", n.format, tc.format)
			}
			got := 0
			if n.problem != nil {
				got = n.problem.Kind.Status()
			}
			if got != tc.status {
				t.Errorf("status %d, want %d", got, tc.status)
			}
			if tc.status != 0 && n.errorsJSONAPI != tc.jsonAPIErrors {
				t.Errorf("JSON:API errors %v, want %v", n.errorsJSONAPI, tc.jsonAPIErrors)
			}
		})
	}
}
