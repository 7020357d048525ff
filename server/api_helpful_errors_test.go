package server_test

import (
	"net/http"
	"strings"
	"testing"
)

// TestErrorsSayWhatToDo (issue 31): the commonest mistakes of a new client
// are answered with the fix, in the negotiated format, and write nothing:
// a body in the other format than its Content-Type, a form body, a token
// without the Bearer scheme or in the query string, and an address with a
// typo, without its /api prefix or in the other application.
func TestErrorsSayWhatToDo(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		token := a.token("admin")
		form := map[string]string{"Accept": "application/json", "Content-Type": "application/x-www-form-urlencoded"}
		for _, tc := range []struct {
			name         string
			as           string // principal; "" admin
			method, path string
			headers      map[string]string
			body         string
			status       int
			title        string
			detail       []string // parts the detail must hold
		}{
			{name: "a JSON:API document sent as plain JSON", method: "POST", path: "/admin/api/accounts", headers: plain,
				body:   `{"data":{"type":"accounts","attributes":{"name":"Wrong format"}}}`,
				status: 400, title: "extra fields constraint",
				detail: []string{`This form should not contain extra fields: "data".`, "Send Content-Type: application/vnd.api+json"}},
			{name: "a plain body sent as JSON:API", method: "POST", path: "/admin/api/accounts", headers: jsonAPI,
				body:   `{"name":"Wrong format"}`,
				status: 400, title: "request data constraint",
				detail: []string{"The primary data object should exist.", "send Content-Type: application/json"}},
			{name: "a form", method: "POST", path: "/admin/api/accounts", headers: form, body: "name=Wrong+format",
				status: 415, detail: []string{`"application/x-www-form-urlencoded" is not read here`, `"application/json"`, `"application/vnd.api+json"`}},
			{name: "a token without its scheme", method: "GET", path: "/admin/api/accounts",
				headers: map[string]string{"Accept": "application/vnd.api+json", "Authorization": token},
				status:  401, title: "authentication exception",
				detail: []string{"The access token is missing.", `write "Bearer " before the token`}},
			{name: "Basic credentials", method: "GET", path: "/admin/api/accounts",
				headers: map[string]string{"Accept": "application/json", "Authorization": "Basic dGVzdDp0ZXN0"},
				status:  401, detail: []string{`uses the "Basic" scheme`, "Authorization: Bearer <token>"}},
			{name: "Bearer and nothing", method: "GET", path: "/admin/api/accounts",
				headers: map[string]string{"Accept": "application/json", "Authorization": "Bearer"},
				status:  401, detail: []string{"names the Bearer scheme but no token"}},
			{name: "a token in the query string", method: "GET", path: "/admin/api/accounts?access_token=" + token,
				headers: map[string]string{"Accept": "application/vnd.api+json", "Authorization": ""},
				status:  401, detail: []string{"A token in the query string is never read", "Authorization: Bearer <token>"}},
			{name: "a back-office resource on the storefront", as: "storefront", method: "GET", path: "/api/accounts", headers: jsonAPI,
				status: 404, detail: []string{"Did you mean /admin/api/accounts?", "It is the back office's resource"}},
			{name: "a singular", method: "GET", path: "/admin/api/account", headers: jsonAPI,
				status: 404, detail: []string{"Did you mean /admin/api/accounts?"}},
			{name: "the same in the plain format", method: "GET", path: "/admin/api/account", headers: plain,
				status: 404, detail: []string{"Did you mean /admin/api/accounts?"}},
			{name: "no /api", method: "GET", path: "/admin/accounts", headers: jsonAPI,
				status: 404, detail: []string{"Did you mean /admin/api/accounts?"}},
			{name: "a typo under a record", method: "GET", path: "/admin/api/acounts/1/relationships/contacts", headers: jsonAPI,
				status: 404, detail: []string{"Did you mean /admin/api/accounts/1/relationships/contacts?"}},
			{name: "nothing close", method: "GET", path: "/nowhere/at/all", headers: jsonAPI,
				status: 404, detail: []string{"the back office's resources are under /admin/api/", "the storefront's resources are under /api/"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				sub := *a
				sub.t = t
				if tc.as != "" {
					sub.as = tc.as
				}
				r := sub.do(tc.method, tc.path, tc.headers, tc.body).want(t, tc.status)
				detail, title := r.value("errors/0/detail"), r.value("errors/0/title")
				if r.doc == nil {
					detail, title = r.value("0/detail"), r.value("0/title")
				}
				d, _ := detail.(string)
				for _, part := range tc.detail {
					if !strings.Contains(d, part) {
						t.Errorf("detail %q does not hold %q", d, part)
					}
				}
				if tc.title != "" && title != tc.title {
					t.Errorf("title %v, want %s", title, tc.title)
				}
			})
		}
		if ids := dataIDs(t, a.do(http.MethodGet, "/admin/api/accounts?filter[name]=Wrong%20format", jsonAPI, "").want(t, 200)); len(ids) != 0 {
			t.Errorf("a refused body made accounts %v", ids)
		}
	})
}
