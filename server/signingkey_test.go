package server_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/authstore"
)

// testSigningKey is one RSA key, in PEM, for every server this test binary
// starts. A server's first start on an empty database generates its signing
// key (server/auth), which was a tenth of every test's setup; server/auth's
// own tests cover that generation.
var testSigningKey = sync.OnceValues(func() (string, error) {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return "", err
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return "", err
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der})), nil
})

// addTestSigningKey stores testSigningKey in a database that has no signing
// key yet, as `entityapi keys rotate` would store a generated one; a database
// that has keys (a second server on it) keeps them.
func addTestSigningKey(t testing.TB, store *storage.Store) {
	t.Helper()
	ctx := context.Background()
	records := authstore.New(store)
	keys, err := records.SigningKeys(ctx)
	if err != nil {
		t.Fatalf("signing keys: %v", err)
	}
	if len(keys) > 0 {
		return
	}
	pemText, err := testSigningKey()
	if err != nil {
		t.Fatalf("test signing key: %v", err)
	}
	var r [4]byte
	_, _ = rand.Read(r[:])
	kid := fmt.Sprintf("%016x%s", time.Now().UnixNano(), hex.EncodeToString(r[:]))
	if err := records.AddSigningKey(ctx, &authstore.SigningKey{KID: kid, PrivatePEM: pemText}); err != nil {
		t.Fatalf("add the test signing key: %v", err)
	}
}
