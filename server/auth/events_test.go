package auth_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/entityapi/entityapi/server/auth"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/authstore"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// events records what the token endpoint reports through auth.Events.
type events struct {
	mu   sync.Mutex
	seen []string
}

func (e *events) add(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.seen = append(e.seen, s)
}

// take returns what was recorded since the last take.
func (e *events) take() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := e.seen
	e.seen = nil
	return out
}

// TestEvents holds the token endpoint to telling metrics of every token it
// issues (application and grant) and every refusal of credentials (the OAuth
// code), and of nothing else: a malformed request is no refusal.
func TestEvents(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		rec := &events{}
		b := setup(t, s, auth.Config{Demo: true, Events: auth.Events{
			TokenIssued:        func(app, grant string) { rec.add("issued " + app + " " + grant) },
			CredentialsRefused: func(reason string) { rec.add("refused " + reason) },
		}})
		for _, tc := range []struct {
			name   string
			params []string
			want   []string
		}{
			{"client credentials, back office", []string{"grant_type", "client_credentials", "client_id", "demo-backoffice", "client_secret", "demo-backoffice-secret"},
				[]string{"issued backoffice client_credentials"}},
			{"client credentials, storefront", []string{"grant_type", "client_credentials", "client_id", "demo-storefront", "client_secret", "demo-storefront-secret"},
				[]string{"issued storefront client_credentials"}},
			{"password", []string{"grant_type", "password", "client_id", "demo-backoffice", "client_secret", "demo-backoffice-secret", "username", "viewer", "password", "demo-viewer-password"},
				[]string{"issued backoffice password"}},
			{"wrong secret", []string{"grant_type", "client_credentials", "client_id", "demo-backoffice", "client_secret", "wrong"},
				[]string{"refused invalid_client"}},
			{"wrong password", []string{"grant_type", "password", "client_id", "demo-backoffice", "client_secret", "demo-backoffice-secret", "username", "viewer", "password", "wrong"},
				[]string{"refused invalid_grant"}},
			{"malformed: no grant type", []string{"client_id", "demo-backoffice"}, nil},
		} {
			t.Run(tc.name, func(t *testing.T) {
				b.post(t, request{ctype: "json", params: tc.params})
				if got := rec.take(); !slices.Equal(got, tc.want) {
					t.Errorf("events %q, want %q", got, tc.want)
				}
			})
		}
	})
}

// TestErrorCodes gives every refusal of Authenticate a short code from a
// fixed set, since metrics count failures by it.
func TestErrorCodes(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		b := setup(t, s, auth.Config{Demo: true})
		for _, tc := range []struct{ token, want string }{
			{"not-a-jwt", "malformed"},
			{b.token(t, "demo-storefront", "demo-storefront-secret"), "wrong_audience"},
		} {
			_, err := b.svc.Authenticate(context.Background(), tc.token, authstore.AppBackoffice)
			var ae *auth.Error
			if !errors.As(err, &ae) || ae.Code() != tc.want {
				t.Errorf("Authenticate: %v, want a refusal coded %q", err, tc.want)
			}
		}
		if got := (&auth.Error{Reason: "something new"}).Code(); got != "invalid" {
			t.Errorf("an unknown reason is coded %q, want invalid", got)
		}
	})
}
