package auth

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/entityapi/entityapi/storage/authstore"
	"github.com/entityapi/entityapi/storage/secret"
)

// The grants of the token endpoint (issue 4).
const (
	grantClientCredentials = "client_credentials"
	grantPassword          = "password"
)

// tokenClaims are the claims of our access tokens (docs/decisions.md §8): sub is the
// user id (back office) or the client id (storefront); org and sub are
// strings, as JWT consumers expect.
type tokenClaims struct {
	jwt.RegisteredClaims
	ClientID string `json:"client_id"`
	Org      string `json:"org"`
}

// tokenAnswer is the token endpoint's success body (RFC 6749 §5.1).
type tokenAnswer struct {
	TokenType   string `json:"token_type"`
	ExpiresIn   int64  `json:"expires_in"`
	AccessToken string `json:"access_token"`

	app, grant string // for Events.TokenIssued
}

// dummyHash is checked against when a client or user does not exist, so that
// an unknown name costs as much time as a wrong secret and reveals nothing.
var dummyHash = sync.OnceValue(func() string {
	h, _ := secret.Hash("entityapi: no such client or user")
	return h
})

// TokenHandler answers POST /oauth2-token and POST /admin/oauth2-token (one
// handler for both: the client's application decides the token's audience).
// Grants: client_credentials, and password for back-office clients. The
// answers and errors are those of issue 4 and oro-behaviour §11.1. Secrets
// and tokens are never logged or echoed.
//
// Wrong client secrets and wrong passwords are throttled (see throttle):
// per credential from one address (clientAddr: the connection's, never a
// forwarding header) and per credential from all addresses; what crossed a limit gets 429 with Retry-After until its window
// ends, and nothing else does.
func (s *Service) TokenHandler(w http.ResponseWriter, r *http.Request) {
	answer, oerr := s.token(w, r)
	if oerr != nil {
		if refused[oerr.code] && s.cfg.Events.CredentialsRefused != nil {
			s.cfg.Events.CredentialsRefused(oerr.code)
		}
		oerr.write(w)
		return
	}
	if s.cfg.Events.TokenIssued != nil {
		s.cfg.Events.TokenIssued(answer.app, answer.grant)
	}
	writeJSON(w, http.StatusOK, answer)
}

// refused are the token endpoint's errors that refuse credentials (the
// others reject a malformed request or report our own failure).
var refused = map[string]bool{"invalid_client": true, "invalid_grant": true, "too_many_requests": true}

// token runs one token request (w only bounds the body's size).
func (s *Service) token(w http.ResponseWriter, r *http.Request) (*tokenAnswer, *oauthError) {
	req, oerr := readTokenRequest(w, r)
	if oerr != nil {
		return nil, oerr
	}
	switch req.grantType {
	case "":
		return nil, missing("grant_type")
	case grantClientCredentials, grantPassword:
	default:
		return nil, unsupportedGrant()
	}
	if req.clientID == "" {
		return nil, missing("client_id")
	}
	ctx, now, addr := r.Context(), s.now(), clientAddr(r)
	cred := clientCredential(req.clientID, addr)
	if oerr := s.admit(ctx, now, cred); oerr != nil {
		return nil, oerr
	}
	client, err := s.authenticateClient(ctx, req.clientID, req.clientSecret)
	if err != nil {
		return nil, s.failure(err)
	}
	if oerr := s.settle(ctx, now, cred, client != nil); oerr != nil {
		return nil, oerr
	}
	if client == nil {
		return nil, invalidClient(req.basic)
	}
	var user *authstore.User
	switch {
	case req.grantType == grantPassword && client.App != authstore.AppBackoffice:
		return nil, invalidGrant("The password grant is available to back-office clients only.")
	case req.grantType == grantPassword:
		user, oerr = s.passwordUser(ctx, client, req, addr, now)
	case client.App == authstore.AppBackoffice:
		user, oerr = s.clientUser(ctx, client)
	}
	if oerr != nil {
		return nil, oerr
	}
	token, err := s.issue(client, user, now)
	if err != nil {
		return nil, s.failure(err)
	}
	return &tokenAnswer{TokenType: "Bearer", ExpiresIn: int64(s.cfg.TokenTTL / time.Second), AccessToken: token,
		app: client.App, grant: req.grantType}, nil
}

