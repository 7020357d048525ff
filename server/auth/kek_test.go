package auth_test

import (
	"context"
	"crypto/rand"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/server/auth"
	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/authstore"
	"github.com/entityapi/entityapi/storage/storagetest"
)

// newKEK makes a random key-encryption key (and, when previous is not nil,
// the sealing that still opens what previous sealed).
func newKEK(t *testing.T, previous []byte) ([]byte, *auth.KeyEncryption) {
	t.Helper()
	raw := make([]byte, auth.KEKSize)
	if _, err := rand.Read(raw); err != nil {
		t.Fatal(err)
	}
	k, err := auth.NewKeyEncryption(raw, previous)
	if err != nil {
		t.Fatal(err)
	}
	return raw, k
}

// storedKeys reads the signing keys as stored: kid to stored value.
func storedKeys(t *testing.T, s *storage.Store) map[string]string {
	t.Helper()
	keys, err := authstore.New(s).SigningKeys(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, k := range keys {
		out[k.KID] = k.PrivatePEM
	}
	return out
}

// TestKeyEncryption: the plain keys are sealed when a KEK is first given and
// still sign (the same kids and public keys); a rotation with the KEK stores
// a sealed key; the sealed keys refuse a start without the KEK or with a
// wrong one, with an error naming the setting and no new key; a previous KEK
// lets a new one take over, after which the old one alone no longer opens them.
func TestKeyEncryption(t *testing.T) {
	t.Parallel()
	storagetest.Each(t, func(t *testing.T, s *storage.Store) {
		ctx := context.Background()
		plain := setup(t, s, auth.Config{})
		before := plain.jwks(t)
		for kid, v := range storedKeys(t, s) {
			if !strings.HasPrefix(v, "-----BEGIN") {
				t.Fatalf("key %s is not plain before a KEK is given: %.20q", kid, v)
			}
		}

		oldRaw, old := newKEK(t, nil)
		sealed := setup(t, s, auth.Config{KeyEncryption: old})
		if got := sealed.jwks(t); !sameKeys(got, before) {
			t.Errorf("key set after sealing = %v, want %v", kids(got), kids(before))
		}
		kid, err := auth.RotateKey(ctx, authstore.New(s), old)
		if err != nil {
			t.Fatal(err)
		}
		stored := storedKeys(t, s)
		for k, v := range stored {
			if strings.Contains(v, "PRIVATE KEY") || !strings.HasPrefix(v, "aes256gcm:v1:") {
				t.Errorf("key %s is stored unsealed: %.30q", k, v)
			}
		}
		if _, ok := stored[kid]; !ok {
			t.Fatalf("the rotated key %s is not stored", kid)
		}

		_, wrong := newKEK(t, nil)
		for name, cfg := range map[string]auth.Config{"no KEK": {}, "a wrong KEK": {KeyEncryption: wrong}} {
			_, err := auth.New(ctx, cfg, authstore.New(s))
			if err == nil || !strings.Contains(err.Error(), "ENTITYAPI_KEY_ENCRYPTION_KEY") {
				t.Errorf("%s: auth.New error = %v, want one naming the setting", name, err)
			}
			if got := storedKeys(t, s); len(got) != len(stored) {
				t.Errorf("%s: %d keys stored, want %d: no new key", name, len(got), len(stored))
			}
		}

		_, replacing := newKEK(t, oldRaw)
		if _, err := auth.New(ctx, auth.Config{KeyEncryption: replacing}, authstore.New(s)); err != nil {
			t.Fatalf("auth.New with the new KEK and the previous one: %v", err)
		}
		for k, v := range storedKeys(t, s) {
			if v == stored[k] {
				t.Errorf("key %s is not sealed again with the new KEK", k)
			}
		}
		if _, err := auth.New(ctx, auth.Config{KeyEncryption: old}, authstore.New(s)); err == nil {
			t.Error("the replaced KEK still opens the keys")
		}
		// The new KEK alone (its own bytes, no previous) opens them.
		if n, err := auth.SealKeys(ctx, authstore.New(s), replacing); err != nil || n != 0 {
			t.Errorf("SealKeys after the change = %d, %v; want 0, nil", n, err)
		}
	})
}

// sameKeys tells whether two key sets hold the same kids with the same moduli.
func sameKeys(a, b map[string]map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for kid, k := range a {
		if b[kid] == nil || b[kid]["n"] != k["n"] {
			return false
		}
	}
	return true
}

// TestParseKEK: 32 bytes in base64, white space around ignored; anything else
// is refused without echoing the value.
func TestParseKEK(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, text string
		ok         bool
	}{
		{"32 bytes", "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=", true},
		{"with a newline", "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=\n", true},
		{"16 bytes", "MDEyMzQ1Njc4OWFiY2RlZg==", false},
		{"not base64", "not-a-key-at-all!", false},
	} {
		_, err := auth.ParseKEK(tc.text)
		if (err == nil) != tc.ok {
			t.Errorf("%s: err = %v, want ok %v", tc.name, err, tc.ok)
		}
		if err != nil && strings.Contains(err.Error(), strings.TrimSpace(tc.text)) {
			t.Errorf("%s: the error echoes the value: %v", tc.name, err)
		}
	}
}
