package server_test

import (
	"context"
	"fmt"
	"net/http"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/server/webhook"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// metadataNames is the test's DNS: names that resolve to cloud metadata
// addresses (as metadata.google.internal does) and one public name.
func metadataNames(_ context.Context, host string) ([]netip.Addr, error) {
	addrs := map[string]string{
		"metadata.google.internal": "169.254.169.254",
		"ecs-credentials.example":  "::ffff:169.254.170.2",
		"alibaba.example":          "100.100.100.200",
		"hooks.example.com":        "203.0.113.7",
	}
	a, ok := addrs[host]
	if !ok {
		return nil, fmt.Errorf("no such host %s", host)
	}
	return []netip.Addr{netip.MustParseAddr(a)}, nil
}

// TestWebhookRefusesMetadataAddresses: with --webhook-allow-private, a
// create or change naming a cloud metadata address, in any form, or a name
// that resolves to one, is a 400 url constraint in the negotiated format
// and writes nothing; --webhook-allow-addresses lets through exactly the
// addresses it names.
func TestWebhookRefusesMetadataAddresses(t *testing.T) {
	t.Parallel()
	refused := []string{
		"https://169.254.169.254/latest/meta-data/iam/security-credentials/",
		"https://169.254.170.2/v2/credentials",
		"https://169.254.170.23/v1/credentials",
		"https://169.254.169.253/",
		"https://169.254.169.123/",
		"https://169.254.0.23/",
		"https://100.100.100.200/latest/meta-data/",
		"https://168.63.129.16/machine?comp=goalstate",
		"https://[fd00:ec2::254]/latest/meta-data/",
		"https://[fd00:ec2::23]/",
		"https://[fd00:ec2::253]/",
		"https://[fd00:ec2::123]/",
		"https://[fd20:ce::254]/computeMetadata/v1/",
		"https://[fe80::a9fe:a9fe]/openstack/",
		"https://[::ffff:169.254.169.254]/",
		"https://[64:ff9b::a9fe:a9fe]/",
		"https://2852039166/",
		"https://0xa9fea9fe/",
		"https://metadata.google.internal/computeMetadata/v1/",
		"https://ecs-credentials.example/v2/credentials",
		"http://alibaba.example:8080/",
	}
	t.Run("refused", func(t *testing.T) {
		eachWebhookAPI(t, func(c *server.Config) { c.Webhooks.Guard.Resolve = metadataNames }, func(t *testing.T, a *api) {
			refuseMetadata(t, a, refused)
		})
	})
	// Named by the setting: that address (and names resolving to it) only.
	t.Run("named in the setting", func(t *testing.T) {
		eachWebhookAPI(t, func(c *server.Config) {
			c.Webhooks.Guard.Resolve = metadataNames
			allowed, err := webhook.ParseAllowed([]string{"169.254.169.254", "fd00:ec2::/32"})
			if err != nil {
				t.Fatal(err)
			}
			c.Webhooks.Guard.Allow = allowed
		}, func(t *testing.T, a *api) {
			createWebhook(t, a, "https://169.254.169.254/latest/meta-data/", `["*"]`)
			createWebhook(t, a, "https://[::ffff:169.254.169.254]/", `["*"]`)
			createWebhook(t, a, "https://metadata.google.internal/computeMetadata/v1/", `["*"]`)
			for _, url := range []string{"https://100.100.100.200/", "https://169.254.170.2/", "https://[fd00:ec2::254]/"} {
				a.do(http.MethodPost, "/admin/api/webhooks", jsonAPI,
					`{"data":{"type":"webhooks","attributes":{"url":"`+url+`","eventTypes":["*"]}}}`).want(t, 400)
			}
		})
	})
}

// refuseMetadata: each URL is refused in both formats, and a change too.
func refuseMetadata(t *testing.T, a *api, refused []string) {
	for _, url := range refused {
		t.Run(url, func(t *testing.T) {
			r := a.do(http.MethodPost, "/admin/api/webhooks", jsonAPI,
				`{"data":{"type":"webhooks","attributes":{"url":"`+url+`","eventTypes":["*"]}}}`).want(t, 400)
			if r.value("errors/0/title") != "url constraint" || r.value("errors/0/source/pointer") != "/data/attributes/url" {
				t.Errorf("JSON:API: %s", r.body)
			}
			p := a.do(http.MethodPost, "/admin/api/webhooks", plain, `{"url":"`+url+`","eventTypes":["*"]}`).want(t, 400)
			if len(p.list) != 1 || get(p.list[0], "source") != "url" || get(p.list[0], "title") != "url constraint" {
				t.Errorf("plain: %s", p.body)
			}
		})
	}
	if list := a.do(http.MethodGet, "/admin/api/webhooks", plain, "").want(t, 200); len(list.list) != 0 {
		t.Errorf("refused bodies stored webhooks: %s", list.body)
	}
	// A change is checked too, and a refused one leaves the URL as it was.
	id, _ := createWebhook(t, a, "https://hooks.example.com/in", `["*"]`)
	r := a.do(http.MethodPatch, "/admin/api/webhooks/"+id, jsonAPI,
		`{"data":{"type":"webhooks","id":"`+id+`","attributes":{"url":"https://metadata.google.internal/"}}}`).want(t, 400)
	if d, _ := r.value("errors/0/detail").(string); !strings.Contains(d, "cloud metadata address") {
		t.Errorf("the refusal says %s", r.body)
	}
	if got := a.do(http.MethodGet, "/admin/api/webhooks/"+id, jsonAPI, "").want(t, 200); got.value("data/attributes/url") != "https://hooks.example.com/in" {
		t.Errorf("a refused change was stored: %s", got.body)
	}
}

// TestWebhookRefusesMetadataAtDelivery: with --webhook-allow-private, a
// name that resolved to a public address when the webhook was made and to
// the metadata address when a delivery connects (DNS rebinding) is refused
// by the delivery's dialer, and the attempt is logged as a failure saying
// why.
func TestWebhookRefusesMetadataAtDelivery(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			refusedAtDelivery(t, dialect)
		})
	}
}

