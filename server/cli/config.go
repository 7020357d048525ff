package cli

import (
	"fmt"
	"log/slog"
	"math"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/server/auth"
	"github.com/entityapi/entityapi/server/batch/split"
	"github.com/entityapi/entityapi/server/engine"
	"github.com/entityapi/entityapi/server/storefront"
	"github.com/entityapi/entityapi/server/webhook"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/jobs"
)

// config is every setting of entityapi, read by parse from the settings table
// below: flags, ENTITYAPI_* variables and defaults.
type config struct {
	addr, dataDir, databaseURL, publicURL           string
	databasePooler, readDatabaseURL                 string
	searchConfiguration                             string
	readReplicaMaxLag                               time.Duration
	backofficeBase, storefrontBase, defaultCurrency string
	guestResources, currencies                      []string
	demo                                            bool
	maxBody, maxBatchBody, maxBatchItem             int64
	maxAtomicOperations                             int
	maxHeaderBytes                                  int
	maxAggregationValues                            int
	readHeaderTimeout, requestTimeout, idleTimeout  time.Duration
	shutdownTimeout, syncBatchTimeout, batchUpload  time.Duration
	logFormat, metricsAddr, debugAddr               string
	logLevel                                        slog.Level
	cors                                            server.CORSConfig
	rateLimit                                       server.RateLimitConfig
	jobs                                            jobs.Config
	idempotency                                     server.IdempotencyConfig
	guestMaxAge                                     time.Duration
	answerCache                                     int64
	webhooks                                        webhook.Config
	auth                                            auth.Config
	external                                        auth.External
	kek                                             kekSettings
	args                                            []string // what is left after the flags
}

