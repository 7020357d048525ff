// Package secret hashes and checks the secrets people and programs prove
// themselves with (user passwords, OAuth client secrets) and makes new ones.
//
// Hashes are bcrypt (golang.org/x/crypto) at the default cost: slow on purpose,
// salted, and checked in constant time, so a leaked table gives no secret away
// cheaply and a timing attack learns nothing. Only hashes are ever stored.
// Test binaries alone hash at bcrypt's minimum cost (Cost).
package secret

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"

	"testing"

	"golang.org/x/crypto/bcrypt"
)

// Cost is the bcrypt cost of every hash the service makes: bcrypt's default
// in the service's binary. In a test binary (testing.Testing) it is bcrypt's
// minimum: the tests make and check thousands of hashes, and they prove the
// scheme, not its slowness. A build of the service is never a test binary,
// so no setting can make it hash cheaply (TestBinaryHashesAtDefaultCost).
func Cost() int { return costIn(testing.Testing()) }

// costIn is the cost in a test binary (testBinary) or in any other.
func costIn(testBinary bool) int {
	if testBinary {
		return bcrypt.MinCost
	}
	return bcrypt.DefaultCost
}

// ErrTooLong reports a secret longer than bcrypt's 72-byte input. bcrypt
// would silently ignore the rest, so such a secret is refused instead.
var ErrTooLong = errors.New("secret: longer than 72 bytes")

// Hash returns the bcrypt hash of plain to store in its place. An empty plain
// is refused: it would let anyone in who sends nothing.
func Hash(plain string) (string, error) {
	if plain == "" {
		return "", errors.New("secret: empty")
	}
	if len(plain) > 72 {
		return "", ErrTooLong
	}
	h, err := bcrypt.GenerateFromPassword([]byte(plain), Cost())
	if err != nil {
		return "", fmt.Errorf("secret: hash: %w", err)
	}
	return string(h), nil
}

// Verify reports whether plain is the secret behind hash. The comparison is
// bcrypt's, in constant time; a malformed hash or an empty plain never matches.
func Verify(hash, plain string) bool {
	if hash == "" || plain == "" {
		return false
	}
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(plain)) == nil
}

// NewSecret returns a fresh client secret: 32 random bytes (256 bits, far
// beyond guessing) in unpadded base64url, so it can travel in a form body or
// an HTTP Basic header without escaping. Its 43 characters fit bcrypt.
func NewSecret() string {
	return base64.RawURLEncoding.EncodeToString(random(32))
}

// NewClientID returns a fresh client id: 16 random bytes in hex. Ids are not
// secret, but random ones reveal nothing about how many clients exist.
func NewClientID() string {
	return hex.EncodeToString(random(16))
}

// random reads n bytes from the operating system's generator, which never
// fails on the platforms Go supports (crypto/rand.Read panics otherwise).
func random(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}
