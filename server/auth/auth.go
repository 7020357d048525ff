// Package auth is entityapi's OAuth 2.0 side (docs/decisions.md §8, oro-behaviour
// §11): the token endpoint that trades client (and user) credentials for an
// RS256 JWT, the public key set, and the check of a bearer token that every
// API request goes through.
//
// Signing keys live in the database so that every process signs and
// verifies with the same set; each Service re-reads them periodically, so a
// key added by RotateKey (`entityapi keys rotate`) signs everywhere within
// ReloadEvery, while older keys keep verifying until their last token has
// expired. An outside identity provider's back-office tokens may be accepted
// beside our own; the token's iss chooses the key set.
//
// The package imports storage/authstore and Gin but nothing of server, so server can
// mount its handlers and call Authenticate without an import cycle.
package auth

import (
	"context"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/MicahParks/keyfunc/v3"
	"golang.org/x/time/rate"

	"github.com/entityapi/entityapi/storage/authstore"
)

// The defaults of Config's zero values (docs/decisions.md §10, issue 4).
const (
	DefaultTokenTTL          = 3600 * time.Second
	DefaultIssuer            = "entityapi"
	DefaultReloadEvery       = time.Minute
	DefaultMaxFailures       = 10
	DefaultMaxGlobalFailures = 100
	DefaultFailureWindow     = 60 * time.Second
	DefaultEnabledCacheTTL   = 30 * time.Second
	DefaultUserClaim         = "email"
)

// leeway is the clock difference allowed between a token's issuer and us.
const leeway = 30 * time.Second

// Config holds the settings of a Service; zero values take the defaults.
type Config struct {
	TokenTTL          time.Duration    // lifetime of the tokens we issue (--token-ttl)
	Issuer            string           // iss of our tokens: --public-url, or "entityapi" when empty
	SigningKeyFile    string           // PEM RSA private key that replaces the database keys (--signing-key-file)
	ReloadEvery       time.Duration    // how often the key set is re-read from the database
	Demo              bool             // demo clients and users are accepted only then (--demo)
	External          *External        // nil: no outside identity provider
	MaxFailures       int              // failed checks of one client secret or password from one address before 429; negative: no limit
	MaxGlobalFailures int              // the same from all addresses together; negative: no limit
	FailureWindow     time.Duration    // the window both count in, from the first failure
	EnabledCacheTTL   time.Duration    // how long a client's or user's state may be served from memory
	Now               func() time.Time // the clock; tests move it
	Events            Events           // told of token issues and refusals, for metrics
	// KeyEncryption seals the signing keys in the database (kek.go); nil:
	// they are stored as plain PEM.
	KeyEncryption *KeyEncryption
}

// Events are functions the token endpoint calls as things happen, so that the
// server can count them without this package knowing of metrics. Nil fields
// are skipped. They never receive a secret or a token.
type Events struct {
	// TokenIssued is called for every token issued: the client's application
	// (authstore.AppBackoffice or authstore.AppStorefront) and the grant type.
	TokenIssued func(app, grant string)
	// CredentialsRefused is called when the token endpoint refuses
	// credentials: reason is the OAuth error code (invalid_client,
	// invalid_grant, too_many_requests).
	CredentialsRefused func(reason string)
}

// Error is a refused token. Reason is a short sentence that is safe to show
// the client (it never contains the token or a secret), e.g. "The access
// token is expired.".
type Error struct {
	Reason string
}

func (e *Error) Error() string { return "auth: " + e.Reason }

// refuse builds an *Error.
func refuse(reason string) error { return &Error{Reason: reason} }

// Service issues and checks tokens. It is safe for concurrent use.
type Service struct {
	cfg     Config
	store   *authstore.Store
	keys    atomic.Pointer[keyRing]
	reloads *rate.Limiter // reloads forced by an unknown kid
	// reloadFailure is why the last reload of the keys failed (nil since
	// one succeeded): an unknown kid is then not refused (verify.go).
	reloadFailure atomic.Pointer[error]
	external      keyfunc.Keyfunc
	cache         *principalCache
	throttle      *throttle
	verified      verifiedTokens
}

// New builds a Service: it loads the signing keys (generating and storing a
// first one when the database has none) and, unless SigningKeyFile is set,
// re-reads them every ReloadEvery in a goroutine that ends with ctx. With
// External it also starts keyfunc's refresh of the provider's key set,
// bound to ctx as well.
func New(ctx context.Context, cfg Config, store *authstore.Store) (*Service, error) {
	cfg = withDefaults(cfg)
	if cfg.External != nil {
		if err := validateExternal(cfg.External, cfg.Issuer); err != nil {
			return nil, err
		}
	}
	s := &Service{
		cfg:      cfg,
		store:    store,
		reloads:  rate.NewLimiter(rate.Every(5*time.Second), 1),
		cache:    newPrincipalCache(cfg.EnabledCacheTTL),
		throttle: newThrottle(cfg, store.FailureCounter()),
	}
	if err := s.loadKeys(ctx); err != nil {
		return nil, err
	}
	if cfg.External != nil {
		k, err := newExternalKeyfunc(ctx, cfg.External)
		if err != nil {
			return nil, err
		}
		s.external = k
	}
	if cfg.SigningKeyFile == "" {
		go s.reloadLoop(ctx)
	}
	return s, nil
}

// withDefaults fills in Config's zero values.
func withDefaults(cfg Config) Config {
	if cfg.TokenTTL <= 0 {
		cfg.TokenTTL = DefaultTokenTTL
	}
	if cfg.Issuer == "" {
		cfg.Issuer = DefaultIssuer
	}
	if cfg.ReloadEvery <= 0 {
		cfg.ReloadEvery = DefaultReloadEvery
	}
	if cfg.MaxFailures == 0 {
		cfg.MaxFailures = DefaultMaxFailures
	}
	if cfg.MaxGlobalFailures == 0 {
		cfg.MaxGlobalFailures = DefaultMaxGlobalFailures
	}
	if cfg.FailureWindow <= 0 {
		cfg.FailureWindow = DefaultFailureWindow
	}
	if cfg.EnabledCacheTTL <= 0 {
		cfg.EnabledCacheTTL = DefaultEnabledCacheTTL
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.External != nil {
		ext := *cfg.External
		if ext.UserClaim == "" {
			ext.UserClaim = DefaultUserClaim
		}
		cfg.External = &ext
	}
	return cfg
}

// now is the Service's clock.
func (s *Service) now() time.Time { return s.cfg.Now() }

// reloadLoop re-reads the key set every ReloadEvery until ctx ends. A failed
// reload keeps the current set; the next tick tries again.
func (s *Service) reloadLoop(ctx context.Context) {
	t := time.NewTicker(s.cfg.ReloadEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			_ = s.Reload(ctx)
		}
	}
}

// wrap gives a failure to check credentials (not a refusal) its context.
func wrap(what string, err error) error {
	return fmt.Errorf("auth: %s: %w", what, err)
}
