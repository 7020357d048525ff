package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/server/webhook"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// eachWebhookAPI runs fn against a server on every test database whose
// webhooks may target the test's own receivers (loopback, http).
func eachWebhookAPI(t *testing.T, adjust func(*server.Config), fn func(t *testing.T, a *api)) {
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			fn(t, newAPIWith(t, storagetest.Open(t, dialect), func(c *server.Config) {
				c.Webhooks.Guard = webhook.Guard{AllowHTTP: true, AllowPrivate: true}
				if adjust != nil {
					adjust(c)
				}
			}))
		})
	}
}

func createWebhook(t *testing.T, a *api, url, types string) (id, secret string) {
	t.Helper()
	r := a.do(http.MethodPost, "/admin/api/webhooks", jsonAPI,
		`{"data":{"type":"webhooks","attributes":{"url":"`+url+`","eventTypes":`+types+`}}}`).want(t, 201)
	secret, _ = r.value("data/meta/secret").(string)
	if !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("the create answer's secret is %q", secret)
	}
	return r.value("data/id").(string), secret
}

func TestWebhookResource(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		id, _ := createWebhook(t, a, "https://hooks.example.com/x", `["accounts.created","contacts.*"]`)
		r := a.do(http.MethodGet, "/admin/api/webhooks/"+id, jsonAPI, "").want(t, 200)
		if r.value("data/meta") != nil || r.value("data/attributes/enabled") != true {
			t.Errorf("a read shows %s", r.body)
		}
		if strings.Contains(string(r.body), "whsec_") {
			t.Errorf("a read shows the secret: %s", r.body)
		}
		list := a.do(http.MethodGet, "/admin/api/webhooks", plain, "").want(t, 200)
		if len(list.list) != 1 || strings.Contains(string(list.body), "whsec_") {
			t.Errorf("the plain list is %s", list.body)
		}
		// A change, then a rotation: the new secret is shown once.
		a.do(http.MethodPatch, "/admin/api/webhooks/"+id, jsonAPI,
			`{"data":{"type":"webhooks","id":"`+id+`","attributes":{"enabled":false,"eventTypes":["*"]}}}`).want(t, 200)
		r = a.do(http.MethodPatch, "/admin/api/webhooks/"+id, plain, `{"rotateSecret":true}`).want(t, 200)
		if s, _ := r.value("secret").(string); !strings.HasPrefix(s, "whsec_") || r.value("enabled") != false {
			t.Errorf("the rotation answered %s", r.body)
		}
		// Another organization does not see it.
		a.caller("elsewhere-admin").do(http.MethodGet, "/admin/api/webhooks/"+id, jsonAPI, "").want(t, 404)
		a.do(http.MethodDelete, "/admin/api/webhooks/"+id, jsonAPI, "").want(t, 204)
		a.do(http.MethodGet, "/admin/api/webhooks/"+id, jsonAPI, "").want(t, 404)
	})
}

func TestWebhookRoles(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		id, _ := createWebhook(t, a, "https://hooks.example.com/x", `["accounts.created"]`)
		for _, who := range []string{"manager", "viewer", "integration"} {
			c := a.caller(who)
			c.do(http.MethodGet, "/admin/api/webhooks", jsonAPI, "").want(t, 403)
			c.do(http.MethodGet, "/admin/api/webhooks/"+id, jsonAPI, "").want(t, 403)
			c.do(http.MethodPost, "/admin/api/webhooks", jsonAPI,
				`{"data":{"type":"webhooks","attributes":{"url":"https://hooks.example.com/y","eventTypes":["*"]}}}`).want(t, 403)
			c.do(http.MethodPatch, "/admin/api/webhooks/"+id, jsonAPI, `{"data":{"type":"webhooks","id":"`+id+`"}}`).want(t, 403)
			c.do(http.MethodDelete, "/admin/api/webhooks/"+id, jsonAPI, "").want(t, 403)
		}
	})
}

