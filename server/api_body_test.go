package server_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestBodyIsOneDocument: a body is one JSON document and nothing after it but
// white space. The decoders behind the validator read the first document of a
// stream and ignore the rest, so a body with trailing bytes used to be written
// as if they were not there. Each request below would write something without
// its tail; each is a 400 and writes nothing, in both formats.
func TestBodyIsOneDocument(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		acc := a.created(t, "/admin/api/accounts", `{"data":{"type":"accounts","attributes":{"name":"Tail"}}}`)
		contact := a.created(t, "/admin/api/contacts", `{"data":{"type":"contacts","attributes":{"lastName":"Tail"}}}`)
		malformed := func(detail string) []check {
			return []check{{path: "errors/0/title", want: "bad request http exception"}, {path: "errors/0/detail", want: detail}}
		}
		plainMalformed := []check{{path: "0/title", want: "bad request http exception"}}
		rel := "/admin/api/accounts/" + acc + "/relationships/contacts"
		linkage := `{"data":[{"type":"contacts","id":"` + contact + `"}]}`
		runCases(t, a, []apiCase{
			{name: "create with trailing text", method: http.MethodPost, path: "/admin/api/accounts",
				body:   `{"data":{"type":"accounts","attributes":{"name":"Tail x"}}}xyz`,
				status: 400, checks: malformed("Invalid json message received. Parsing error in [1:60]. Invalid character 'x' after top-level value.")},
			{name: "create with a second document on a new line", method: http.MethodPost, path: "/admin/api/accounts",
				body:   "{\"data\":{\"type\":\"accounts\",\"attributes\":{\"name\":\"Tail x\"}}}\n {\"data\":{}}",
				status: 400, checks: malformed("Invalid json message received. Parsing error in [2:2]. Invalid character '{' after top-level value.")},
			{name: "plain create, two documents", method: http.MethodPost, path: "/admin/api/accounts", headers: plain,
				body: `{"name":"Tail x"}{"name":"Tail y"}`, status: 400, checks: plainMalformed},
			{name: "upsert with trailing text", method: http.MethodPost, path: "/admin/api/accounts",
				body: `{"data":{"type":"accounts","meta":{"upsert":["name"]},"attributes":{"name":"Tail x"}}} ]`, status: 400, checks: malformed(
					"Invalid json message received. Parsing error in [1:88]. Invalid character ']' after top-level value.")},
			{name: "update with trailing text", method: http.MethodPatch, path: "/admin/api/accounts/" + acc,
				body: `{"data":{"type":"accounts","id":"` + acc + `","attributes":{"name":"Tail x"}}}}`, status: 400,
				checks: []check{{path: "errors/0/title", want: "bad request http exception"}}},
			{name: "plain update with trailing text", method: http.MethodPatch, path: "/admin/api/accounts/" + acc, headers: plain,
				body: `{"name":"Tail x"},`, status: 400, checks: plainMalformed},
			{name: "relationship add with trailing text", method: http.MethodPost, path: rel, body: linkage + "0", status: 400,
				checks: []check{{path: "errors/0/title", want: "bad request http exception"}}},
			{name: "relationship replace with trailing text", method: http.MethodPatch, path: rel, body: linkage + `"x"`, status: 400,
				checks: []check{{path: "errors/0/title", want: "bad request http exception"}}},
			{name: "truncated document", method: http.MethodPost, path: "/admin/api/accounts", body: `{"data":{"type":"accounts"`,
				status: 400, checks: malformed("Invalid json message received. Parsing error in [1:27]. Unexpected end of JSON input.")},
			{name: "trailing white space is fine", method: http.MethodPost, path: "/admin/api/accounts",
				body: "{\"data\":{\"type\":\"accounts\",\"attributes\":{\"name\":\"Tail space\"}}} \r\n\t", status: 201},
		})
		a.do(http.MethodPost, rel, jsonAPI, linkage+" xyz").want(t, 400)
		a.do(http.MethodDelete, rel, jsonAPI, linkage+" xyz").want(t, 400)
		r := a.do(http.MethodGet, "/admin/api/accounts?filter[name]=Tail%20x,Tail%20y", jsonAPI, "").want(t, 200)
		if n := len(r.value("data").([]any)); n != 0 {
			t.Errorf("%d accounts written by refused requests", n)
		}
		if got := a.do(http.MethodGet, rel, jsonAPI, "").want(t, 200).value("data"); len(got.([]any)) != 0 {
			t.Errorf("a refused relationship write linked %v", got)
		}

		// Every documented operation with a body refuses a tail the same way,
		// before it looks at the document (the batch splitter has its own test).
		for _, op := range documentedOperations(t) {
			if !op.body || op.public || (op.method == http.MethodPatch && strings.Count(op.path, "/") == 3) {
				continue
			}
			t.Run(op.id, func(t *testing.T) {
				for _, h := range []map[string]string{jsonAPI, plain} {
					r := a.do(op.method, op.path, h, `{"data":{}} {}`)
					if r.status == http.StatusUnsupportedMediaType {
						continue // JSON:API only (relationships)
					}
					r.want(t, 400)
					if title := firstTitle(r); title != "bad request http exception" {
						t.Errorf("%s: title %q", h["Content-Type"], title)
					}
				}
			})
		}
	})
}

// firstTitle is the title of the first error in either format.
func firstTitle(r *result) any {
	if r.doc != nil {
		return r.value("errors/0/title")
	}
	return r.value("0/title")
}

// TestTokenBodyIsOneDocument: the token endpoint decodes its JSON body whole
// too, after the same guard as every other body: a tail, invalid UTF-8 (which
// encoding/json would turn into U+FFFD and look up) and deep nesting are
// invalid_request, and no token is issued.
func TestTokenBodyIsOneDocument(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		p := principalNamed(t, "admin")
		body := `{"grant_type":"client_credentials","client_id":"` + p.client + `","client_secret":"` + p.client + `-secret"}`
		h := map[string]string{"Authorization": "", "Content-Type": "application/json", "Accept": "application/json"}
		a.do(http.MethodPost, "/admin/oauth2-token", h, body+" ").want(t, 200)
		deep := strings.Repeat(`{"a":`, 9990) + "1" + strings.Repeat("}", 9990)
		for name, refused := range map[string]string{
			"trailing document": body + ` {"grant_type":"password"}`,
			"invalid UTF-8":     strings.Replace(body, `-secret"`, "-secret\xff\"", 1),
			"deep nesting":      `{"grant_type":"client_credentials","scope":` + deep + `}`,
		} {
			r := a.do(http.MethodPost, "/admin/oauth2-token", h, refused).want(t, 400)
			if got := r.value("error"); got != "invalid_request" {
				t.Errorf("%s: error %v, want invalid_request", name, got)
			}
			if r.value("access_token") != nil {
				t.Errorf("%s: a token was issued", name)
			}
		}
	})
}
