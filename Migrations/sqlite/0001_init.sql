-- Latchkey schema, version 1. Secrets (codes, continuation, refresh and link tokens) are stored only
-- as HMAC-SHA256 under the server key; passwords only as scrypt PHC strings.

CREATE TABLE users (
    id                 TEXT PRIMARY KEY,
    email              TEXT NOT NULL UNIQUE,          -- normalized (lowercase): one account per address
    username           TEXT UNIQUE,
    password_hash      TEXT,                          -- NULL for code-only (passwordless) accounts
    email_verified     INTEGER NOT NULL DEFAULT 0,
    status             TEXT NOT NULL CHECK (status IN ('active', 'pending', 'disabled')),
    attributes         TEXT NOT NULL DEFAULT '{}',    -- JSON object
    failed_login_count INTEGER NOT NULL DEFAULT 0,
    created_at         TEXT NOT NULL,
    updated_at         TEXT NOT NULL,
    last_login_at      TEXT
);

-- State behind each continuation token; each successful step swaps token_hash for a new one.
CREATE TABLE flows (
    id         TEXT PRIMARY KEY,
    token_hash BLOB NOT NULL UNIQUE,
    kind       TEXT NOT NULL CHECK (kind IN ('sign_up', 'sign_in', 'password_reset')),
    email      TEXT NOT NULL,
    user_id    TEXT REFERENCES users(id) ON DELETE CASCADE,
    state      TEXT NOT NULL,                         -- JSON
    expires_at TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE INDEX flows_expires_at ON flows(expires_at);

-- Mailed one-time codes: one live code per flow, capped attempts, single use.
CREATE TABLE otp_codes (
    flow_id       TEXT PRIMARY KEY REFERENCES flows(id) ON DELETE CASCADE,
    code_hash     BLOB NOT NULL,
    attempts_left INTEGER NOT NULL,
    expires_at    TEXT NOT NULL,
    created_at    TEXT NOT NULL
);

-- Link tokens (token + tokenId) for confirmation and reset links.
CREATE TABLE action_tokens (
    token_id   TEXT PRIMARY KEY,
    token_hash BLOB NOT NULL,
    kind       TEXT NOT NULL,
    user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    expires_at TEXT NOT NULL,
    used_at    TEXT,
    created_at TEXT NOT NULL
);

CREATE TABLE refresh_tokens (
    id         TEXT PRIMARY KEY,
    family_id  TEXT NOT NULL,
    user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    client_id  TEXT NOT NULL,
    scope      TEXT NOT NULL,
    token_hash BLOB NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    rotated_at TEXT,
    revoked_at TEXT
);
CREATE INDEX refresh_tokens_family ON refresh_tokens(family_id);
CREATE INDEX refresh_tokens_user ON refresh_tokens(user_id);

CREATE TABLE signing_keys (
    kid             TEXT PRIMARY KEY,
    algorithm       TEXT NOT NULL,
    private_key_pem TEXT NOT NULL,
    created_at      TEXT NOT NULL
);

-- Server-wide values created at first start (token HMAC key, tenant id).
CREATE TABLE server_values (
    name  TEXT PRIMARY KEY,
    value BLOB NOT NULL
);

-- Mail to send, written in the transaction that caused it. Bodies are sealed and wiped once sent.
CREATE TABLE outbox (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    recipient       TEXT NOT NULL,
    subject         TEXT NOT NULL,
    kind            TEXT NOT NULL,
    sealed_body     BLOB,
    status          TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'failed')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    created_at      TEXT NOT NULL,
    next_attempt_at TEXT NOT NULL,
    sent_at         TEXT,
    last_error      TEXT
);
CREATE INDEX outbox_due ON outbox(status, next_attempt_at);

CREATE TABLE audit_events (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    at         TEXT NOT NULL,
    kind       TEXT NOT NULL,
    user_id    TEXT,
    email      TEXT,
    client_ip  TEXT,
    user_agent TEXT,
    detail     TEXT
);
CREATE INDEX audit_events_at ON audit_events(at);
