package server_test

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/server/webhook"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// receiver is a webhook receiver that verifies every signature as a
// Standard Webhooks consumer would: each of the secrets it expects must
// have signed the message (webhook-signature lists one entry per secret).
type receiver struct {
	t      *testing.T
	hs     *httptest.Server
	status atomic.Int32 // what it answers (200 unless set)

	mu       sync.Mutex
	secrets  []string       // every secret that must have signed a message
	got      map[string]int // attempts per webhook-id
	bodies   map[string]map[string]any
	entries  []int // signature entries per request
	headers  []http.Header
	problems []string
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{t: t, got: map[string]int{}, bodies: map[string]map[string]any{}}
	r.status.Store(200)
	r.hs = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.hs.Close)
	return r
}

func (r *receiver) expect(secrets ...string) {
	r.mu.Lock()
	r.secrets = secrets
	r.mu.Unlock()
}

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	payload, _ := io.ReadAll(req.Body)
	id, ts := req.Header.Get("webhook-id"), req.Header.Get("webhook-timestamp")
	sigs := strings.Fields(req.Header.Get("webhook-signature"))
	r.mu.Lock()
	defer r.mu.Unlock()
	stamp, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || time.Since(time.Unix(stamp, 0)).Abs() > 5*time.Minute {
		r.problems = append(r.problems, "bad webhook-timestamp "+ts)
	}
	for _, secret := range r.secrets {
		want, err := webhook.Sign(secret, id, stamp, payload)
		if err != nil || !slices.Contains(sigs, want) {
			r.problems = append(r.problems, "message "+id+" is not signed with "+secret[:12]+"...")
		}
	}
	var body map[string]any
	if err := json.Unmarshal(payload, &body); err != nil {
		r.problems = append(r.problems, "body is not JSON: "+string(payload))
	}
	r.got[id]++
	r.bodies[id] = body
	r.entries = append(r.entries, len(sigs))
	r.headers = append(r.headers, req.Header.Clone())
	w.WriteHeader(int(r.status.Load()))
}

// await waits until n distinct messages have arrived (a minute at most).
func (r *receiver) await(n int) map[string]int {
	r.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		r.mu.Lock()
		got := len(r.got)
		r.mu.Unlock()
		if got >= n || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range r.problems {
		r.t.Error(p)
	}
	r.problems = nil
	return maps.Clone(r.got)
}

// fastWebhooks makes retries and the dispatcher quick for tests.
func fastWebhooks(c *server.Config) {
	c.Jobs.WebhookPoll = 50 * time.Millisecond
	c.Jobs.WebhookBackoff = 20 * time.Millisecond
	c.Jobs.WebhookAttempts = 5
	c.Webhooks.Timeout = 5 * time.Second
	c.Webhooks.DisableAfter = 3
}

func createAccount(t *testing.T, a *api, name string) string {
	t.Helper()
	r := a.do(http.MethodPost, "/admin/api/accounts", jsonAPI, `{"data":{"type":"accounts","attributes":{"name":"`+name+`"}}}`).want(t, 201)
	return r.value("data/id").(string)
}

