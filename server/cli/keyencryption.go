package cli

import (
	"fmt"
	"log/slog"
	"os"

	"github.com/entityapi/entityapi/server/auth"
)

// kekSettings are the key-encryption key settings as given (see the settings
// table): read and checked by finish, never echoed in a message, since the
// value is the key itself.
type kekSettings struct {
	file, text, previousFile, previousText string
}

// build reads the key-encryption key and, when given, the one it replaces;
// nil when no key is given (the signing keys stay plain PEM).
func (k kekSettings) build() (*auth.KeyEncryption, error) {
	current, err := readKEK(k.file, k.text, "--key-encryption-key-file", "--key-encryption-key (ENTITYAPI_KEY_ENCRYPTION_KEY)")
	if err != nil {
		return nil, err
	}
	previous, err := readKEK(k.previousFile, k.previousText, "--key-encryption-key-previous-file",
		"--key-encryption-key-previous (ENTITYAPI_KEY_ENCRYPTION_KEY_PREVIOUS)")
	if err != nil {
		return nil, err
	}
	if current == nil {
		if previous != nil {
			return nil, fmt.Errorf("a previous key-encryption key is given without the current one (%s)", auth.KEKSettings)
		}
		return nil, nil
	}
	return auth.NewKeyEncryption(current, previous)
}

// readKEK reads a key from its file or its text setting (one of them, or
// neither: nil).
func readKEK(file, text, fileSetting, textSetting string) ([]byte, error) {
	switch {
	case file != "" && text != "":
		return nil, fmt.Errorf("%s and %s are both given: give one", fileSetting, textSetting)
	case file != "":
		raw, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", fileSetting, err)
		}
		key, err := auth.ParseKEK(string(raw))
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", fileSetting, file, err)
		}
		return key, nil
	case text != "":
		key, err := auth.ParseKEK(text)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", textSetting, err)
		}
		return key, nil
	}
	return nil, nil
}

// warnUnsealedKeys logs, once at start, that a production server keeps its
// signing keys in the database as plain PEM: without a key-encryption key a
// copy of the database can sign tokens. The demo (`make run`) needs no key and
// hears nothing; a --signing-key-file keeps no key in the database.
func warnUnsealedKeys(cfg *config, log *slog.Logger) {
	if cfg.demo || cfg.auth.KeyEncryption != nil || cfg.auth.SigningKeyFile != "" {
		return
	}
	log.Warn("the signing keys are stored unencrypted in the database: give a key-encryption key (" + auth.KEKSettings +
		"; docs/production.md)")
}
