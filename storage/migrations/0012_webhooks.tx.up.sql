-- Webhooks (issue 19): each organization's administrators register target
-- URLs for the change events they want; a dispatcher follows the event feed
-- from webhook_cursor and queues one delivery job per event and webhook in
-- the transaction that moves the cursor, and every attempt is logged in
-- webhook_deliveries (kept for --event-lifetime).
CREATE TABLE webhooks (
    id {{.Serial}},
    organization_id BIGINT NOT NULL REFERENCES organizations (id),
    url TEXT NOT NULL,
    event_types {{.JSON}} NOT NULL,
    -- the signing secret, sealed with the key-encryption key when one is set
    secret TEXT NOT NULL,
    -- the secret a rotation replaced, still signed with until previous_until
    previous_secret TEXT,
    previous_until {{.Timestamp}},
    enabled BOOLEAN NOT NULL DEFAULT TRUE,
    consecutive_failures BIGINT NOT NULL DEFAULT 0,
    disabled_at {{.Timestamp}},
    created_at {{.Timestamp}} NOT NULL DEFAULT {{.Now}},
    updated_at {{.Timestamp}} NOT NULL DEFAULT {{.Now}}
);

--bun:split

CREATE INDEX webhooks_organization_id_id_idx ON webhooks (organization_id, id);

--bun:split

CREATE TABLE webhook_deliveries (
    id {{.Serial}},
    webhook_id BIGINT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    organization_id BIGINT NOT NULL,
    message_id TEXT NOT NULL,
    event_id BIGINT,
    attempt BIGINT NOT NULL,
    status_code BIGINT,
    duration_ms BIGINT NOT NULL,
    error TEXT,
    created_at {{.Timestamp}} NOT NULL DEFAULT {{.Now}}
);

--bun:split

CREATE INDEX webhook_deliveries_webhook_id_id_idx ON webhook_deliveries (webhook_id, id);

--bun:split

CREATE INDEX webhook_deliveries_created_at_idx ON webhook_deliveries (created_at);

--bun:split

-- The dispatcher's position in the event feed: one row.
CREATE TABLE webhook_cursor (
    id BIGINT PRIMARY KEY,
    position BIGINT NOT NULL
);

--bun:split

INSERT INTO webhook_cursor (id, position) SELECT 1, COALESCE(MAX(id), 0) FROM events;
