package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/entityapi/entityapi/server"
	"github.com/entityapi/entityapi/server/auth"
	"github.com/entityapi/entityapi/storage"
)

// config is every setting of `entityapi serve`, from flags and ENTITYAPI_*
// variables (flags win).
type config struct {
	addr, dataDir, databaseURL, publicURL, backofficeBase string
	storefrontBase, defaultCurrency                       string
	guestResources, currencies                            []string
	demo                                                  bool
	maxBody, maxBatchBody                                 int64
	shutdownTimeout, syncBatchTimeout                     time.Duration
	jobs                                                  storage.QueueConfig
	auth                                                  auth.Config
	cors                                                  server.CORSConfig
	rateLimit                                             server.RateLimitConfig
	args                                                  []string // what is left after the flags
}

// parseInterspersed lets flags follow positional arguments too
// (`entityapi org create Acme --data-dir ./data`), which the flag package alone
// stops at.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// parse reads the settings shared by every command; fs may add its own first.
func parse(fs *flag.FlagSet, args []string) (*config, error) {
	c := &config{}
	fs.StringVar(&c.addr, "addr", env("ADDR", "127.0.0.1:8080"), "listen address (ENTITYAPI_ADDR)")
	fs.StringVar(&c.dataDir, "data-dir", env("DATA_DIR", "./data"), "directory of the embedded database (ENTITYAPI_DATA_DIR)")
	fs.StringVar(&c.databaseURL, "database-url", env("DATABASE_URL", ""), "sqlite:PATH or postgres://... (ENTITYAPI_DATABASE_URL; default sqlite:<data-dir>/entityapi.db)")
	fs.StringVar(&c.publicURL, "public-url", env("PUBLIC_URL", ""), "absolute base of links and the tokens' issuer, such as https://api.example.com (ENTITYAPI_PUBLIC_URL; default: from each request)")
	fs.StringVar(&c.backofficeBase, "backoffice-base", env("BACKOFFICE_BASE", "/admin"), "path prefix of the back-office application (ENTITYAPI_BACKOFFICE_BASE)")
	fs.StringVar(&c.storefrontBase, "storefront-base", env("STOREFRONT_BASE", ""), "path prefix of the storefront application (ENTITYAPI_STOREFRONT_BASE; default: none, so /api/...)")
	guests := fs.String("guest-resources", env("GUEST_RESOURCES", strings.Join(server.DefaultGuestResources, ",")), "storefront resources readable without a token, comma-separated; empty: none (ENTITYAPI_GUEST_RESOURCES)")
	currencies := fs.String("currencies", env("CURRENCIES", strings.Join(server.DefaultCurrencies, ",")), "enabled storefront currencies (ISO 4217), comma-separated (ENTITYAPI_CURRENCIES)")
	fs.StringVar(&c.defaultCurrency, "default-currency", env("DEFAULT_CURRENCY", "USD"), "the currency without an X-Currency header; one of --currencies (ENTITYAPI_DEFAULT_CURRENCY)")
	fs.BoolVar(&c.demo, "demo", envBool("DEMO"), "load demo records and accept the demo clients and users (ENTITYAPI_DEMO)")
	maxBody := fs.String("max-body", env("MAX_BODY", "10485760"), "largest request body in bytes (ENTITYAPI_MAX_BODY)")
	tokenTTL := fs.String("token-ttl", env("TOKEN_TTL", "3600"), "access token lifetime in seconds (ENTITYAPI_TOKEN_TTL)")
	fs.StringVar(&c.auth.SigningKeyFile, "signing-key-file", env("SIGNING_KEY_FILE", ""), "PEM RSA private key that signs tokens instead of the database keys (ENTITYAPI_SIGNING_KEY_FILE)")
	ext := auth.External{}
	fs.StringVar(&ext.JWKSURL, "jwks-url", env("JWKS_URL", ""), "JWKS of an outside identity provider whose back-office tokens are accepted (ENTITYAPI_JWKS_URL)")
	fs.StringVar(&ext.Issuer, "jwt-issuer", env("JWT_ISSUER", ""), "iss of the outside provider's tokens (ENTITYAPI_JWT_ISSUER)")
	fs.StringVar(&ext.AudienceBackoffice, "jwt-audience-backoffice", env("JWT_AUDIENCE_BACKOFFICE", ""), "aud of the outside provider's back-office tokens (ENTITYAPI_JWT_AUDIENCE_BACKOFFICE)")
	fs.StringVar(&ext.AudienceStorefront, "jwt-audience-storefront", env("JWT_AUDIENCE_STOREFRONT", ""), "aud of the outside provider's storefront tokens (ENTITYAPI_JWT_AUDIENCE_STOREFRONT)")
	fs.StringVar(&ext.UserClaim, "jwt-user-claim", env("JWT_USER_CLAIM", "email"), "claim of an outside token naming our user by username or email (ENTITYAPI_JWT_USER_CLAIM)")
	fs.DurationVar(&c.shutdownTimeout, "shutdown-timeout", 15*time.Second, "how long to finish requests on SIGTERM")
	maxBatchBody := fs.String("max-batch-body", env("MAX_BATCH_BODY", "1073741824"), "largest batch request body in bytes (ENTITYAPI_MAX_BATCH_BODY)")
	workers := fs.String("workers", env("WORKERS", strconv.Itoa(runtime.NumCPU())), "batch chunks this process works on at once (ENTITYAPI_WORKERS)")
	fs.BoolVar(&c.jobs.NoWorkers, "no-workers", envBool("NO_WORKERS"), "process no batch chunks here: an API-only process (ENTITYAPI_NO_WORKERS)")
	syncTimeout := fs.String("sync-batch-timeout", env("SYNC_BATCH_TIMEOUT", "25s"), "how long an X-Mode: sync batch is waited for before it is answered 202 (ENTITYAPI_SYNC_BATCH_TIMEOUT)")
	rescue := fs.String("job-rescue-after", env("JOB_RESCUE_AFTER", "60s"), "a batch chunk left running by a dead process is retried after this (ENTITYAPI_JOB_RESCUE_AFTER)")
	lifetime := fs.String("operation-lifetime", env("OPERATION_LIFETIME", "720h"), "finished batch operations and their errors are deleted after this (ENTITYAPI_OPERATION_LIFETIME)")
	edge := addEdgeFlags(fs)
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return nil, err
	}
	if err := edge.apply(c); err != nil {
		return nil, err
	}
	c.args = positional
	n, err := strconv.ParseInt(*maxBody, 10, 64)
	if err != nil || n <= 0 {
		return nil, fmt.Errorf("--max-body %q: want a positive number of bytes", *maxBody)
	}
	c.maxBody = n
	c.guestResources = splitList(*guests)
	if c.currencies = splitList(*currencies); len(c.currencies) == 0 {
		return nil, fmt.Errorf("--currencies %q: name at least one ISO 4217 code", *currencies)
	}
	if c.storefrontBase == c.backofficeBase {
		return nil, fmt.Errorf("--storefront-base and --backoffice-base are both %q: the applications need distinct paths", c.backofficeBase)
	}
	if c.maxBatchBody, err = strconv.ParseInt(*maxBatchBody, 10, 64); err != nil || c.maxBatchBody <= 0 {
		return nil, fmt.Errorf("--max-batch-body %q: want a positive number of bytes", *maxBatchBody)
	}
	if c.jobs.Workers, err = strconv.Atoi(*workers); err != nil || c.jobs.Workers <= 0 {
		return nil, fmt.Errorf("--workers %q: want a positive number (or --no-workers)", *workers)
	}
	for _, d := range []struct {
		name, value string
		into        *time.Duration
	}{{"sync-batch-timeout", *syncTimeout, &c.syncBatchTimeout}, {"job-rescue-after", *rescue, &c.jobs.RescueAfter},
		{"operation-lifetime", *lifetime, &c.jobs.Lifetime}} {
		v, err := time.ParseDuration(d.value)
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("--%s %q: want a positive duration such as 30s or 24h", d.name, d.value)
		}
		*d.into = v
	}
	ttl, err := strconv.Atoi(*tokenTTL)
	if err != nil || ttl <= 0 {
		return nil, fmt.Errorf("--token-ttl %q: want a positive number of seconds", *tokenTTL)
	}
	c.auth.TokenTTL = time.Duration(ttl) * time.Second
	c.auth.Issuer = c.publicURL
	c.auth.Demo = c.demo
	if ext.JWKSURL != "" {
		c.auth.External = &ext
	}
	if c.databaseURL == "" {
		c.databaseURL = "sqlite:" + filepath.Join(c.dataDir, "entityapi.db")
	}
	return c, nil
}

// splitList reads a comma-separated setting, ignoring blanks.
func splitList(s string) []string {
	out := []string{}
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

func env(name, def string) string {
	if v, ok := os.LookupEnv("ENTITYAPI_" + name); ok {
		return v
	}
	return def
}

func envBool(name string) bool {
	b, _ := strconv.ParseBool(env(name, "false"))
	return b
}
