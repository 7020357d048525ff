package auth

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/MicahParks/jwkset"
	"github.com/golang-jwt/jwt/v5"

	"github.com/entityapi/entityapi/server/identity"
	"github.com/entityapi/entityapi/storage/authstore"
)

// The reasons Authenticate gives; each is safe to show the client.
const (
	reasonMalformed   = "The access token is malformed."
	reasonSignature   = "The access token signature is invalid."
	reasonUnknownKey  = "The access token is signed with an unknown key."
	reasonExpired     = "The access token is expired."
	reasonNotYet      = "The access token is not valid yet."
	reasonMissing     = "The access token lacks a required claim."
	reasonAudience    = "The access token is not meant for this application."
	reasonIssuer      = "The access token was issued by an unknown issuer."
	reasonInvalid     = "The access token is invalid."
	reasonNoClient    = "The client of the access token does not exist."
	reasonClientOff   = "The client of the access token is disabled."
	reasonNoUser      = "The user of the access token does not exist."
	reasonUserOff     = "The user of the access token is disabled."
	reasonDemo        = "Demo credentials are refused: the server does not run in demo mode."
	reasonNoUserClaim = "The access token does not name a user."
	reasonStorefront  = "Access tokens of the external identity provider are accepted by the back office only."
)

// reasonCodes name each reason in a few words for metrics labels, which must
// come from a small fixed set.
var reasonCodes = map[string]string{
	reasonMalformed: "malformed", reasonSignature: "bad_signature", reasonUnknownKey: "unknown_key",
	reasonExpired: "expired", reasonNotYet: "not_yet_valid", reasonMissing: "missing_claim",
	reasonAudience: "wrong_audience", reasonIssuer: "unknown_issuer", reasonInvalid: "invalid",
	reasonNoClient: "unknown_client", reasonClientOff: "client_disabled", reasonNoUser: "unknown_user",
	reasonUserOff: "user_disabled", reasonDemo: "demo_refused", reasonNoUserClaim: "no_user_claim",
	reasonStorefront: "external_storefront",
}

// Code names the refusal in a few words (such as "expired"), from a fixed
// set: what metrics count failures by.
func (e *Error) Code() string {
	if c, ok := reasonCodes[e.Reason]; ok {
		return c
	}
	return "invalid"
}

// errUnknownKID reports a token without a kid or with one not in our set.
var errUnknownKID = errors.New("auth: unknown kid")

// Authenticate checks a bearer token for one application (audience
// authstore.AppBackoffice or authstore.AppStorefront) and returns whom it speaks
// for. The token must be RS256 with exp and aud, from our issuer (with a kid
// of our key set) or from the External provider, chosen by its iss; the
// client and user it names must exist, be enabled and not be demo principals
// unless Config.Demo. Their state comes from storage through a cache of at
// most EnabledCacheTTL, so disabling one takes effect within that time; so
// do role changes.
//
// A refused token is an *Error (answer 401 with its Reason). Any other error
// means the check could not be made (the database failed): answer 500.
func (s *Service) Authenticate(ctx context.Context, token, audience string) (*identity.Principal, error) {
	if audience != authstore.AppBackoffice && audience != authstore.AppStorefront {
		return nil, fmt.Errorf("auth: unknown application %q", audience)
	}
	if _, ok := s.verified.get(token, audience, s.now()); ok {
		return s.ours(ctx, token, audience)
	}
	var unverified jwt.RegisteredClaims
	if _, _, err := jwt.NewParser().ParseUnverified(token, &unverified); err != nil {
		return nil, refuse(reasonMalformed)
	}
	switch {
	case unverified.Issuer == s.cfg.Issuer:
		return s.ours(ctx, token, audience)
	case s.external != nil && unverified.Issuer == s.cfg.External.Issuer:
		return s.theirs(ctx, token, audience)
	}
	return nil, refuse(reasonIssuer)
}

// parse verifies a token's signature with keys and its standard claims.
func (s *Service) parse(token string, claims jwt.Claims, keys jwt.Keyfunc, audience, issuer string) error {
	_, err := jwt.ParseWithClaims(token, claims, keys,
		jwt.WithValidMethods([]string{jwt.SigningMethodRS256.Alg()}),
		jwt.WithAudience(audience), jwt.WithIssuer(issuer),
		jwt.WithExpirationRequired(), jwt.WithIssuedAt(),
		jwt.WithLeeway(leeway), jwt.WithTimeFunc(s.cfg.Now))
	var lookup *keyLookupError
	if errors.As(err, &lookup) {
		return lookup.err // the server's failure, not the token's
	}
	if err != nil {
		return refuse(reasonFor(err))
	}
	return nil
}

// keyLookupError is a token's key that could not be looked for: the
// database that holds the keys failed. The token may well be valid, so it
// is not refused (a client told 401 would drop a good token): the request
// fails with err, which the API answers 503 when the database is down.
type keyLookupError struct{ err error }

func (e *keyLookupError) Error() string { return e.err.Error() }
func (e *keyLookupError) Unwrap() error { return e.err }

