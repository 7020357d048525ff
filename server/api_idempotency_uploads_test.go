package server_test

import (
	"context"
	"crypto/rand"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/server/auth"
	"github.com/entityapi/entityapi/server/webhook"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// keyedWith is headers with an Idempotency-Key.
func keyedWith(headers map[string]string, key string) map[string]string {
	h := map[string]string{"Idempotency-Key": key}
	for k, v := range headers {
		h[k] = v
	}
	return h
}

// keptBodies are the answers kept in the database, as they are stored.
func (a *api) keptBodies(t *testing.T) []string {
	t.Helper()
	var bodies []string
	if err := a.store.DB().NewSelect().Table("idempotency_keys").Column("body").Scan(context.Background(), &bodies); err != nil {
		t.Fatal(err)
	}
	return bodies
}

// deliveryJobs counts the webhook deliveries queued, whatever their state.
func (a *api) deliveryJobs(t *testing.T) int {
	t.Helper()
	n, err := a.store.DB().NewSelect().Table("river_job").Where("kind = ?", "webhook_delivery").Count(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return int(n)
}

// TestIdempotencyKeyBatchUploads: a keyed batch upload, asynchronous or
// synchronous, is answered again on a retry (the same operation, the same
// records) with nothing staged, queued or written twice; the same key with
// another body is a 422; a refused upload keeps nothing.
func TestIdempotencyKeyBatchUploads(t *testing.T) {
	eachAPI(t, func(t *testing.T, a *api) {
		// Asynchronous: the 202 and its operation.
		body := batchAccounts(3, "Keyed Batch")
		h := keyedWith(jsonAPI, `"upload-1"`)
		first := a.do(http.MethodPatch, "/admin/api/accounts", h, body).want(t, 202)
		ops := a.operationCount(t)
		for i := 0; i < 2; i++ {
			sameAnswer(t, first, a.do(http.MethodPatch, "/admin/api/accounts", h, body))
			if got, want := a.do(http.MethodPatch, "/admin/api/accounts", h, body).header.Get("Content-Location"), first.header.Get("Content-Location"); got != want {
				t.Errorf("a retry's Content-Location is %q, the first answer's %q", got, want)
			}
		}
		if n := a.operationCount(t); n != ops {
			t.Errorf("the retries made %d more operations", n-ops)
		}
		a.awaitOperation(t, first.value("data/id").(string))
		if n := a.count("/admin/api/accounts?filter[name]=Keyed%20Batch%200,Keyed%20Batch%201,Keyed%20Batch%202"); n != 3 {
			t.Errorf("%d accounts of the keyed batch, want 3", n)
		}
		// Another body with the key: 422, and nothing is staged.
		a.do(http.MethodPatch, "/admin/api/accounts", h, batchAccounts(2, "Other Batch")).want(t, 422)
		if n := a.operationCount(t); n != ops {
			t.Errorf("a refused keyed upload left %d operations", n-ops)
		}
		// The retries were read, not staged: none made an operation, so
		// the next upload's is the one after the first's.
		next := a.do(http.MethodPatch, "/admin/api/accounts", jsonAPI, batchAccounts(1, "After Retries")).want(t, 202)
		firstID, _ := strconv.Atoi(first.value("data/id").(string))
		if got := next.value("data/id"); got != strconv.Itoa(firstID+1) {
			t.Errorf("the upload after the retries is operation %v, the first was %d: the retries staged their bodies", got, firstID)
		}
		a.awaitOperation(t, next.value("data/id").(string)) // its change event before the counts below

		// Synchronous: the written records.
		sync := keyedWith(syncMode, `"upload-sync"`)
		syncBody := `{"data":[{"type":"accounts","attributes":{"name":"Keyed Sync"}}]}`
		sfirst := a.do(http.MethodPatch, "/admin/api/accounts", sync, syncBody).want(t, 200)
		events := a.eventCount(t)
		sameAnswer(t, sfirst, a.do(http.MethodPatch, "/admin/api/accounts", sync, syncBody))
		if n := a.count("/admin/api/accounts?filter[name]=Keyed%20Sync"); n != 1 {
			t.Errorf("%d accounts of the keyed synchronous batch, want 1", n)
		}
		if n := a.eventCount(t); n != events {
			t.Errorf("the retry of a synchronous batch recorded %d change events", n-events)
		}

		// Refused uploads keep nothing: items with problems, the plain
		// format, a body that is not JSON.
		kept := a.idempotencyRows(t)
		bad := keyedWith(syncMode, `"upload-bad"`)
		for i := 0; i < 2; i++ {
			a.do(http.MethodPatch, "/admin/api/accounts", bad, `{"data":[{"type":"accounts","attributes":{"name":""}}]}`).want(t, 400)
		}
		a.do(http.MethodPatch, "/admin/api/accounts", keyedWith(jsonAPI, `"upload-broken"`), `{"data":[`).want(t, 400)
		a.do(http.MethodPatch, "/admin/api/accounts", keyedWith(plain, `"upload-plain"`), body).want(t, 405)
		if n := a.idempotencyRows(t); n != kept {
			t.Errorf("refused uploads kept %d answers", n-kept)
		}
		// The problems were answered, not kept: the key serves the request
		// once it is sound.
		a.do(http.MethodPatch, "/admin/api/accounts", bad, `{"data":[{"type":"accounts","attributes":{"name":""}}]}`).want(t, 400)
	})
}

// TestIdempotencyKeyWebhooksAndCancel: the writes of webhooks, their
// messages and the cancel of an operation take a key; the answer that shows a webhook's
// secret is replayed with the same secret and kept sealed when a
// key-encryption key is set.
func TestIdempotencyKeyWebhooksAndCancel(t *testing.T) {
	t.Parallel()
	kek := make([]byte, 32)
	_, _ = rand.Read(kek)
	enc, err := auth.NewKeyEncryption(kek, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, dialect := range storagetest.Dialects() {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			a := newAPIWith(t, storagetest.Open(t, dialect), func(c *server.Config) {
				c.Webhooks.Guard = webhook.Guard{AllowHTTP: true, AllowPrivate: true}
				c.Auth.KeyEncryption = enc
			})
			create := `{"data":{"type":"webhooks","attributes":{"url":"http://127.0.0.1:9/hook","eventTypes":["accounts.*"]}}}`
			h := keyedWith(jsonAPI, `"hook-1"`)
			first := a.do(http.MethodPost, "/admin/api/webhooks", h, create).want(t, 201)
			secret, _ := first.value("data/meta/secret").(string)
			if !strings.HasPrefix(secret, "whsec_") {
				t.Fatalf("the create answer's secret is %q", secret)
			}
			sameAnswer(t, first, a.do(http.MethodPost, "/admin/api/webhooks", h, create))
			if n := a.count("/admin/api/webhooks"); n != 1 {
				t.Errorf("%d webhooks after a keyed create and its retry", n)
			}
			id := first.value("data/id").(string)
			rotate := `{"data":{"type":"webhooks","id":"` + id + `","meta":{"rotateSecret":true}}}`
			rh := keyedWith(jsonAPI, `"hook-rotate"`)
			rotated := a.do(http.MethodPatch, "/admin/api/webhooks/"+id, rh, rotate).want(t, 200)
			if s, _ := rotated.value("data/meta/secret").(string); s == "" || s == secret {
				t.Fatalf("the rotation answered the secret %q", s)
			}
			sameAnswer(t, rotated, a.do(http.MethodPatch, "/admin/api/webhooks/"+id, rh, rotate))
			for _, body := range a.keptBodies(t) {
				if strings.Contains(body, "whsec_") {
					t.Errorf("a kept answer holds a secret in clear: %.80s", body)
				}
			}
			// A test message: queued once, its id the same in the retry's
			// answer; the key with another message is a 422.
			mh := keyedWith(jsonAPI, `"hook-message"`)
			sent := a.do(http.MethodPost, "/admin/api/webhooks/"+id+"/deliveries", mh, `{"data":{"type":"webhookdeliveries"}}`).want(t, 202)
			if m, _ := sent.value("meta/messageId").(string); !strings.HasPrefix(m, "test_") {
				t.Errorf("the keyed test message is %s", sent.body)
			}
			sameAnswer(t, sent, a.do(http.MethodPost, "/admin/api/webhooks/"+id+"/deliveries", mh, `{"data":{"type":"webhookdeliveries"}}`))
			a.do(http.MethodPost, "/admin/api/webhooks/"+id+"/deliveries", mh, `{"data":{"type":"webhookdeliveries","attributes":{"eventId":"1"}}}`).want(t, 422)
			if n := a.deliveryJobs(t); n != 1 {
				t.Errorf("%d delivery jobs after a keyed message and its retries, want 1", n)
			}

			dh := keyedWith(jsonAPI, `"hook-delete"`)
			a.do(http.MethodDelete, "/admin/api/webhooks/"+id, dh, "").want(t, 204)
			a.do(http.MethodDelete, "/admin/api/webhooks/"+id, dh, "").want(t, 204) // the first answer, not a 404

			// The cancel of an operation: a retry is the first answer, where
			// a second cancel without the key is a 409.
			op := a.stagedOperation(t, "admin")
			cancel := `{"data":{"type":"asyncoperations","id":"` + op + `","attributes":{"status":"cancelled"}}}`
			ch := keyedWith(jsonAPI, `"cancel-1"`)
			cancelled := a.do(http.MethodPatch, "/admin/api/asyncoperations/"+op, ch, cancel).want(t, 200)
			sameAnswer(t, cancelled, a.do(http.MethodPatch, "/admin/api/asyncoperations/"+op, ch, cancel))
			a.do(http.MethodPatch, "/admin/api/asyncoperations/"+op, jsonAPI, cancel).want(t, 409)
		})
	}
}