// settings are every setting, in the order help and docs/settings.md list them.
var settings = []*setting{
	{name: "addr", def: "127.0.0.1:8080", usage: "listen address (HOST:PORT)", serve: true,
		set: func(c *config, v string) error { return hostPort(v, &c.addr) }},
	{name: "data-dir", def: "./data", usage: "directory of the embedded database",
		set: func(c *config, v string) error { return nonEmpty(v, &c.dataDir) }},
	{name: "database-url", show: "`sqlite:<data-dir>/entityapi.db`", usage: "sqlite:PATH or postgres://USER@HOST:PORT/DATABASE",
		set: func(c *config, v string) error { c.databaseURL = v; return nil }},
	{name: "read-database-url", show: "none: every read goes to --database-url", serve: true,
		usage: "postgres:// URL of a streaming replica of --database-url that serves reads while it keeps up (docs/scaling.md)",
		set:   func(c *config, v string) error { c.readDatabaseURL = v; return nil }},
	{name: "read-replica-max-lag", def: durationText(storage.DefaultReplicaMaxLag), serve: true,
		usage: "the most the read replica may lag behind the primary and still serve reads",
		set:   func(c *config, v string) error { return duration(v, &c.readReplicaMaxLag) }},
	{name: "database-pooler", def: storage.PoolerNone,
		usage: "what stands between this process and PostgreSQL: none, or transaction (a pooler in transaction mode, such as PgBouncer's; docs/scaling.md)",
		set: func(c *config, v string) error {
			c.databasePooler = v
			return storage.Options{Pooler: v}.Check("postgres://")
		}},
	{name: "search-configuration", def: storage.DefaultSearchConfiguration, builds: true,
		usage: "PostgreSQL's text-search configuration of full-text search, such as english; a change rebuilds the indexes at start (docs/queries.md, \"Search\")",
		set: func(c *config, v string) error {
			c.searchConfiguration = v
			return storage.Options{SearchConfiguration: v}.CheckSearchConfiguration("postgres://")
		}},
	{name: "public-url", show: "from each request", usage: "absolute base of links and the tokens' issuer, such as https://api.example.com", serve: true,
		set: func(c *config, v string) error { return absoluteURL(v, &c.publicURL) }},
	{name: "backoffice-base", def: "/admin", usage: "path prefix of the back-office application", serve: true,
		set: func(c *config, v string) error { return basePath(v, &c.backofficeBase) }},
	{name: "storefront-base", show: "none: the storefront is at `/api/...`", usage: "path prefix of the storefront application", serve: true,
		set: func(c *config, v string) error { return basePath(v, &c.storefrontBase) }},
	{name: "guest-resources", def: strings.Join(storefront.DefaultGuestResources, ","), list: true, serve: true,
		usage: "storefront resources readable without a token (empty: none)",
		set:   func(c *config, v string) error { c.guestResources = splitList(v); return nil }},
	{name: "guest-max-age", def: durationText(server.DefaultGuestMaxAge), serve: true,
		usage: "how long an HTTP cache or CDN may serve a storefront guest's read without asking again (0: always ask, with its ETag)",
		set:   func(c *config, v string) error { return maxAge(v, &c.guestMaxAge) }},
	{name: "answer-cache", def: strconv.FormatInt(server.DefaultAnswerCache, 10), serve: true,
		usage: "memory in bytes for answers of reference data kept rendered (countries, regions, currencies, localizations, user roles; 0: none kept)",
		set:   func(c *config, v string) error { return cacheBytes(v, &c.answerCache) }},
	{name: "currencies", def: strings.Join(storefront.DefaultCurrencies, ","), list: true, serve: true,
		usage: "the enabled storefront currencies (ISO 4217) of X-Currency",
		set: func(c *config, v string) error {
			if c.currencies = splitList(v); len(c.currencies) == 0 {
				return fmt.Errorf("name at least one ISO 4217 code")
			}
			return nil
		}},
	{name: "default-currency", def: storefront.DefaultCurrencies[0], usage: "the currency without an X-Currency header; one of --currencies", serve: true,
		set: func(c *config, v string) error { return nonEmpty(v, &c.defaultCurrency) }},
	{name: "demo", def: "false", show: "off (`make run` turns it on)", boolean: true, serve: true,
		usage: "load demo records and accept the demo clients and users",
		set:   func(c *config, v string) error { return boolean(v, &c.demo) }},
	{name: "max-body", def: strconv.FormatInt(server.DefaultMaxBody, 10), usage: "largest request body in bytes (413 above)", serve: true,
		set: func(c *config, v string) error { return byteCount(v, &c.maxBody) }},
	{name: "max-batch-body", def: strconv.FormatInt(server.DefaultMaxBatchBody, 10), usage: "largest batch request body in bytes (413 above)", serve: true,
		set: func(c *config, v string) error { return byteCount(v, &c.maxBatchBody) }},
	{name: "max-batch-item", def: strconv.FormatInt(split.DefaultMaxItemBytes, 10), usage: "largest item of a batch request in bytes (413 above, refused while it streams in)", serve: true,
		set: func(c *config, v string) error { return byteCount(v, &c.maxBatchItem) }},
	{name: "max-aggregation-values", def: strconv.Itoa(engine.DefaultAggregationValues), usage: "most values a count of filter[aggregations] answers, the most frequent first", serve: true,
		set: func(c *config, v string) error { return valueCount(v, &c.maxAggregationValues) }},
	{name: "max-atomic-operations", def: strconv.Itoa(server.DefaultMaxAtomicOperations), usage: "most operations of one atomic request, POST /admin/api/operations (413 above)", serve: true,
		set: func(c *config, v string) error { return valueCount(v, &c.maxAtomicOperations) }},
	{name: "max-header-bytes", def: "1048576", usage: "largest request line and headers in bytes (431 above)", serve: true,
		set: func(c *config, v string) error {
			var n int64
			err := byteCount(v, &n)
			c.maxHeaderBytes = int(n)
			return err
		}},
	{name: "read-header-timeout", def: "10s", usage: "time to read a request's headers", serve: true,
		set: func(c *config, v string) error { return duration(v, &c.readHeaderTimeout) }},
	{name: "request-timeout", def: "30s", usage: "time to read a request and write its answer (batch requests have --batch-upload-timeout)", serve: true,
		set: func(c *config, v string) error { return duration(v, &c.requestTimeout) }},
	{name: "idle-timeout", def: "120s", usage: "how long an idle keep-alive connection stays open", serve: true,
		set: func(c *config, v string) error { return duration(v, &c.idleTimeout) }},
	{name: "batch-upload-timeout", def: durationText(server.DefaultBatchUploadTimeout), usage: "time to read a batch request's body and answer it, sync batches included", serve: true,
		set: func(c *config, v string) error { return duration(v, &c.batchUpload) }},
	{name: "shutdown-timeout", def: "15s", usage: "on SIGTERM or SIGINT, how long requests in flight may finish", serve: true,
		set: func(c *config, v string) error { return duration(v, &c.shutdownTimeout) }},
	{name: "workers", show: "the number of CPUs", usage: "batch chunks this process works on at once", serve: true,
		set: func(c *config, v string) error {
			if v == "" {
				c.jobs.Workers = runtime.NumCPU()
				return nil
			}
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return fmt.Errorf("want a positive number (or --no-workers)")
			}
			c.jobs.Workers = n
			return nil
		}},
	{name: "no-workers", def: "false", show: "off", boolean: true, serve: true,
		usage: "process no batch chunks here: an API-only process",
		set:   func(c *config, v string) error { return boolean(v, &c.jobs.NoWorkers) }},
	{name: "sync-batch-timeout", def: durationText(server.DefaultSyncBatchTimeout), usage: "how long an X-Mode: sync batch is waited for before it is answered 202", serve: true,
		set: func(c *config, v string) error { return duration(v, &c.syncBatchTimeout) }},
	{name: "job-rescue-after", def: durationText(jobs.DefaultRescueAfter), usage: "a batch chunk left running by a dead process is retried after this", serve: true,
		set: func(c *config, v string) error { return duration(v, &c.jobs.RescueAfter) }},
	{name: "operation-lifetime", def: durationText(jobs.DefaultLifetime), usage: "finished batch operations and their errors are deleted after this", serve: true,
		set: func(c *config, v string) error { return duration(v, &c.jobs.Lifetime) }},
	{name: "idempotency-ttl", def: durationText(server.DefaultIdempotencyTTL), usage: "how long an Idempotency-Key of a write is kept: a retry with it within this time gets the first answer again", serve: true,
		set: func(c *config, v string) error { return duration(v, &c.idempotency.TTL) }},
	{name: "idempotency-max-keys", def: strconv.Itoa(server.DefaultIdempotencyMaxKeys), usage: "most live Idempotency-Keys of one caller (client and user); a new key past it is a 429", serve: true,
		set: func(c *config, v string) error { return keyCount(v, &c.idempotency.MaxKeys) }},
	{name: "event-lifetime", def: durationText(jobs.DefaultEventLifetime), usage: "change events (GET /admin/api/events) are deleted this long after their change", serve: true,
		set: func(c *config, v string) error { return duration(v, &c.jobs.EventLifetime) }},
	{name: "audit-retention", def: "0", show: "0: kept forever", usage: "audit records (GET /admin/api/audits) are deleted this long after their change; 0 keeps them", serve: true,
		set: func(c *config, v string) error { return retention(v, &c.jobs.AuditRetention) }},
	{name: "webhook-allow-http", def: "false", show: "off: https only", boolean: true, serve: true,
		usage: "webhooks may target plain http URLs",
		set:   func(c *config, v string) error { return boolean(v, &c.webhooks.Guard.AllowHTTP) }},
	{name: "webhook-allow-private", def: "false", show: "off", boolean: true, serve: true,
		usage: "webhooks may target loopback, private, link-local and unique-local addresses (a receiver on your own network); cloud metadata addresses stay refused",
		set:   func(c *config, v string) error { return boolean(v, &c.webhooks.Guard.AllowPrivate) }},
	{name: "webhook-allow-addresses", list: true, show: "none", serve: true,
		usage: "IP addresses and CIDR ranges webhooks may target whatever the address rules say, comma-separated or repeated; a cloud metadata address (docs/webhooks.md) only when listed alone, such as 169.254.169.254",
		set: func(c *config, v string) error {
			allowed, err := webhook.ParseAllowed(splitList(v))
			c.webhooks.Guard.Allow = allowed
			return err
		}},
	{name: "webhook-timeout", def: durationText(jobs.DefaultWebhookTimeout), usage: "time a webhook receiver has to answer one delivery", serve: true,
		set: func(c *config, v string) error {
			if err := duration(v, &c.webhooks.Timeout); err != nil {
				return err
			}
			c.jobs.WebhookTimeout = c.webhooks.Timeout
			return nil
		}},
	{name: "webhook-attempts", def: strconv.Itoa(jobs.DefaultWebhookAttempts), usage: "attempts of one webhook delivery before it is given up", serve: true,
		set: func(c *config, v string) error { return valueCount(v, &c.jobs.WebhookAttempts) }},
	{name: "webhook-backoff", def: durationText(jobs.DefaultWebhookBackoff), usage: "wait after a webhook delivery's first failed attempt, doubled after each (10s and 14 attempts: about a day)", serve: true,
		set: func(c *config, v string) error { return duration(v, &c.jobs.WebhookBackoff) }},
	{name: "webhook-disable-after", def: strconv.Itoa(webhook.DefaultDisableAfter), usage: "failed webhook deliveries in a row that disable the webhook", serve: true,
		set: func(c *config, v string) error { return valueCount(v, &c.webhooks.DisableAfter) }},
	{name: "webhook-poll", def: durationText(jobs.DefaultWebhookPoll), usage: "how often the change events are looked at for webhook deliveries", serve: true,
		set: func(c *config, v string) error { return duration(v, &c.jobs.WebhookPoll) }},
	{name: "token-ttl", def: secondsText(auth.DefaultTokenTTL), usage: "access token lifetime in seconds", serve: true,
		set: func(c *config, v string) error { return seconds(v, &c.auth.TokenTTL) }},
	{name: "signing-key-file", show: "none: keys live in the database", usage: "PEM RSA private key that signs tokens instead of the database keys", serve: true,
		set: func(c *config, v string) error { c.auth.SigningKeyFile = v; return nil }},
	{name: "key-encryption-key-file", keys: true, show: "none: signing keys stored as plain PEM",
		usage: "file holding the key-encryption key that seals the signing keys in the database: 32 bytes in base64 (`openssl rand -base64 32`)",
		set:   func(c *config, v string) error { c.kek.file = v; return nil }},
	{name: "key-encryption-key", keys: true, show: "none", usage: "the key-encryption key itself, 32 bytes in base64; give it as the variable, a flag shows in `ps`",
		set: func(c *config, v string) error { c.kek.text = v; return nil }},
	{name: "key-encryption-key-previous-file", keys: true, show: "none", usage: "file holding the key-encryption key being replaced: what it sealed is sealed again with the current one",
		set: func(c *config, v string) error { c.kek.previousFile = v; return nil }},
	{name: "key-encryption-key-previous", keys: true, show: "none", usage: "the key-encryption key being replaced, 32 bytes in base64 (as the variable)",
		set: func(c *config, v string) error { c.kek.previousText = v; return nil }},
	{name: "token-failures-per-address", def: strconv.Itoa(auth.DefaultMaxFailures), serve: true,
		usage: "wrong secrets of one client, or passwords of one user, from one address within --token-failure-window before the token endpoint answers 429 for it there (0: no limit)",
		set:   func(c *config, v string) error { return failureLimit(v, &c.auth.MaxFailures) }},
	{name: "token-failures-total", def: strconv.Itoa(auth.DefaultMaxGlobalFailures), serve: true,
		usage: "the same from all addresses together, before the token endpoint answers 429 for that client or user everywhere (0: no limit)",
		set:   func(c *config, v string) error { return failureLimit(v, &c.auth.MaxGlobalFailures) }},
	{name: "token-failure-window", def: durationText(auth.DefaultFailureWindow), serve: true,
		usage: "the window the token failure limits count in, from the first failure",
		set:   func(c *config, v string) error { return duration(v, &c.auth.FailureWindow) }},
	{name: "log-format", def: "auto",
		usage: "text (key=value lines, for a person) or json (JSON lines, for a log collector); auto: text when standard error is a terminal, else json",
		set: func(c *config, v string) error {
			if v != "auto" && v != "json" && v != "text" {
				return fmt.Errorf("want auto, text or json")
			}
			c.logFormat = v
			return nil
		}},
	{name: "log-level", def: "info", usage: "the least level written: debug, info, warn or error",
		set: func(c *config, v string) error {
			if err := c.logLevel.UnmarshalText([]byte(v)); err != nil {
				return fmt.Errorf("want debug, info, warn or error")
			}
			return nil
		}},
	{name: "metrics-addr", show: "none: `/metrics` is served on `--addr`", usage: "serve /metrics on this address alone (HOST:PORT)", serve: true,
		set: func(c *config, v string) error {
			if v == "" {
				return nil
			}
			return hostPort(v, &c.metricsAddr)
		}},
	{name: "debug-addr", show: "none: no profiles are served", usage: "serve Go's profiles (/debug/pprof/: heap, CPU, goroutines) on this address alone (HOST:PORT); keep it private", serve: true,
		set: func(c *config, v string) error {
			if v == "" {
				return nil
			}
			return hostPort(v, &c.debugAddr)
		}},
	{name: "cors-origin", list: true, show: "none: no CORS headers",
		usage: "an origin whose scripts may call the APIs, such as https://shop.example.com, or * for any; repeatable", serve: true,
		set: func(c *config, v string) error {
			c.cors.Origins = splitList(v)
			for _, o := range c.cors.Origins {
				if _, err := server.NormalizeOrigin(o); err != nil {
					return fmt.Errorf("%q: want scheme://host[:port] such as https://shop.example.com, or *", o)
				}
			}
			return nil
		}},
	{name: "cors-max-age", def: secondsText(server.DefaultCORSMaxAge), usage: "seconds a browser may cache a CORS preflight answer", serve: true,
		set: func(c *config, v string) error { return seconds(v, &c.cors.MaxAge) }},
	{name: "rate-limit", show: "none: no limit", usage: "requests per second each client may send to the APIs, counted over every process on the database, such as 10 or 0.5 (0: no limit)", serve: true,
		set: func(c *config, v string) error {
			if v == "" {
				return nil
			}
			r, err := strconv.ParseFloat(v, 64)
			if err != nil || r < 0 || math.IsInf(r, 0) || math.IsNaN(r) {
				return fmt.Errorf("want requests per second, such as 10 or 0.5 (0: no limit)")
			}
			c.rateLimit.PerSecond = r
			return nil
		}},
	{name: "rate-burst", show: "twice --rate-limit, at least 1", usage: "requests a client may send at once after a quiet spell", serve: true,
		set: func(c *config, v string) error {
			if v == "" {
				return nil
			}
			b, err := strconv.Atoi(v)
			if err != nil || b <= 0 {
				return fmt.Errorf("want a positive number of requests")
			}
			c.rateLimit.Burst = b
			return nil
		}},
	{name: "rate-limit-share", def: secondsText(server.DefaultRateShareEvery),
		usage: "seconds between two shares of the rate limit's counts with the other processes: a client may exceed --rate-limit by what the others allow it in two", serve: true,
		set: func(c *config, v string) error { return seconds(v, &c.rateLimit.ShareEvery) }},
	{name: "jwks-url", usage: "JWKS of an outside identity provider whose back-office tokens are accepted", serve: true,
		set: func(c *config, v string) error { return absoluteURL(v, &c.external.JWKSURL) }},
	{name: "jwt-issuer", usage: "iss of the outside provider's tokens", serve: true,
		set: func(c *config, v string) error { c.external.Issuer = v; return nil }},
	{name: "jwt-audience-backoffice", usage: "aud of the outside provider's back-office tokens", serve: true,
		set: func(c *config, v string) error { c.external.AudienceBackoffice = v; return nil }},
	{name: "jwt-audience-storefront", usage: "aud of the outside provider's storefront tokens", serve: true,
		set: func(c *config, v string) error { c.external.AudienceStorefront = v; return nil }},
	{name: "jwt-user-claim", def: auth.DefaultUserClaim, usage: "claim of an outside token naming our user by username or email", serve: true,
		set: func(c *config, v string) error { return nonEmpty(v, &c.external.UserClaim) }},
}

