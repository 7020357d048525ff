package auth

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net/http"
	"os"
	"time"

	"github.com/MicahParks/jwkset"
	"github.com/MicahParks/keyfunc/v3"

	"github.com/entityapi/entityapi/storage/authstore"
)

// keyBits is the size of the RSA keys we generate.
const keyBits = 2048

// keyRing is one immutable snapshot of the key set: the newest key signs,
// every key verifies. A reload swaps in a new ring, so a request sees one
// consistent set.
type keyRing struct {
	signer  *rsa.PrivateKey
	kid     string
	private map[string]*rsa.PrivateKey // by kid, to reuse parsed keys across reloads
	public  *jwkset.MemoryJWKSet       // public halves only: the JWKS and the verifier
	verify  keyfunc.Keyfunc
}

// loadKeys builds the first ring: from SigningKeyFile, or from the database,
// generating a first key when it has none.
func (s *Service) loadKeys(ctx context.Context) error {
	if s.cfg.SigningKeyFile != "" {
		priv, err := readKeyFile(s.cfg.SigningKeyFile)
		if err != nil {
			return err
		}
		kid := thumbprint(&priv.PublicKey)
		ring, err := newKeyRing(ctx, []string{kid}, map[string]*rsa.PrivateKey{kid: priv})
		if err != nil {
			return err
		}
		s.keys.Store(ring)
		return nil
	}
	if s.cfg.KeyEncryption != nil {
		// The KEK given for the first time seals the plain keys; a new KEK
		// seals again what the previous one sealed; a wrong one stops here.
		if _, err := SealKeys(ctx, s.store, s.cfg.KeyEncryption); err != nil {
			return err
		}
	}
	keys, err := s.store.SigningKeys(ctx)
	if err != nil {
		return wrap("load signing keys", err)
	}
	if len(keys) == 0 {
		if _, err := RotateKey(ctx, s.store, s.cfg.KeyEncryption); err != nil {
			return err
		}
	}
	return s.Reload(ctx)
}

// Reload re-reads the signing keys from the database now, rather than at the
// next tick: the newest signs from then on. Keys older than any token still
// valid are left out (see live). It does nothing with SigningKeyFile.
func (s *Service) Reload(ctx context.Context) error {
	if s.cfg.SigningKeyFile != "" {
		return nil
	}
	err := s.reload(ctx)
	if err != nil {
		s.reloadFailure.Store(&err)
	} else {
		s.reloadFailure.Store(nil)
	}
	return err
}

// reload is Reload's work.
func (s *Service) reload(ctx context.Context) error {
	keys, err := s.store.SigningKeys(ctx)
	if err != nil {
		return wrap("reload signing keys", err)
	}
	keys = s.live(keys)
	if len(keys) == 0 {
		return errors.New("auth: the database holds no signing key (run `entityapi keys rotate`)")
	}
	old := s.keys.Load()
	kids := make([]string, len(keys))
	private := make(map[string]*rsa.PrivateKey, len(keys))
	for i, k := range keys {
		kids[i] = k.KID
		if old != nil && old.private[k.KID] != nil {
			private[k.KID] = old.private[k.KID]
			continue
		}
		pem, _, err := s.cfg.KeyEncryption.open(k.KID, k.PrivatePEM)
		if err != nil {
			return err
		}
		priv, err := parsePrivateKey([]byte(pem))
		if err != nil {
			return fmt.Errorf("auth: signing key %s: %w", k.KID, err)
		}
		private[k.KID] = priv
	}
	ring, err := newKeyRing(ctx, kids, private)
	if err != nil {
		return err
	}
	s.keys.Store(ring)
	return nil
}

// live drops the keys (sorted newest first) that can no longer have a valid
// token: a key stops signing once a newer key is in every process's set (at
// most ReloadEvery after that key's creation), and its last token expires
// TokenTTL later, plus the clock leeway. The newest key always stays.
func (s *Service) live(keys []authstore.SigningKey) []authstore.SigningKey {
	now := s.now()
	grace := s.cfg.ReloadEvery + s.cfg.TokenTTL + leeway + time.Second
	for i := 1; i < len(keys); i++ {
		if now.After(keys[i-1].CreatedAt.Add(grace)) {
			return keys[:i]
		}
	}
	return keys
}