func TestWebhookDeliveriesAreSigned(t *testing.T) {
	t.Parallel()
	eachWebhookAPI(t, fastWebhooks, func(t *testing.T, a *api) {
		rcv := newReceiver(t)
		hookID, secret := createWebhook(t, a, rcv.hs.URL+"/in", `["accounts.created","accounts.updated"]`)
		rcv.expect(secret)
		other := newReceiver(t)
		_, otherSecret := createWebhook(t, a.caller("elsewhere-admin"), other.hs.URL, `["*"]`)
		other.expect(otherSecret)

		id := createAccount(t, a, "Hooked")
		a.do(http.MethodPatch, "/admin/api/accounts/"+id, jsonAPI,
			`{"data":{"type":"accounts","id":"`+id+`","attributes":{"name":"Hooked Inc"}}}`).want(t, 200)
		a.do(http.MethodPost, "/admin/api/businessunits", jsonAPI, `{"data":{"type":"businessunits","attributes":{"name":"Unwanted"}}}`).want(t, 201)
		got := rcv.await(2)
		if len(got) != 2 {
			t.Fatalf("the receiver got %v, want 2 messages", got)
		}
		var types []string
		rcv.mu.Lock()
		for msg, body := range rcv.bodies {
			types = append(types, body["type"].(string))
			data, _ := body["data"].(map[string]any)
			if data["resourceId"] != id || data["resourceType"] != "accounts" || "evt_"+strconv.Itoa(int(data["id"].(float64))) != msg {
				t.Errorf("message %s carries %v", msg, body)
			}
		}
		for _, h := range rcv.headers {
			if h.Get("traceparent") != "" {
				t.Errorf("a delivery carries a traceparent with tracing off: %s", h.Get("traceparent"))
			}
		}
		rcv.mu.Unlock()
		slices.Sort(types)
		if !slices.Equal(types, []string{"accounts.created", "accounts.updated"}) {
			t.Errorf("the receiver got %v", types)
		}

		// After a rotation both the new and the previous secret sign.
		r := a.do(http.MethodPatch, "/admin/api/webhooks/"+hookID, jsonAPI,
			`{"data":{"type":"webhooks","id":"`+hookID+`","meta":{"rotateSecret":true}}}`).want(t, 200)
		rotated := r.value("data/meta/secret").(string)
		rcv.expect(secret, rotated)
		a.do(http.MethodPatch, "/admin/api/accounts/"+id, jsonAPI,
			`{"data":{"type":"accounts","id":"`+id+`","attributes":{"name":"Hooked Ltd"}}}`).want(t, 200)
		if got := rcv.await(3); len(got) != 3 {
			t.Fatalf("after the rotation the receiver got %v", got)
		}
		rcv.mu.Lock()
		if n := rcv.entries[len(rcv.entries)-1]; n != 2 {
			t.Errorf("a delivery after a rotation carries %d signatures, want 2", n)
		}
		rcv.mu.Unlock()

		// The other organization's receiver saw its own event only.
		createAccount(t, a.caller("elsewhere-admin"), "Elsewhere")
		if got := other.await(1); len(got) != 1 {
			t.Fatalf("the other organization's receiver got %v", got)
		}
		time.Sleep(300 * time.Millisecond)
		other.mu.Lock()
		defer other.mu.Unlock()
		for msg, body := range other.bodies {
			if data, _ := body["data"].(map[string]any); data["resourceId"] == id {
				t.Errorf("the other organization got message %s of this one: %v", msg, body)
			}
		}
		if len(other.got) != 1 {
			t.Errorf("the other organization's receiver got %v", other.got)
		}
	})
}

