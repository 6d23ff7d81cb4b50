-- API keys (App Services `api-key`): a user's own keys, and server keys the operator creates, each signing in as an
-- account (a server key's account is made with it). Only the key's HMAC under the server key is kept.
CREATE TABLE api_keys (
    id         TEXT PRIMARY KEY,                 -- 24 hex digits: the App Services `_id`
    user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind IN ('user', 'server')),
    app_id     TEXT NOT NULL,
    name       TEXT NOT NULL,
    key_hash   BLOB NOT NULL UNIQUE,
    disabled   INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL
);
CREATE INDEX api_keys_user ON api_keys(user_id);
