package auth

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"time"

	"github.com/entityapi/entityapi/storage/authstore"
)

// subject is what a token names, as storage last said: its client (nil when
// there is no such client, or for an external token), its user (nil for a
// storefront token or a missing user) and the user's roles.
type subject struct {
	client *authstore.Client
	user   *authstore.User
	roles  []string
}

// principalCache keeps subjects for at most a TTL, so that a request does not
// cost database round trips for its caller, while disabling a client or user
// (or changing roles) still takes effect within the TTL (docs/decisions.md §8).
// Missing clients and users are kept as well, so a stream of tokens naming a
// deleted client does not reach the database each time. Only tokens with a
// valid signature get this far, so the keys are bounded by real principals;
// expired entries are swept once the map grows.
type principalCache struct {
	ttl time.Duration

	mu      sync.Mutex
	entries map[string]cacheEntry
}

type cacheEntry struct {
	sub     *subject
	expires time.Time
}

func newPrincipalCache(ttl time.Duration) *principalCache {
	return &principalCache{ttl: ttl, entries: map[string]cacheEntry{}}
}

// principalKey names a cache entry: one of our tokens' application, client
// and user.
func principalKey(app, clientID string, userID int64) string {
	return app + "\x00" + clientID + "\x00" + strconv.FormatInt(userID, 10)
}

// externalKey names the cache entry of an external token's user claim.
func externalKey(login string) string {
	return "external\x00" + login
}

// sweepAbove is the number of cached subjects above which expired ones are
// dropped on the next load, so the cache cannot grow for ever.
const sweepAbove = 4096

// get returns the cached subject of key, or loads, keeps and returns it. A
// failed load is not kept. Callers must not modify the subject.
func (c *principalCache) get(now time.Time, key string, load func() (*subject, error)) (*subject, error) {
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.sub, nil
	}
	sub, err := load()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) > sweepAbove {
		for k, e := range c.entries {
			if !now.Before(e.expires) {
				delete(c.entries, k)
			}
		}
	}
	c.entries[key] = cacheEntry{sub: sub, expires: now.Add(c.ttl)}
	return sub, nil
}

// loadSubject reads a token's client and (userID > 0) user and roles; what
// does not exist stays nil, so that the refusal is cached too.
func (s *Service) loadSubject(ctx context.Context, clientID string, userID int64) (*subject, error) {
	sub := &subject{}
	client, err := s.store.ClientByID(ctx, clientID)
	switch {
	case errors.Is(err, authstore.ErrNotFound):
		return sub, nil
	case err != nil:
		return nil, wrap("load the token's client", err)
	}
	sub.client = client
	if userID == 0 {
		return sub, nil
	}
	return sub, s.loadUser(ctx, sub, func() (*authstore.User, error) { return s.store.UserByID(ctx, userID) })
}

// loadUser fills in a subject's user and roles from find; a missing user
// stays nil.
func (s *Service) loadUser(ctx context.Context, sub *subject, find func() (*authstore.User, error)) error {
	user, err := find()
	if errors.Is(err, authstore.ErrNotFound) {
		return nil
	}
	if err != nil {
		return wrap("load the token's user", err)
	}
	roles, err := s.store.UserRoles(ctx, user.ID)
	if err != nil {
		return wrap("load the token's user roles", err)
	}
	sub.user, sub.roles = user, roles
	return nil
}
