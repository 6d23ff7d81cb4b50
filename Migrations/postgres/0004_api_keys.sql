-- API keys (App Services `api-key`): a user's own keys, and server keys the operator creates, each signing in as an
-- account (a server key's account is made with it). Only the key's HMAC under the server key is kept.
CREATE TABLE api_keys (
    id         text PRIMARY KEY,                 -- 24 hex digits: the App Services `_id`
    user_id    text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind       text NOT NULL CHECK (kind IN ('user', 'server')),
    app_id     text NOT NULL,
    name       text NOT NULL,
    key_hash   bytea NOT NULL UNIQUE,
    disabled   boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL
);
CREATE INDEX api_keys_user ON api_keys(user_id);
