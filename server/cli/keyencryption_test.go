package cli

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/entityapi/entityapi/storage"
	"github.com/entityapi/entityapi/storage/authstore"
)

const (
	testKEK      = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="
	otherTestKEK = "ZmVkY2JhOTg3NjU0MzIxMGZlZGNiYTk4NzY1NDMyMTA="
)

// TestKEKSettings: the key comes from its file or its variable (not both), in
// every command that opens the database; a bad one is refused naming the
// setting, never showing the value.
func TestKEKSettings(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "kek")
	if err := os.WriteFile(file, []byte(testKEK+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, cmd string
		args      []string
		env       map[string]string
		sealed    bool
		err       string
	}{
		{name: "none", cmd: "serve"},
		{name: "the variable", cmd: "serve", env: map[string]string{"ENTITYAPI_KEY_ENCRYPTION_KEY": testKEK}, sealed: true},
		{name: "the file", cmd: "keys rotate", args: []string{"--key-encryption-key-file", file}, sealed: true},
		{name: "new and previous", cmd: "keys rewrap", args: []string{"--key-encryption-key-file", file},
			env: map[string]string{"ENTITYAPI_KEY_ENCRYPTION_KEY_PREVIOUS": otherTestKEK}, sealed: true},
		{name: "both", cmd: "serve", args: []string{"--key-encryption-key-file", file},
			env: map[string]string{"ENTITYAPI_KEY_ENCRYPTION_KEY": testKEK}, err: "both given"},
		{name: "too short", cmd: "serve", env: map[string]string{"ENTITYAPI_KEY_ENCRYPTION_KEY": "c2hvcnQta2V5"},
			err: "ENTITYAPI_KEY_ENCRYPTION_KEY"},
		{name: "no file", cmd: "serve", args: []string{"--key-encryption-key-file", filepath.Join(dir, "none")},
			err: "--key-encryption-key-file"},
		{name: "previous alone", cmd: "serve", env: map[string]string{"ENTITYAPI_KEY_ENCRYPTION_KEY_PREVIOUS": otherTestKEK},
			err: "without the current one"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseWith(tc.cmd, tc.args, tc.env)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "c2hvcnQta2V5") {
					t.Fatalf("err = %v, want one naming %q without the value", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := c.auth.KeyEncryption != nil; got != tc.sealed {
				t.Errorf("key encryption set = %v, want %v", got, tc.sealed)
			}
		})
	}
}

// TestUnsealedKeysWarning: a production serve without a KEK warns once; the
// demo, a KEK or a key file do not.
func TestUnsealedKeysWarning(t *testing.T) {
	for _, tc := range []struct {
		name  string
		args  []string
		env   map[string]string
		lines int
	}{
		{"production without a KEK", nil, nil, 1},
		{"the demo", []string{"--demo"}, nil, 0},
		{"a KEK", nil, map[string]string{"ENTITYAPI_KEY_ENCRYPTION_KEY": testKEK}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := parseWith("serve", tc.args, tc.env)
			if err != nil {
				t.Fatal(err)
			}
			var buf bytes.Buffer
			warnUnsealedKeys(c, slog.New(slog.NewTextHandler(&buf, nil)))
			if got := strings.Count(buf.String(), "stored unencrypted"); got != tc.lines {
				t.Errorf("%d warnings, want %d:\n%s", got, tc.lines, buf.String())
			}
		})
	}
}

// TestKEKStartup: keys rotate with a KEK stores sealed keys; serve with a
// wrong KEK stops at start naming the setting; keys rewrap moves the keys to
// a new KEK given the previous one, after which the old one no longer serves.
func TestKEKStartup(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	oldFile, newFile := filepath.Join(dir, "old.kek"), filepath.Join(dir, "new.kek")
	for path, key := range map[string]string{oldFile: testKEK, newFile: otherTestKEK} {
		if err := os.WriteFile(path, []byte(key), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	db := []string{"--data-dir", dir, "--log-level", "error"}
	cmd := func(args ...string) error { return run(ctx, append(args, db...), os.Stdout, os.Stderr) }
	if err := cmd("keys", "rotate"); err != nil { // a plain key first, as before the KEK
		t.Fatal(err)
	}
	if err := cmd("keys", "rotate", "--key-encryption-key-file", oldFile); err != nil {
		t.Fatal(err)
	}
	store, err := storage.Open(ctx, "sqlite:"+filepath.Join(dir, "entityapi.db"))
	if err != nil {
		t.Fatal(err)
	}
	keys, err := authstore.New(store).SigningKeys(ctx)
	store.Close()
	if err != nil || len(keys) != 2 {
		t.Fatalf("SigningKeys = %d, %v; want 2", len(keys), err)
	}
	for _, k := range keys {
		if !strings.HasPrefix(k.PrivatePEM, "aes256gcm:v1:") {
			t.Errorf("key %s is stored unsealed", k.KID)
		}
	}
	serve := func(kek string) error {
		return cmd("serve", "--addr", "127.0.0.1:0", "--key-encryption-key-file", kek)
	}
	if err := serve(newFile); err == nil || !strings.Contains(err.Error(), "--key-encryption-key-file") {
		t.Fatalf("serve with a wrong KEK: %v, want an error naming the setting", err)
	}
	if err := cmd("keys", "rewrap", "--key-encryption-key-file", newFile, "--key-encryption-key-previous-file", oldFile); err != nil {
		t.Fatal(err)
	}
	if err := serve(oldFile); err == nil || !strings.Contains(err.Error(), "--key-encryption-key-file") {
		t.Fatalf("serve with the replaced KEK: %v, want an error naming the setting", err)
	}
}

// TestSealedKeysWithoutKEK: serve on sealed signing keys without their
// key-encryption key stops with one error that says the keys are encrypted,
// and says nothing before it of keys stored unencrypted (it once warned so,
// then failed: two start-up lines that contradict each other).
func TestSealedKeysWithoutKEK(t *testing.T) {
	dir := t.TempDir()
	kek := filepath.Join(dir, "kek")
	if err := os.WriteFile(kek, []byte(testKEK), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	db := []string{"--data-dir", dir, "--log-format", "text"}
	if err := run(ctx, append([]string{"keys", "rotate", "--key-encryption-key-file", kek}, db...), io.Discard, io.Discard); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	err := run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--workers", "1"}, db...), io.Discard, &stderr)
	if err == nil || !strings.Contains(err.Error(), "is encrypted: give its key-encryption key") {
		t.Fatalf("serve: %v, want the error that the keys are encrypted", err)
	}
	if log := stderr.String(); strings.Contains(log, "unencrypted") || strings.Contains(log, "listening") {
		t.Errorf("start-up lines before the error:\n%s", log)
	}
}
