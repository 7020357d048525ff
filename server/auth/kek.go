package auth

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"github.com/entityapi/entityapi/storage/authstore"
)

// This file encrypts the signing keys at rest. The private keys in the
// signing_keys table are sealed with AES-256-GCM under a key-encryption key
// (KEK) that lives outside the database (a file or a variable): a copy of the
// database, or a backup, then gives no token-signing key away. A sealed value
// is sealedPrefix followed by base64 of a random 12-byte nonce and the
// ciphertext, the key's kid as additional data (a sealed value moved to
// another row does not open); a plain PEM value starts with "-----BEGIN", so
// the two are told apart and plain rows are sealed when a KEK is first given.

// sealedPrefix marks a sealed private key, version 1 (AES-256-GCM).
const sealedPrefix = "aes256gcm:v1:"

// KEKSize is the size of a key-encryption key: 32 bytes (AES-256).
const KEKSize = 32

// KEKSettings names where the key-encryption key comes from, for messages.
const KEKSettings = "--key-encryption-key-file or ENTITYAPI_KEY_ENCRYPTION_KEY"

// ParseKEK reads a key-encryption key: 32 bytes in standard base64, as
// `openssl rand -base64 32` prints them; surrounding white space is ignored.
func ParseKEK(text string) ([]byte, error) {
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(text))
	if err != nil || len(raw) != KEKSize {
		return nil, fmt.Errorf("want %d bytes in base64, such as `openssl rand -base64 32` prints", KEKSize)
	}
	return raw, nil
}

// KeyEncryption seals and opens the signing keys with the current KEK; a
// previous KEK, while one is being replaced, still opens what it sealed.
type KeyEncryption struct {
	current, previous cipher.AEAD
}

// NewKeyEncryption builds the sealing of a KEK (32 bytes) and, when not nil,
// of the KEK it replaces.
func NewKeyEncryption(current, previous []byte) (*KeyEncryption, error) {
	k := &KeyEncryption{}
	var err error
	if k.current, err = newAEAD(current); err != nil {
		return nil, err
	}
	if previous != nil {
		if k.previous, err = newAEAD(previous); err != nil {
			return nil, err
		}
	}
	return k, nil
}

func newAEAD(key []byte) (cipher.AEAD, error) {
	if len(key) != KEKSize {
		return nil, fmt.Errorf("auth: a key-encryption key has %d bytes, not %d", KEKSize, len(key))
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(block)
}

// seal encrypts the PEM of key kid with the current KEK.
func (k *KeyEncryption) seal(kid, pem string) (string, error) {
	nonce := make([]byte, k.current.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", wrap("seal a signing key", err)
	}
	out := k.current.Seal(nonce, nonce, []byte(pem), []byte(kid))
	return sealedPrefix + base64.StdEncoding.EncodeToString(out), nil
}

// errWrongKEK: a sealed key that the KEKs given do not open.
var errWrongKEK = errors.New("the key-encryption key does not open it")

// open returns the PEM of a stored key. stale tells that the stored value is
// not sealed with the current KEK (plain, or sealed with the previous one)
// and should be sealed again. Without a KEK (k nil) plain values open as they
// are and sealed ones are an error that names the setting.
func (k *KeyEncryption) open(kid, stored string) (pem string, stale bool, err error) {
	if !strings.HasPrefix(stored, sealedPrefix) {
		if strings.HasPrefix(stored, "-----BEGIN") {
			return stored, k != nil, nil
		}
		return "", false, fmt.Errorf("auth: signing key %s is in an unknown format", kid)
	}
	if k == nil {
		return "", false, fmt.Errorf("auth: signing key %s is encrypted: give its key-encryption key (%s)", kid, KEKSettings)
	}
	raw, err := base64.StdEncoding.DecodeString(stored[len(sealedPrefix):])
	if err != nil || len(raw) < k.current.NonceSize() {
		return "", false, fmt.Errorf("auth: signing key %s: a damaged sealed value", kid)
	}
	n := k.current.NonceSize()
	if plain, err := k.current.Open(nil, raw[:n], raw[n:], []byte(kid)); err == nil {
		return string(plain), false, nil
	}
	if k.previous != nil {
		if plain, err := k.previous.Open(nil, raw[:n], raw[n:], []byte(kid)); err == nil {
			return string(plain), true, nil
		}
	}
	return "", false, fmt.Errorf("auth: signing key %s: %w (%s): is it the right key? To replace a key-encryption key, give the old one as --key-encryption-key-previous-file or ENTITYAPI_KEY_ENCRYPTION_KEY_PREVIOUS",
		kid, errWrongKEK, KEKSettings)
}

// SealKeys seals, in one transaction, every signing key not yet sealed with
// the current KEK: plain keys (the KEK is given for the first time) and keys
// sealed with the previous KEK. A key the KEKs do not open stops it, and
// nothing changes. It returns how many keys it sealed.
func SealKeys(ctx context.Context, store *authstore.Store, k *KeyEncryption) (int, error) {
	return store.ResealSigningKeys(ctx, func(key authstore.SigningKey) (string, bool, error) {
		pem, stale, err := k.open(key.KID, key.PrivatePEM)
		if err != nil || !stale {
			return "", false, err
		}
		sealed, err := k.seal(key.KID, pem)
		return sealed, err == nil, err
	})
}

// Seal encrypts a secret other than a signing key (a webhook's signing
// secret) with the current KEK, aad binding it to where it is stored.
func (k *KeyEncryption) Seal(aad, plain string) (string, error) { return k.seal(aad, plain) }

// Open returns a secret Seal encrypted, with the current KEK or the one it
// replaces; a value stored before a KEK was given (not sealed) is returned
// as it is.
func (k *KeyEncryption) Open(aad, stored string) (string, error) {
	if !strings.HasPrefix(stored, sealedPrefix) {
		return stored, nil
	}
	raw, err := base64.StdEncoding.DecodeString(stored[len(sealedPrefix):])
	if err != nil || len(raw) < k.current.NonceSize() {
		return "", errors.New("auth: a damaged sealed value")
	}
	n := k.current.NonceSize()
	for _, a := range []cipher.AEAD{k.current, k.previous} {
		if a == nil {
			continue
		}
		if plain, err := a.Open(nil, raw[:n], raw[n:], []byte(aad)); err == nil {
			return string(plain), nil
		}
	}
	return "", fmt.Errorf("auth: a sealed secret: %w (%s)", errWrongKEK, KEKSettings)
}