// newKeyRing builds a ring; kids lists the keys newest first.
func newKeyRing(ctx context.Context, kids []string, private map[string]*rsa.PrivateKey) (*keyRing, error) {
	public := jwkset.NewMemoryStorage()
	for _, kid := range kids {
		jwk, err := jwkset.NewJWKFromKey(&private[kid].PublicKey, jwkset.JWKOptions{
			Metadata: jwkset.JWKMetadataOptions{KID: kid, ALG: jwkset.AlgRS256, USE: jwkset.UseSig},
		})
		if err != nil {
			return nil, fmt.Errorf("auth: signing key %s: %w", kid, err)
		}
		if err := public.KeyWrite(ctx, jwk); err != nil {
			return nil, fmt.Errorf("auth: signing key %s: %w", kid, err)
		}
	}
	verify, err := keyfunc.New(keyfunc.Options{Ctx: ctx, Storage: public})
	if err != nil {
		return nil, fmt.Errorf("auth: key set: %w", err)
	}
	return &keyRing{signer: private[kids[0]], kid: kids[0], private: private, public: public, verify: verify}, nil
}

// RotateKey generates a new 2048-bit RSA key and stores it, for `entityapi
// keys rotate`: it signs in every process from its next reload on, and the
// older keys keep verifying the tokens they signed. With kek (not nil) the
// new key is stored sealed, and so are the plain keys found beside it.
func RotateKey(ctx context.Context, store *authstore.Store, kek *KeyEncryption) (kid string, err error) {
	priv, err := rsa.GenerateKey(rand.Reader, keyBits)
	if err != nil {
		return "", wrap("generate a signing key", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return "", wrap("encode the signing key", err)
	}
	kid = newKID()
	k := &authstore.SigningKey{KID: kid, PrivatePEM: string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))}
	if kek != nil {
		if _, err := SealKeys(ctx, store, kek); err != nil {
			return "", err
		}
		if k.PrivatePEM, err = kek.seal(kid, k.PrivatePEM); err != nil {
			return "", err
		}
	}
	if err := store.AddSigningKey(ctx, k); err != nil {
		return "", wrap("store the signing key", err)
	}
	return kid, nil
}

// newKID names a generated key: the creation time in nanoseconds (fixed-width
// hex, so kids sort by age, which orders keys created within one second) and
// a random part against collisions between processes.
func newKID() string {
	var r [4]byte
	_, _ = rand.Read(r[:])
	return fmt.Sprintf("%016x%s", time.Now().UnixNano(), hex.EncodeToString(r[:]))
}

// JWKSHandler answers GET /.well-known/jwks.json: the public halves of the
// current key set, for anyone verifying our tokens.
func (s *Service) JWKSHandler(w http.ResponseWriter, r *http.Request) {
	raw, err := s.keys.Load().public.JSONPublic(r.Context())
	if err != nil {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=60")
	writeData(w, http.StatusOK, "application/jwk-set+json", raw)
}

// CheckKeyFile tells whether path holds a signing key the service can use, so
// that a bad --signing-key-file stops the process at start with one line.
func CheckKeyFile(path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if _, err := parsePrivateKey(raw); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// readKeyFile reads the PEM RSA private key of --signing-key-file.
func readKeyFile(path string) (*rsa.PrivateKey, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, wrap("signing key file", err)
	}
	priv, err := parsePrivateKey(raw)
	if err != nil {
		return nil, fmt.Errorf("auth: signing key file %s: %w", path, err)
	}
	return priv, nil
}

// parsePrivateKey reads an RSA private key in a PKCS #8 ("PRIVATE KEY") or
// PKCS #1 ("RSA PRIVATE KEY") PEM block; smaller than 2048 bits is refused.
func parsePrivateKey(raw []byte) (*rsa.PrivateKey, error) {
	block, _ := pem.Decode(raw)
	if block == nil {
		return nil, errors.New("no PEM block")
	}
	var (
		key any
		err error
	)
	switch block.Type {
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	default:
		return nil, fmt.Errorf("PEM block %q is not a private key", block.Type)
	}
	if err != nil {
		return nil, err
	}
	priv, ok := key.(*rsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("a %T is not an RSA key", key)
	}
	if priv.N.BitLen() < keyBits {
		return nil, fmt.Errorf("an RSA key of %d bits is too small (want at least %d)", priv.N.BitLen(), keyBits)
	}
	return priv, nil
}

// thumbprint is the RFC 7638 thumbprint of a public key, the kid of a file
// key: every process given the same file names it the same way.
func thumbprint(pub *rsa.PublicKey) string {
	b64 := func(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
	canonical, _ := json.Marshal(struct {
		E   string `json:"e"`
		Kty string `json:"kty"`
		N   string `json:"n"`
	}{b64(big.NewInt(int64(pub.E)).Bytes()), "RSA", b64(pub.N.Bytes())})
	sum := sha256.Sum256(canonical)
	return b64(sum[:])
}