// refusedAtDelivery is TestWebhookRefusesMetadataAtDelivery on one
// database: its resolver counts lookups, so each database has its own.
func refusedAtDelivery(t *testing.T, dialect string) {
	var lookups atomic.Int32
	rebinding := func(context.Context, string) ([]netip.Addr, error) {
		if lookups.Add(1) == 1 {
			return []netip.Addr{netip.MustParseAddr("203.0.113.7")}, nil
		}
		return []netip.Addr{netip.MustParseAddr("169.254.169.254")}, nil
	}
	a := newAPIWith(t, storagetest.Open(t, dialect), func(c *server.Config) {
		fastWebhooks(c)
		c.Webhooks.Guard = webhook.Guard{AllowHTTP: true, AllowPrivate: true, Resolve: rebinding}
	})
	hookID, _ := createWebhook(t, a, "http://rebound.example/latest/meta-data/", `["accounts.created"]`)
	createAccount(t, a, "Rebound")
	base := "/admin/api/webhooks/" + hookID + "/deliveries"
	deadline := time.Now().Add(60 * time.Second)
	var log *result
	for time.Now().Before(deadline) {
		if log = a.do(http.MethodGet, base, jsonAPI, "").want(t, 200); len(log.value("data").([]any)) > 0 {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	entries := log.value("data").([]any)
	if len(entries) == 0 {
		t.Fatalf("no delivery was logged: %s", log.body)
	}
	attrs := get(entries[len(entries)-1], "attributes").(map[string]any)
	msg, _ := attrs["error"].(string)
	if attrs["statusCode"] != nil || !strings.Contains(msg, "169.254.169.254") || !strings.Contains(msg, "cloud metadata address") {
		t.Errorf("the first attempt is logged as %v", attrs)
	}
	if lookups.Load() < 2 {
		t.Errorf("the delivery did not resolve the name again (%d lookups)", lookups.Load())
	}
}
