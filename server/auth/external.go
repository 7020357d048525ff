package auth

import (
	"context"
	"errors"
	"time"

	"github.com/MicahParks/keyfunc/v3"
	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/time/rate"

	"github.com/entityapi/entityapi/server/identity"
	"github.com/entityapi/entityapi/storage/authstore"
)

// External names an outside identity provider whose back-office tokens are
// accepted beside ours (the --jwks-url family of flags).
type External struct {
	JWKSURL            string // its public keys, refreshed hourly and on an unknown kid
	Issuer             string // the iss of its tokens
	AudienceBackoffice string // the aud its back-office tokens carry
	AudienceStorefront string // kept for the flag; outside storefront tokens are refused
	UserClaim          string // the claim naming our user by username or email; default "email"
}

// validateExternal reports an incomplete External before anything starts,
// and an issuer equal to ours, which would hide its tokens behind ours.
func validateExternal(ext *External, ours string) error {
	switch {
	case ext.Issuer == ours:
		return errors.New("auth: the external identity provider's issuer is our own")
	case ext.JWKSURL == "":
		return errors.New("auth: an external identity provider needs its JWKS URL")
	case ext.Issuer == "":
		return errors.New("auth: an external identity provider needs its issuer")
	case ext.AudienceBackoffice == "":
		return errors.New("auth: an external identity provider needs its back-office audience")
	}
	return nil
}

// newExternalKeyfunc fetches the provider's key set and keeps it fresh
// (hourly, and on an unknown kid at most every five minutes) until ctx ends.
// An unreachable provider does not stop the service from starting: its
// tokens are refused until the keys arrive. Refresh failures are not logged
// (the package logs nothing); they show as refused tokens.
func newExternalKeyfunc(ctx context.Context, ext *External) (keyfunc.Keyfunc, error) {
	k, err := keyfunc.NewDefaultOverrideCtx(ctx, []string{ext.JWKSURL}, keyfunc.Override{
		HTTPTimeout:             10 * time.Second,
		RefreshInterval:         time.Hour,
		RefreshUnknownKID:       rate.NewLimiter(rate.Every(5*time.Minute), 1),
		RefreshErrorHandlerFunc: func(string) func(context.Context, error) { return func(context.Context, error) {} },
	})
	if err != nil {
		return nil, wrap("external identity provider", err)
	}
	return k, nil
}

// theirs checks a back-office token of the External provider: its UserClaim
// names our user by username or email (authstore.Store.UserByLogin), who must exist,
// be enabled and not be a demo user unless --demo. The principal's client is
// the token's azp or client_id, else "external".
func (s *Service) theirs(ctx context.Context, token, audience string) (*identity.Principal, error) {
	ext := s.cfg.External
	if audience != authstore.AppBackoffice {
		return nil, refuse(reasonStorefront)
	}
	claims := jwt.MapClaims{}
	if err := s.parse(token, claims, s.external.KeyfuncCtx(ctx), ext.AudienceBackoffice, ext.Issuer); err != nil {
		return nil, err
	}
	login, _ := claims[ext.UserClaim].(string)
	if login == "" {
		return nil, refuse(reasonNoUserClaim)
	}
	sub, err := s.cache.get(s.now(), externalKey(login), func() (*subject, error) {
		sub := &subject{}
		return sub, s.loadUser(ctx, sub, func() (*authstore.User, error) { return s.store.UserByLogin(ctx, login) })
	})
	if err != nil {
		return nil, err
	}
	if err := s.checkUser(sub.user, 0); err != nil {
		return nil, err
	}
	clientID := "external"
	for _, claim := range []string{"azp", "client_id"} {
		if v, _ := claims[claim].(string); v != "" {
			clientID = v
			break
		}
	}
	return &identity.Principal{App: authstore.AppBackoffice, ClientID: clientID, UserID: sub.user.ID,
		Org: sub.user.OrganizationID, Roles: append([]string(nil), sub.roles...)}, nil
}