// authenticateClient returns the client when the credentials are right and
// it may be used (enabled; not a demo client unless --demo), nil when not.
func (s *Service) authenticateClient(ctx context.Context, id, plain string) (*authstore.Client, error) {
	client, err := s.store.ClientByID(ctx, id)
	if errors.Is(err, authstore.ErrNotFound) {
		secret.Verify(dummyHash(), plain)
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if !secret.Verify(client.SecretHash, plain) || !client.Enabled || (client.Demo && !s.cfg.Demo) {
		return nil, nil
	}
	return client, nil
}

// passwordUser checks the password grant's user: the right password, a user
// of the client's organization, not a demo user unless --demo, enabled. The
// password is checked only when the throttle admits it (from addr at now).
func (s *Service) passwordUser(ctx context.Context, client *authstore.Client, req *tokenRequest, addr string, now time.Time) (*authstore.User, *oauthError) {
	if req.username == "" {
		return nil, missing("username")
	}
	if req.password == "" {
		return nil, missing("password")
	}
	user, err := s.store.UserByLogin(ctx, req.username)
	if errors.Is(err, authstore.ErrNotFound) {
		user = nil
	} else if err != nil {
		return nil, s.failure(err)
	}
	cred := userCredential(user, req.username, addr)
	if oerr := s.admit(ctx, now, cred); oerr != nil {
		return nil, oerr
	}
	// right covers every reason for badUser: a count forgotten only for a
	// right password of the wrong organization would tell a guesser so.
	var right bool
	if user == nil {
		secret.Verify(dummyHash(), req.password)
	} else {
		right = user.PasswordHash != nil && secret.Verify(*user.PasswordHash, req.password) &&
			user.OrganizationID == client.OrganizationID && (!user.Demo || s.cfg.Demo)
	}
	if oerr := s.settle(ctx, now, cred, right); oerr != nil {
		return nil, oerr
	}
	if !right {
		return nil, badUser()
	}
	if !user.Enabled {
		return nil, invalidGrant("Account is disabled.")
	}
	return user, nil
}

// admit asks the throttle whether cred may be checked: nil, or the 429 (or
// the server error) to answer instead.
func (s *Service) admit(ctx context.Context, now time.Time, cred credential) *oauthError {
	wait, err := s.throttle.admit(ctx, now, cred)
	switch {
	case err != nil:
		return s.failure(err)
	case wait > 0:
		return tooManyRequests(wait)
	}
	return nil
}

// settle tells the throttle how the check of cred went. A count that cannot
// be kept is a server error: the attempt must not go uncounted.
func (s *Service) settle(ctx context.Context, now time.Time, cred credential, right bool) *oauthError {
	var err error
	if right {
		err = s.throttle.succeeded(ctx, cred)
	} else {
		err = s.throttle.failed(ctx, now, cred)
	}
	if err != nil {
		return s.failure(err)
	}
	return nil
}

// clientUser is the user a back-office client acts as (client_credentials).
func (s *Service) clientUser(ctx context.Context, client *authstore.Client) (*authstore.User, *oauthError) {
	user, err := s.store.UserByID(ctx, *client.UserID)
	if err != nil {
		return nil, s.failure(err)
	}
	if !user.Enabled {
		return nil, invalidGrant("Account is disabled.")
	}
	if user.Demo && !s.cfg.Demo {
		return nil, invalidGrant("")
	}
	return user, nil
}

// issue signs an access token for the client, acting as user (back office)
// or as itself (storefront, user nil), with the newest key.
func (s *Service) issue(client *authstore.Client, user *authstore.User, now time.Time) (string, error) {
	sub, org := client.ID, client.OrganizationID
	if user != nil {
		sub, org = strconv.FormatInt(user.ID, 10), user.OrganizationID
	}
	var jti [16]byte
	_, _ = rand.Read(jti[:])
	claims := tokenClaims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    s.cfg.Issuer,
			Subject:   sub,
			Audience:  jwt.ClaimStrings{client.App},
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(s.cfg.TokenTTL)),
			ID:        base64.RawURLEncoding.EncodeToString(jti[:]),
		},
		ClientID: client.ID,
		Org:      strconv.FormatInt(org, 10),
	}
	ring := s.keys.Load()
	tok := jwt.NewWithClaims(jwt.SigningMethodRS256, claims)
	tok.Header["kid"] = ring.kid
	return tok.SignedString(ring.signer)
}