func TestWebhookRetriesThenDisables(t *testing.T) {
	t.Parallel()
	eachWebhookAPI(t, fastWebhooks, func(t *testing.T, a *api) {
		rcv := newReceiver(t)
		rcv.status.Store(500)
		hookID, secret := createWebhook(t, a, rcv.hs.URL, `["accounts.*"]`)
		rcv.expect(secret)
		createAccount(t, a, "Failing")
		deadline := time.Now().Add(60 * time.Second)
		var r *result
		for time.Now().Before(deadline) {
			r = a.do(http.MethodGet, "/admin/api/webhooks/"+hookID, jsonAPI, "").want(t, 200)
			if r.value("data/attributes/enabled") == false {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		if r.value("data/attributes/enabled") != false || r.value("data/attributes/consecutiveFailures") != float64(3) ||
			r.value("data/attributes/disabledAt") == nil {
			t.Fatalf("after failing deliveries the webhook is %s", r.body)
		}
		got := rcv.await(1)
		time.Sleep(300 * time.Millisecond) // no attempt after the disabling one
		rcv.mu.Lock()
		if len(got) != 1 || len(rcv.entries) != 3 {
			t.Errorf("the receiver got %v in %d attempts, want one message tried 3 times", rcv.got, len(rcv.entries))
		}
		rcv.mu.Unlock()
		// A disabled webhook gets nothing; enabled again, it gets what follows.
		whileDisabled := createAccount(t, a, "While disabled")
		time.Sleep(time.Second)
		rcv.mu.Lock()
		if len(rcv.entries) != 3 {
			t.Errorf("a disabled webhook got a delivery: %v", rcv.got)
		}
		rcv.mu.Unlock()
		rcv.status.Store(200)
		a.do(http.MethodPatch, "/admin/api/webhooks/"+hookID, jsonAPI,
			`{"data":{"type":"webhooks","id":"`+hookID+`","attributes":{"enabled":true}}}`).want(t, 200)
		// The audit names the disabling as no one's (the dispatcher's), the
		// enabling as the administrator's; the failures themselves leave none.
		updates := a.do(http.MethodGet, "/admin/api/audits?sort=id&filter[action]=update&filter[objectClass]=webhooks&filter[objectId]="+hookID,
			jsonAPI, "").want(t, 200).value("data")
		if list, _ := updates.([]any); len(list) != 2 ||
			auditMatches(get(list[0], "attributes").(map[string]any), wantAudit{typ: "webhooks", action: "update", only: true,
				fields: map[string]any{"enabled": [2]any{true, false}}}) != "" || get(list[0], "attributes/userId") != nil ||
			auditMatches(get(list[1], "attributes").(map[string]any), wantAudit{typ: "webhooks", action: "update", only: true,
				fields: map[string]any{"enabled": [2]any{false, true}}}) != "" || get(list[1], "attributes/userId") == nil {
			t.Errorf("the webhook's audit of its disabling and enabling: %s", mustJSON(updates))
		}
		again := createAccount(t, a, "Enabled again")
		rcv.await(2)
		time.Sleep(300 * time.Millisecond)
		rcv.mu.Lock()
		defer rcv.mu.Unlock()
		found := false
		for _, body := range rcv.bodies {
			data, _ := body["data"].(map[string]any)
			switch data["resourceId"] {
			case again:
				found = true
			case whileDisabled:
				// On PostgreSQL its event may be numbered only after the
				// webhook is on again: it still is not the webhook's.
				t.Errorf("the event of the time the webhook was off was delivered once it was on: %v", rcv.got)
			}
		}
		if !found {
			t.Errorf("after enabling, the receiver got %v", rcv.got)
		}
	})
}

func TestWebhookThousandChanges(t *testing.T) {
	t.Parallel()
	eachWebhookAPI(t, fastWebhooks, func(t *testing.T, a *api) {
		rcv := newReceiver(t)
		_, secret := createWebhook(t, a, rcv.hs.URL, `["accounts.created"]`)
		rcv.expect(secret)
		r := a.do(http.MethodPatch, "/admin/api/accounts", jsonAPI, batchAccounts(1000, "Hooked")).want(t, 202)
		a.awaitOperation(t, r.value("data/id").(string))
		got := rcv.await(1000)
		if len(got) != 1000 {
			t.Fatalf("1,000 created accounts gave %d messages", len(got))
		}
	})
}

// TestWebhookRefusesPrivateAddressAtDelivery: a name that resolved to a
// public address when the webhook was made and to a loopback one when a
// delivery connects (DNS rebinding) is refused by the dialer.
func TestWebhookRefusesPrivateAddressAtDelivery(t *testing.T) {
	t.Parallel()
	var lookups atomic.Int32
	resolve := func(_ context.Context, host string) ([]netip.Addr, error) {
		if lookups.Add(1) == 1 {
			return []netip.Addr{netip.MustParseAddr("203.0.113.7")}, nil
		}
		return []netip.Addr{netip.MustParseAddr("127.0.0.1")}, nil
	}
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			lookups.Store(0)
			a := newAPIWith(t, storagetest.Open(t, dialect), func(c *server.Config) {
				fastWebhooks(c)
				c.Webhooks.Guard = webhook.Guard{AllowHTTP: true, Resolve: resolve}
			})
			rcv := newReceiver(t)
			port := rcv.hs.URL[strings.LastIndex(rcv.hs.URL, ":"):]
			hookID, _ := createWebhook(t, a, "http://rebound.example"+port+"/", `["accounts.created"]`)
			// The create check refuses what resolves privately now.
			a.do(http.MethodPost, "/admin/api/webhooks", jsonAPI,
				`{"data":{"type":"webhooks","attributes":{"url":"http://rebound.example/","eventTypes":["*"]}}}`).want(t, 400)
			createAccount(t, a, "Rebound")
			deadline := time.Now().Add(60 * time.Second)
			var r *result
			for time.Now().Before(deadline) {
				r = a.do(http.MethodGet, "/admin/api/webhooks/"+hookID, jsonAPI, "").want(t, 200)
				if r.value("data/attributes/consecutiveFailures") != float64(0) {
					break
				}
				time.Sleep(20 * time.Millisecond)
			}
			if r.value("data/attributes/consecutiveFailures") == float64(0) {
				t.Fatalf("no failed delivery: %s", r.body)
			}
			rcv.mu.Lock()
			defer rcv.mu.Unlock()
			if len(rcv.entries) != 0 {
				t.Errorf("the receiver on a loopback address got %d requests", len(rcv.entries))
			}
		})
	}
}

// TestWebhookDeliveryTraced: with tracing on, each attempt is a client span
// and the delivery carries its traceparent.
func TestWebhookDeliveryTraced(t *testing.T) {
	t.Parallel()
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			a, rec := tracedAPI(t, dialect, func(c *server.Config) {
				fastWebhooks(c)
				c.Webhooks.Guard = webhook.Guard{AllowHTTP: true, AllowPrivate: true}
			})
			rcv := newReceiver(t)
			_, secret := createWebhook(t, a, rcv.hs.URL, `["accounts.created"]`)
			rcv.expect(secret)
			createAccount(t, a, "Traced")
			rcv.await(1)
			sp := rec.await(t, "the delivery span", func(s tracetest.SpanStub) bool { return s.Name == "webhook delivery" })
			rcv.mu.Lock()
			defer rcv.mu.Unlock()
			tp := rcv.headers[0].Get("traceparent")
			if tp == "" || !strings.Contains(tp, sp.SpanContext.TraceID().String()) || !strings.Contains(tp, sp.SpanContext.SpanID().String()) {
				t.Errorf("the delivery's traceparent %q is not its span's (%s)", tp, sp.SpanContext.TraceID())
			}
		})
	}
}

