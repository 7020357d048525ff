package auth_test

import (
	"context"
	"testing"
	"time"

	"github.com/entityapi/entityapi/server/auth"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// TestVerifiedTokensStillExpire: a token remembered as verified is refused once
// it expires, and is not accepted for the other application.
func TestVerifiedTokensStillExpire(t *testing.T) {
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		b := setup(t, s, auth.Config{Demo: true, TokenTTL: time.Minute})
		tok := b.token(t, "demo-backoffice", "demo-backoffice-secret")
		ctx := context.Background()
		for range 2 {
			if _, err := b.svc.Authenticate(ctx, tok, "backoffice"); err != nil {
				t.Fatalf("fresh token: %v", err)
			}
		}
		if _, err := b.svc.Authenticate(ctx, tok, "storefront"); err == nil {
			t.Error("a verified back-office token is accepted by the storefront")
		}
		b.clock.Advance(2 * time.Minute)
		if _, err := b.svc.Authenticate(ctx, tok, "backoffice"); reason(err) != "The access token is expired." {
			t.Errorf("expired token: %v", err)
		}
	})
}
