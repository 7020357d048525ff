package secret_test

import (
	"encoding/base64"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/storage/secret"
)

func TestHashAndVerify(t *testing.T) {
	t.Parallel()
	hash, err := secret.Hash("demo-admin-password")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(hash, "demo-admin-password") || !strings.HasPrefix(hash, "$2") {
		t.Fatalf("Hash() = %q, want a bcrypt hash without the secret", hash)
	}
	tests := []struct {
		name        string
		hash, plain string
		want        bool
	}{
		{"right secret", hash, "demo-admin-password", true},
		{"wrong secret", hash, "demo-admin-passwore", false},
		{"prefix of the secret", hash, "demo-admin", false},
		{"empty secret", hash, "", false},
		{"empty hash", "", "demo-admin-password", false},
		{"not a bcrypt hash", "demo-admin-password", "demo-admin-password", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := secret.Verify(tc.hash, tc.plain); got != tc.want {
				t.Errorf("Verify(%q) = %v, want %v", tc.plain, got, tc.want)
			}
		})
	}
}

func TestHashIsSalted(t *testing.T) {
	t.Parallel()
	a, errA := secret.Hash("same")
	b, errB := secret.Hash("same")
	if errA != nil || errB != nil || a == b {
		t.Errorf("two hashes of one secret: %q, %q (%v, %v); want different salts", a, b, errA, errB)
	}
}

func TestHashRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, plain string
		tooLong     bool
	}{
		{"empty", "", false},
		{"73 bytes", strings.Repeat("x", 73), true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := secret.Hash(tc.plain)
			if err == nil || errors.Is(err, secret.ErrTooLong) != tc.tooLong {
				t.Errorf("Hash(%d bytes) error = %v, want an error (too long: %v)", len(tc.plain), err, tc.tooLong)
			}
		})
	}
	if _, err := secret.Hash(strings.Repeat("x", 72)); err != nil {
		t.Errorf("Hash(72 bytes) = %v, want success", err)
	}
}

func TestNewSecretAndClientID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		make   func() string
		decode func(string) ([]byte, error)
		bytes  int
	}{
		{"secret", secret.NewSecret, base64.RawURLEncoding.DecodeString, 32},
		{"client id", secret.NewClientID, hex.DecodeString, 16},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			seen := map[string]bool{}
			for range 100 {
				v := tc.make()
				raw, err := tc.decode(v)
				if err != nil || len(raw) != tc.bytes {
					t.Fatalf("%q decodes to %d bytes (%v), want %d", v, len(raw), err, tc.bytes)
				}
				if seen[v] {
					t.Fatalf("%q made twice", v)
				}
				seen[v] = true
			}
		})
	}
}
