package cli

import (
	"reflect"
	"testing"
	"time"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/server/auth"
	"github.com/entityapi/entityapi/server/batch/split"
	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/server/storefront"
	"github.com/entityapi/entityapi/server/webhook"
	"github.com/entityapi/entityapi/storage/jobs"
)

// TestSettingsDefaultsAreThePackages: every setting whose value the server's
// packages also fill in when it is zero takes its default from the package
// (server.New, jobs.NewQueue, webhook.New, auth.New, the engine, CORS), so
// that `entityapi serve` and a server built in a test or a script run alike.
// A default written here as a literal again would fail it once the two
// differ.
func TestSettingsDefaultsAreThePackages(t *testing.T) {
	c, err := parseWith("serve", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		got, want any
	}{
		{"max-body", c.maxBody, int64(server.DefaultMaxBody)},
		{"max-batch-body", c.maxBatchBody, int64(server.DefaultMaxBatchBody)},
		{"max-batch-item", c.maxBatchItem, int64(split.DefaultMaxItemBytes)},
		{"max-atomic-operations", c.maxAtomicOperations, server.DefaultMaxAtomicOperations},
		{"max-aggregation-values", c.maxAggregationValues, engine.DefaultAggregationValues},
		{"sync-batch-timeout", c.syncBatchTimeout, server.DefaultSyncBatchTimeout},
		{"batch-upload-timeout", c.batchUpload, server.DefaultBatchUploadTimeout},
		{"cors-max-age", c.cors.MaxAge, server.DefaultCORSMaxAge},
		{"rate-limit-share", c.rateLimit.ShareEvery, server.DefaultRateShareEvery},
		{"guest-resources", c.guestResources, storefront.DefaultGuestResources},
		{"guest-max-age", c.guestMaxAge, server.DefaultGuestMaxAge},
		{"answer-cache", c.answerCache, int64(server.DefaultAnswerCache)},
		{"currencies", c.currencies, storefront.DefaultCurrencies},
		{"default-currency", c.defaultCurrency, storefront.DefaultCurrencies[0]},
		{"job-rescue-after", c.jobs.RescueAfter, jobs.DefaultRescueAfter},
		{"operation-lifetime", c.jobs.Lifetime, jobs.DefaultLifetime},
		{"event-lifetime", c.jobs.EventLifetime, jobs.DefaultEventLifetime},
		{"idempotency-ttl", c.idempotency.TTL, server.DefaultIdempotencyTTL},
		{"idempotency-max-keys", c.idempotency.MaxKeys, server.DefaultIdempotencyMaxKeys},
		{"webhook-poll", c.jobs.WebhookPoll, jobs.DefaultWebhookPoll},
		{"webhook-attempts", c.jobs.WebhookAttempts, jobs.DefaultWebhookAttempts},
		{"webhook-backoff", c.jobs.WebhookBackoff, jobs.DefaultWebhookBackoff},
		{"webhook-timeout (the queue's)", c.jobs.WebhookTimeout, jobs.DefaultWebhookTimeout},
		{"webhook-timeout (the service's)", c.webhooks.Timeout, jobs.DefaultWebhookTimeout},
		{"webhook-disable-after", c.webhooks.DisableAfter, webhook.DefaultDisableAfter},
		{"token-ttl", c.auth.TokenTTL, auth.DefaultTokenTTL},
		{"token-failures-per-address", c.auth.MaxFailures, auth.DefaultMaxFailures},
		{"token-failures-total", c.auth.MaxGlobalFailures, auth.DefaultMaxGlobalFailures},
		{"token-failure-window", c.auth.FailureWindow, auth.DefaultFailureWindow},
		{"jwt-user-claim", c.external.UserClaim, auth.DefaultUserClaim},
	} {
		if !reflect.DeepEqual(tc.got, tc.want) {
			t.Errorf("--%s defaults to %#v, its package to %#v", tc.name, tc.got, tc.want)
		}
	}
}

// TestDurationText: a default duration is shown as the table always showed
// it, and reads back to itself.
func TestDurationText(t *testing.T) {
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{time.Hour, "1h"},
		{30 * 24 * time.Hour, "720h"},
		{time.Minute, "60s"},
		{25 * time.Second, "25s"},
		{1500 * time.Millisecond, "1.5s"},
	} {
		got := durationText(tc.d)
		var back time.Duration
		if err := duration(got, &back); got != tc.want || err != nil || back != tc.d {
			t.Errorf("durationText(%s) = %q (reads back as %s, %v), want %q", tc.d, got, back, err, tc.want)
		}
	}
	if got := secondsText(10 * time.Minute); got != "600" {
		t.Errorf("secondsText(10m) = %q, want 600", got)
	}
}
