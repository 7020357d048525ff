package server

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/server/jsonapi"
)

// TestNegotiate covers every row of the format table of docs/decisions.md §3.
func TestNegotiate(t *testing.T) {
	t.Parallel()
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
		// the atomic extension is the one of POST /api/operations (negotiateAtomic) only
		{name: "atomic content type elsewhere", accept: "application/vnd.api+json", contentType: jsonapi.AtomicMediaType, body: "{}", format: engine.JSONAPI, status: 415, jsonAPIErrors: true},
		{name: "atomic accept elsewhere", accept: jsonapi.AtomicMediaType, format: engine.JSONAPI, status: 406, jsonAPIErrors: true},
		// JSON:API 1.1: a profile is ignored, in Accept and in Content-Type
		{name: "accept with a profile", accept: `application/vnd.api+json; profile="https://example.com/p"`, format: engine.JSONAPI},
		{name: "accept with a profile and q", accept: `application/vnd.api+json;profile="https://example.com/p";q=0.5`, format: engine.JSONAPI},
		{name: "content type with a profile", accept: "application/vnd.api+json", contentType: `application/vnd.api+json; profile="https://example.com/p"`, body: "{}", format: engine.JSONAPI},
		{name: "content type with a profile and another parameter", accept: "application/vnd.api+json", contentType: `application/vnd.api+json; profile="https://example.com/p"; charset=utf-8`, body: "{}", format: engine.JSONAPI, status: 415, jsonAPIErrors: true},
		{name: "content type with a profile and an ext", accept: "application/vnd.api+json", contentType: `application/vnd.api+json; profile="https://example.com/p"; ext="https://example.com/e"`, body: "{}", format: engine.JSONAPI, status: 415, jsonAPIErrors: true},
		{name: "accept with a profile and an ext", accept: `application/vnd.api+json; profile="https://example.com/p"; ext="https://example.com/e"`, format: engine.JSONAPI, status: 406, jsonAPIErrors: true},
		{name: "accept: the instance with a profile is taken, the one with ext is not", accept: `application/vnd.api+json; ext="https://example.com/e", application/vnd.api+json; profile="https://example.com/p"`, format: engine.JSONAPI},
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

// TestNegotiateAtomic covers the media types of POST /api/operations: the
// atomic extension required in Content-Type, allowed in Accept, and JSON:API
// errors whatever the request named.
func TestNegotiateAtomic(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, accept, contentType string
		status                    int // 0: acceptable
	}{
		{"ext both ways", jsonapi.AtomicMediaType, jsonapi.AtomicMediaType, 0},
		{"ext without a space", "application/vnd.api+json;ext=\"https://jsonapi.org/ext/atomic\"", "application/vnd.api+json;ext=\"https://jsonapi.org/ext/atomic\"", 0},
		{"accept without parameters", "application/vnd.api+json", jsonapi.AtomicMediaType, 0},
		{"accept with q", "text/html, " + jsonapi.AtomicMediaType + ";q=0.5", jsonapi.AtomicMediaType, 0},
		{"no accept", "", jsonapi.AtomicMediaType, 0},
		{"accept anything", "*/*", jsonapi.AtomicMediaType, 0},
		{"no content type", jsonapi.AtomicMediaType, "", 415},
		{"content type without ext", jsonapi.AtomicMediaType, "application/vnd.api+json", 415},
		{"content type with another ext", jsonapi.AtomicMediaType, `application/vnd.api+json; ext="https://example.com/ext"`, 415},
		{"content type with two exts", jsonapi.AtomicMediaType, `application/vnd.api+json; ext="https://jsonapi.org/ext/atomic https://example.com/ext"`, 415},
		{"content type with a profile too is fine", jsonapi.AtomicMediaType, jsonapi.AtomicMediaType + `; profile="https://example.com/p"`, 0},
		{"content type with another parameter", jsonapi.AtomicMediaType, jsonapi.AtomicMediaType + `; charset=utf-8`, 415},
		{"accept with a profile", `application/vnd.api+json; profile="https://example.com/p"`, jsonapi.AtomicMediaType, 0},
		{"accept with ext and a profile", jsonapi.AtomicMediaType + `; profile="https://example.com/p"`, jsonapi.AtomicMediaType, 0},
		{"accept with another parameter", jsonapi.AtomicMediaType + `; charset=utf-8`, jsonapi.AtomicMediaType, 406},
		{"plain content type", jsonapi.AtomicMediaType, "application/json", 415},
		{"accept with another ext", `application/vnd.api+json; ext="https://example.com/ext"`, jsonapi.AtomicMediaType, 406},
		{"accept with q=0", jsonapi.AtomicMediaType + ";q=0", jsonapi.AtomicMediaType, 406},
		{"accept plain only", "application/json", jsonapi.AtomicMediaType, 406},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodPost, "/admin/api/operations", strings.NewReader("{}"))
			if tc.accept != "" {
				r.Header.Set("Accept", tc.accept)
			}
			if tc.contentType != "" {
				r.Header.Set("Content-Type", tc.contentType)
			}
			n := negotiateAtomic(r)
			got := 0
			if n.problem != nil {
				got = n.problem.Kind.Status()
			}
			if got != tc.status || n.format != engine.JSONAPI || !n.errorsJSONAPI {
				t.Errorf("status %d format %v JSON:API errors %v, want %d, JSON:API", got, n.format, n.errorsJSONAPI, tc.status)
			}
		})
	}
}
