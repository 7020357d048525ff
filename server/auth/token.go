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

	"github.com/gin-gonic/gin"
	"github.com/golang-jwt/jwt/v5"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/secret"
)

// The grants of the token endpoint (issue 4).
const (
	grantClientCredentials = "client_credentials"
	grantPassword          = "password"
)

// tokenClaims are the claims of our access tokens (DESIGN.md §8): sub is the
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
// Failed client authentications are counted per client id and per remote
// address (c.ClientIP(), so the engine's trusted proxies decide what the
// address is): after MaxFailures within FailureWindow, counted from the first
// of them, further requests for that id or from that address get 429 with
// Retry-After until the window ends. The counts live in this process's memory
// only: with N processes behind a balancer an attacker gets up to N times as
// many tries, and a restart forgets them.
func (s *Service) TokenHandler(c *gin.Context) {
	answer, oerr := s.token(c)
	if oerr != nil {
		if refused[oerr.code] && s.cfg.Events.CredentialsRefused != nil {
			s.cfg.Events.CredentialsRefused(oerr.code)
		}
		oerr.write(c)
		return
	}
	if s.cfg.Events.TokenIssued != nil {
		s.cfg.Events.TokenIssued(answer.app, answer.grant)
	}
	writeJSON(c, http.StatusOK, answer)
}

// refused are the token endpoint's errors that refuse credentials (the
// others reject a malformed request or report our own failure).
var refused = map[string]bool{"invalid_client": true, "invalid_grant": true, "too_many_requests": true}

// token runs one token request.
func (s *Service) token(c *gin.Context) (*tokenAnswer, *oauthError) {
	req, oerr := readTokenRequest(c)
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
	ctx, now, addr := c.Request.Context(), s.now(), c.ClientIP()
	if wait := s.limiter.wait(now, req.clientID, addr); wait > 0 {
		return nil, tooManyRequests(wait)
	}
	client, err := s.authenticateClient(ctx, req.clientID, req.clientSecret)
	if err != nil {
		return nil, serverError()
	}
	if client == nil {
		s.limiter.fail(now, req.clientID, addr)
		return nil, invalidClient(req.basic)
	}
	var user *storage.User
	switch {
	case req.grantType == grantPassword && client.App != storage.AppBackoffice:
		return nil, invalidGrant("The password grant is available to back-office clients only.")
	case req.grantType == grantPassword:
		user, oerr = s.passwordUser(ctx, client, req)
	case client.App == storage.AppBackoffice:
		user, oerr = s.clientUser(ctx, client)
	}
	if oerr != nil {
		return nil, oerr
	}
	token, err := s.issue(client, user, now)
	if err != nil {
		return nil, serverError()
	}
	return &tokenAnswer{TokenType: "Bearer", ExpiresIn: int64(s.cfg.TokenTTL / time.Second), AccessToken: token,
		app: client.App, grant: req.grantType}, nil
}

// authenticateClient returns the client when the credentials are right and
// it may be used (enabled; not a demo client unless --demo), nil when not.
func (s *Service) authenticateClient(ctx context.Context, id, plain string) (*storage.Client, error) {
	client, err := s.store.ClientByID(ctx, id)
	if errors.Is(err, storage.ErrNotFound) {
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
// of the client's organization, not a demo user unless --demo, enabled.
func (s *Service) passwordUser(ctx context.Context, client *storage.Client, req *tokenRequest) (*storage.User, *oauthError) {
	if req.username == "" {
		return nil, missing("username")
	}
	if req.password == "" {
		return nil, missing("password")
	}
	user, err := s.store.UserByLogin(ctx, req.username)
	if errors.Is(err, storage.ErrNotFound) {
		secret.Verify(dummyHash(), req.password)
		return nil, badUser()
	}
	if err != nil {
		return nil, serverError()
	}
	if user.PasswordHash == nil || !secret.Verify(*user.PasswordHash, req.password) ||
		user.OrganizationID != client.OrganizationID || (user.Demo && !s.cfg.Demo) {
		return nil, badUser()
	}
	if !user.Enabled {
		return nil, invalidGrant("Account is disabled.")
	}
	return user, nil
}

// clientUser is the user a back-office client acts as (client_credentials).
func (s *Service) clientUser(ctx context.Context, client *storage.Client) (*storage.User, *oauthError) {
	user, err := s.store.UserByID(ctx, *client.UserID)
	if err != nil {
		return nil, serverError()
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
func (s *Service) issue(client *storage.Client, user *storage.User, now time.Time) (string, error) {
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
