-- OAuth clients and the keys that sign access tokens (docs/decisions.md §8), and the
-- demo flag on users. Placeholders and split markers as in 0001.
--
-- A back-office client acts as a user, so it has one and goes with it (ON
-- DELETE CASCADE); a storefront client acts as itself and has none. The CHECK
-- keeps that pairing true whatever writes the row. Demo rows (`--demo`) are
-- marked so that a server started without --demo can refuse them.

CREATE TABLE clients (
    id TEXT NOT NULL PRIMARY KEY,
    organization_id BIGINT NOT NULL REFERENCES organizations (id),
    secret_hash TEXT NOT NULL,
    app TEXT NOT NULL CHECK (app IN ('backoffice', 'storefront')),
    name TEXT NOT NULL,
    user_id BIGINT NULL REFERENCES users (id) ON DELETE CASCADE,
    enabled BOOLEAN NOT NULL DEFAULT TRUE,
    demo BOOLEAN NOT NULL DEFAULT FALSE,
    created_at {{.Timestamp}} NOT NULL DEFAULT {{.Now}},
    updated_at {{.Timestamp}} NOT NULL DEFAULT {{.Now}},
    CHECK ((app = 'backoffice' AND user_id IS NOT NULL) OR (app = 'storefront' AND user_id IS NULL))
);

--bun:split

CREATE INDEX clients_organization_id_idx ON clients (organization_id);

--bun:split

CREATE INDEX clients_user_id_idx ON clients (user_id);

--bun:split

-- The private key as PKCS #8 PEM. Every process signs with the newest and
-- verifies with all (reloading them periodically).
CREATE TABLE signing_keys (
    kid TEXT NOT NULL PRIMARY KEY,
    private_pem TEXT NOT NULL,
    created_at {{.Timestamp}} NOT NULL DEFAULT {{.Now}}
);

--bun:split

ALTER TABLE users ADD COLUMN demo BOOLEAN NOT NULL DEFAULT FALSE;