// storeOptions are how the process opens its database.
func (c *config) storeOptions() storage.Options {
	return storage.Options{Pooler: c.databasePooler, SearchConfiguration: c.searchConfiguration}
}

// finish checks what involves several settings, and what must be true before
// anything starts (the database URL parses, the key file reads), so a mistake
// stops the process at once with one line.
func (c *config) finish(cmd string) error {
	if c.databaseURL == "" {
		c.databaseURL = "sqlite:" + filepath.Join(c.dataDir, "entityapi.db")
	}
	if err := storage.CheckURL(c.databaseURL); err != nil {
		return fmt.Errorf("--database-url %w", err)
	}
	if err := c.storeOptions().Check(c.databaseURL); err != nil {
		return fmt.Errorf("--database-pooler: %w", err)
	}
	if err := c.storeOptions().CheckSearchConfiguration(c.databaseURL); err != nil {
		return fmt.Errorf("--search-configuration: %w", err)
	}
	if c.readDatabaseURL != "" {
		if err := storage.CheckReplicaURL(c.databaseURL, c.readDatabaseURL); err != nil {
			return fmt.Errorf("--read-database-url %w", err)
		}
	}
	kek, err := c.kek.build()
	if err != nil {
		return err
	}
	c.auth.KeyEncryption = kek
	if cmd != "serve" {
		return nil
	}
	if c.storefrontBase == c.backofficeBase {
		return fmt.Errorf("--storefront-base and --backoffice-base are both %q: the applications need distinct paths", c.backofficeBase)
	}
	if c.metricsAddr != "" && c.metricsAddr == c.addr {
		return fmt.Errorf("--metrics-addr %q is --addr too: leave it empty to serve /metrics there", c.metricsAddr)
	}
	if c.debugAddr != "" && (c.debugAddr == c.addr || c.debugAddr == c.metricsAddr) {
		return fmt.Errorf("--debug-addr %q is taken by --addr or --metrics-addr: the profiles need an address of their own", c.debugAddr)
	}
	if c.rateLimit.Burst > 0 && c.rateLimit.PerSecond == 0 {
		return fmt.Errorf("--rate-burst %d: only with --rate-limit", c.rateLimit.Burst)
	}
	if !slices.Contains(c.currencies, c.defaultCurrency) {
		return fmt.Errorf("--default-currency %q is not one of --currencies %s", c.defaultCurrency, strings.Join(c.currencies, ","))
	}
	if c.auth.SigningKeyFile != "" {
		if err := auth.CheckKeyFile(c.auth.SigningKeyFile); err != nil {
			return fmt.Errorf("--signing-key-file: %w", err)
		}
	}
	c.auth.Issuer = c.publicURL
	c.auth.Demo = c.demo
	if c.external.JWKSURL != "" {
		c.auth.External = &c.external
	}
	return nil
}
