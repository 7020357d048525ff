package auth

import (
	"sync"
	"time"
)

// maxVerified bounds the verified-token memory; when full it starts over.
const maxVerified = 10000

// verifiedTokens remembers tokens whose signature and claims were verified, until
// they expire: an RS256 verification costs far more than the rest of a typical
// request, and a client sends the same token many times. Only the cryptographic
// check is skipped: the client and user are still checked on every request.
type verifiedTokens struct {
	mu     sync.Mutex
	claims map[string]verifiedToken
}

type verifiedToken struct {
	claims   tokenClaims
	audience string
	expires  time.Time
}

func (v *verifiedTokens) get(token, audience string, now time.Time) (tokenClaims, bool) {
	v.mu.Lock()
	defer v.mu.Unlock()
	e, ok := v.claims[token]
	if !ok || e.audience != audience || !now.Before(e.expires) {
		return tokenClaims{}, false
	}
	return e.claims, true
}

func (v *verifiedTokens) put(token, audience string, claims tokenClaims) {
	if claims.ExpiresAt == nil {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.claims == nil || len(v.claims) >= maxVerified {
		v.claims = map[string]verifiedToken{}
	}
	v.claims[token] = verifiedToken{claims: claims, audience: audience, expires: claims.ExpiresAt.Time}
}