func TestWebhookBadInput(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		for _, c := range []struct{ name, attrs, title, pointer string }{
			{"not a URL", `"url":"not a url","eventTypes":["*"]`, "url constraint", "/data/attributes/url"},
			{"relative", `"url":"/hooks","eventTypes":["*"]`, "url constraint", "/data/attributes/url"},
			{"http", `"url":"http://hooks.example.com/","eventTypes":["*"]`, "url constraint", "/data/attributes/url"},
			{"loopback", `"url":"https://127.0.0.1/","eventTypes":["*"]`, "url constraint", "/data/attributes/url"},
			{"localhost", `"url":"https://localhost:8443/","eventTypes":["*"]`, "url constraint", "/data/attributes/url"},
			{"private", `"url":"https://10.1.2.3/","eventTypes":["*"]`, "url constraint", "/data/attributes/url"},
			{"metadata", `"url":"https://169.254.169.254/latest","eventTypes":["*"]`, "url constraint", "/data/attributes/url"},
			{"unique local", `"url":"https://[fd00::1]/","eventTypes":["*"]`, "url constraint", "/data/attributes/url"},
			{"mapped loopback", `"url":"https://[::ffff:127.0.0.1]/","eventTypes":["*"]`, "url constraint", "/data/attributes/url"},
			{"unknown type", `"url":"https://hooks.example.com/","eventTypes":["accounts.created","widgets.created"]`, "choice constraint", "/data/attributes/eventTypes/1"},
			{"unknown action", `"url":"https://hooks.example.com/","eventTypes":["accounts.renamed"]`, "choice constraint", "/data/attributes/eventTypes/0"},
			{"no action", `"url":"https://hooks.example.com/","eventTypes":["accounts"]`, "choice constraint", "/data/attributes/eventTypes/0"},
			{"events of events", `"url":"https://hooks.example.com/","eventTypes":["events.created"]`, "choice constraint", "/data/attributes/eventTypes/0"},
			{"no event types", `"url":"https://hooks.example.com/","eventTypes":[]`, "", "/data/attributes/eventTypes"},
			{"no url", `"eventTypes":["*"]`, "not blank constraint", "/data/attributes/url"},
		} {
			t.Run(c.name, func(t *testing.T) {
				r := a.do(http.MethodPost, "/admin/api/webhooks", jsonAPI,
					`{"data":{"type":"webhooks","attributes":{`+c.attrs+`}}}`).want(t, 400)
				if c.title != "" && r.value("errors/0/title") != c.title {
					t.Errorf("title %v, want %s: %s", r.value("errors/0/title"), c.title, r.body)
				}
				if r.value("errors/0/source/pointer") != c.pointer {
					t.Errorf("pointer %v, want %s: %s", r.value("errors/0/source/pointer"), c.pointer, r.body)
				}
			})
		}
		if list := a.do(http.MethodGet, "/admin/api/webhooks", plain, "").want(t, 200); len(list.list) != 0 {
			t.Errorf("refused bodies stored webhooks: %s", list.body)
		}
		// The plain format points at the field itself; a change is checked too.
		r := a.do(http.MethodPost, "/admin/api/webhooks", plain, `{"url":"https://[::1]/","eventTypes":["*"]}`).want(t, 400)
		if len(r.list) != 1 || get(r.list[0], "source") != "url" {
			t.Errorf("plain: %s", r.body)
		}
		id, _ := createWebhook(t, a, "https://hooks.example.com/x", `["*"]`)
		a.do(http.MethodPatch, "/admin/api/webhooks/"+id, jsonAPI,
			`{"data":{"type":"webhooks","id":"`+id+`","attributes":{"url":"https://192.168.0.1/"}}}`).want(t, 400)
		if got := a.do(http.MethodGet, "/admin/api/webhooks/"+id, jsonAPI, "").want(t, 200); got.value("data/attributes/url") != "https://hooks.example.com/x" {
			t.Errorf("a refused change was stored: %s", got.body)
		}
	})
}