// TestWebhookLogTestAndReplay: a test message and the replay of an event
// arrive (to a disabled webhook too), and every attempt is in the log.
func TestWebhookLogTestAndReplay(t *testing.T) {
	t.Parallel()
	eachWebhookAPI(t, fastWebhooks, func(t *testing.T, a *api) {
		rcv := newReceiver(t)
		hookID, secret := createWebhook(t, a, rcv.hs.URL, `["accounts.created"]`)
		rcv.expect(secret)
		createAccount(t, a, "Logged")
		got := rcv.await(1)
		var eventMsg string
		for msg := range got {
			eventMsg = msg
		}
		a.do(http.MethodPatch, "/admin/api/webhooks/"+hookID, jsonAPI,
			`{"data":{"type":"webhooks","id":"`+hookID+`","attributes":{"enabled":false}}}`).want(t, 200)
		base := "/admin/api/webhooks/" + hookID + "/deliveries"
		r := a.do(http.MethodPost, base, jsonAPI, `{"data":{"type":"webhookdeliveries"}}`).want(t, 202)
		testMsg, _ := r.value("meta/messageId").(string)
		if !strings.HasPrefix(testMsg, "test_") {
			t.Fatalf("a test message answered %s", r.body)
		}
		eventID := strings.TrimPrefix(eventMsg, "evt_")
		r = a.do(http.MethodPost, base, plain, `{"eventId":`+eventID+`}`).want(t, 202)
		if r.value("messageId") != eventMsg {
			t.Errorf("a replay answered %s, want %s", r.body, eventMsg)
		}
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			rcv.mu.Lock()
			n := rcv.got[eventMsg] + rcv.got[testMsg]
			rcv.mu.Unlock()
			if n >= 3 {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		rcv.await(2)
		rcv.mu.Lock()
		if rcv.got[eventMsg] != 2 || rcv.got[testMsg] != 1 || rcv.bodies[testMsg]["type"] != "webhook.test" {
			t.Errorf("the receiver got %v, test body %v", rcv.got, rcv.bodies[testMsg])
		}
		rcv.mu.Unlock()
		// The log: newest first, three successful attempts.
		var log *result
		for time.Now().Before(deadline) {
			if log = a.do(http.MethodGet, base, jsonAPI, "").want(t, 200); len(log.value("data").([]any)) >= 3 {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		entries := log.value("data").([]any)
		if len(entries) != 3 {
			t.Fatalf("the log is %s", log.body)
		}
		for _, e := range entries {
			attrs := get(e, "attributes").(map[string]any)
			if attrs["statusCode"] != float64(200) || attrs["attempt"] != float64(1) || attrs["error"] != nil {
				t.Errorf("a log entry is %v", attrs)
			}
			if (attrs["messageId"] == testMsg) != (attrs["eventId"] == nil) {
				t.Errorf("a log entry's event is %v", attrs)
			}
		}
		a.do(http.MethodGet, base+"?page[size]=1", plain, "").want(t, 200)
		// Another organization's event, or one that does not exist, is refused.
		createAccount(t, a.caller("elsewhere-admin"), "Elsewhere")
		events := (&feed{a: a.caller("elsewhere-admin")}).next(t, 1)
		if len(events) == 0 {
			t.Fatal("the other organization has no event")
		}
		elsewhere := events[len(events)-1]["id"].(string)
		for _, id := range []string{elsewhere, "999999"} {
			bad := a.do(http.MethodPost, base, jsonAPI, `{"data":{"type":"webhookdeliveries","attributes":{"eventId":"`+id+`"}}}`).want(t, 400)
			if bad.value("errors/0/source/pointer") != "/data/attributes/eventId" {
				t.Errorf("event %s: %s", id, bad.body)
			}
		}
		a.caller("elsewhere-admin").do(http.MethodGet, base, jsonAPI, "").want(t, 404)
		a.caller("manager").do(http.MethodGet, base, jsonAPI, "").want(t, 403)
		a.caller("manager").do(http.MethodPost, base, jsonAPI, `{"data":{"type":"webhookdeliveries"}}`).want(t, 403)
	})
}