// reasonFor names what is wrong with a token golang-jwt refused.
func reasonFor(err error) string {
	switch {
	case errors.Is(err, jwt.ErrTokenMalformed):
		return reasonMalformed
	case errors.Is(err, errUnknownKID), errors.Is(err, jwkset.ErrKeyNotFound):
		return reasonUnknownKey
	case errors.Is(err, jwt.ErrTokenSignatureInvalid), errors.Is(err, jwt.ErrTokenUnverifiable):
		return reasonSignature
	case errors.Is(err, jwt.ErrTokenExpired):
		return reasonExpired
	case errors.Is(err, jwt.ErrTokenNotValidYet), errors.Is(err, jwt.ErrTokenUsedBeforeIssued):
		return reasonNotYet
	case errors.Is(err, jwt.ErrTokenRequiredClaimMissing):
		return reasonMissing
	case errors.Is(err, jwt.ErrTokenInvalidAudience):
		return reasonAudience
	case errors.Is(err, jwt.ErrTokenInvalidIssuer):
		return reasonIssuer
	}
	return reasonInvalid
}

// ownKey finds the public key of one of our tokens by its kid. A kid missing
// from the set may belong to a key another process has just added: the set
// is then re-read at once (at most every few seconds) before giving up.
// While the keys cannot be read (the database is down), such a kid is not
// refused: the request fails with the database's error instead
// (keyLookupError).
func (s *Service) ownKey(ctx context.Context) jwt.Keyfunc {
	return func(t *jwt.Token) (any, error) {
		if kid, _ := t.Header[jwkset.HeaderKID].(string); kid == "" {
			return nil, errUnknownKID
		}
		key, err := s.keys.Load().verify.KeyfuncCtx(ctx)(t)
		if !errors.Is(err, jwkset.ErrKeyNotFound) || s.cfg.SigningKeyFile != "" {
			return key, err
		}
		if s.reloads.Allow() {
			if rerr := s.Reload(ctx); rerr != nil {
				return nil, &keyLookupError{rerr}
			}
			return s.keys.Load().verify.KeyfuncCtx(ctx)(t)
		}
		if failed := s.reloadFailure.Load(); failed != nil {
			// The keys could not be read lately: the kid may be a key
			// added since, which the next reload will find.
			return nil, &keyLookupError{*failed}
		}
		return key, err
	}
}

// ours checks one of our own tokens and the principal it names.
func (s *Service) ours(ctx context.Context, token, audience string) (*identity.Principal, error) {
	claims, known := s.verified.get(token, audience, s.now())
	if !known {
		if err := s.parse(token, &claims, s.ownKey(ctx), audience, s.cfg.Issuer); err != nil {
			return nil, err
		}
		s.verified.put(token, audience, claims)
	}
	org, err := strconv.ParseInt(claims.Org, 10, 64)
	if err != nil || claims.ClientID == "" {
		return nil, refuse(reasonInvalid)
	}
	var userID int64
	if audience == authstore.AppBackoffice {
		if userID, err = strconv.ParseInt(claims.Subject, 10, 64); err != nil || userID <= 0 {
			return nil, refuse(reasonInvalid)
		}
	} else if claims.Subject != claims.ClientID {
		return nil, refuse(reasonInvalid)
	}
	sub, err := s.cache.get(s.now(), principalKey(audience, claims.ClientID, userID), func() (*subject, error) {
		return s.loadSubject(ctx, claims.ClientID, userID)
	})
	if err != nil {
		return nil, err
	}
	if err := s.check(sub, audience, userID); err != nil {
		return nil, err
	}
	p := &identity.Principal{App: audience, ClientID: claims.ClientID, Org: sub.client.OrganizationID}
	if sub.user != nil {
		p.UserID, p.Org, p.Roles = sub.user.ID, sub.user.OrganizationID, slices.Clone(sub.roles)
	}
	if p.Org != org {
		return nil, refuse(reasonInvalid)
	}
	return p, nil
}

// check applies the rules of docs/decisions.md §8 to a token's client and user (a
// back-office token's user acts through a client of its own organization).
func (s *Service) check(sub *subject, audience string, userID int64) error {
	c := sub.client
	switch {
	case c == nil:
		return refuse(reasonNoClient)
	case c.App != audience:
		return refuse(reasonAudience)
	case !c.Enabled:
		return refuse(reasonClientOff)
	case c.Demo && !s.cfg.Demo:
		return refuse(reasonDemo)
	case userID == 0:
		return nil
	}
	return s.checkUser(sub.user, c.OrganizationID)
}

// checkUser checks the user a back-office token speaks for; org 0 skips the
// organization check (external tokens name no client of ours).
func (s *Service) checkUser(u *authstore.User, org int64) error {
	switch {
	case u == nil:
		return refuse(reasonNoUser)
	case !u.Enabled:
		return refuse(reasonUserOff)
	case u.Demo && !s.cfg.Demo:
		return refuse(reasonDemo)
	case org != 0 && u.OrganizationID != org:
		return refuse(reasonInvalid)
	}
	return nil
}
