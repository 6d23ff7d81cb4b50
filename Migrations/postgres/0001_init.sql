-- Latchkey schema on PostgreSQL, the same tables as the SQLite store after its migration 0006. Secrets (codes,
-- continuation, refresh and link tokens) are stored only as HMAC-SHA256 under the server key; passwords only as
-- scrypt PHC strings; mail bodies sealed.

CREATE TABLE users (
    id                 text PRIMARY KEY,
    object_id          text NOT NULL UNIQUE,            -- the Parse dialect's 10-character objectId
    email              text UNIQUE,                     -- normalized (lowercase): one account per address
    username           text,                            -- as the user wrote it
    username_key       text UNIQUE,                     -- case-folded: unique without regard to case
    password_hash      text,                            -- NULL for code-only (passwordless) accounts
    email_verified     boolean NOT NULL DEFAULT false,
    status             text NOT NULL CHECK (status IN ('active', 'pending', 'disabled')),
    attributes         jsonb NOT NULL DEFAULT '{}',
    failed_login_count integer NOT NULL DEFAULT 0,
    created_at         timestamptz NOT NULL,
    updated_at         timestamptz NOT NULL,
    last_login_at      timestamptz,
    locked_until       timestamptz,
    CHECK (email IS NOT NULL OR username IS NOT NULL)
);
CREATE INDEX users_pending ON users(status, updated_at);
CREATE INDEX users_created_at ON users(created_at, id);

-- State behind each continuation token; each successful step swaps token_hash for a new one.
CREATE TABLE flows (
    id         text PRIMARY KEY,
    token_hash bytea NOT NULL UNIQUE,
    kind       text NOT NULL CHECK (kind IN ('sign_up', 'sign_in', 'password_reset')),
    email      text NOT NULL,
    user_id    text REFERENCES users(id) ON DELETE CASCADE,
    state      jsonb NOT NULL,
    expires_at timestamptz NOT NULL,
    created_at timestamptz NOT NULL
);
CREATE INDEX flows_expires_at ON flows(expires_at);

-- Mailed one-time codes: one live code per flow, capped attempts, single use.
CREATE TABLE otp_codes (
    flow_id       text PRIMARY KEY REFERENCES flows(id) ON DELETE CASCADE,
    code_hash     bytea NOT NULL,
    attempts_left integer NOT NULL,
    expires_at    timestamptz NOT NULL,
    created_at    timestamptz NOT NULL
);

-- Link tokens (token + tokenId) for confirmation and reset links.
CREATE TABLE action_tokens (
    token_id   text PRIMARY KEY,
    token_hash bytea NOT NULL,
    kind       text NOT NULL,
    user_id    text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    expires_at timestamptz NOT NULL,
    used_at    timestamptz,
    created_at timestamptz NOT NULL
);
CREATE INDEX action_tokens_expires_at ON action_tokens(expires_at);

-- Sessions of every kind: native refresh-token families, App Services and Parse sessions.
CREATE TABLE sessions (
    id         text PRIMARY KEY,
    family_id  text NOT NULL,
    user_id    text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind       text NOT NULL CHECK (kind IN ('native', 'app_services', 'parse')),
    audience   text NOT NULL,
    scope      text NOT NULL,
    token_hash bytea NOT NULL UNIQUE,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    rotated_at timestamptz,
    revoked_at timestamptz,
    parent_id  text,
    device_id  text
);
CREATE INDEX sessions_family ON sessions(family_id);
CREATE INDEX sessions_user ON sessions(user_id);
CREATE INDEX sessions_parent ON sessions(parent_id);
CREATE INDEX sessions_expires_at ON sessions(expires_at);

CREATE TABLE signing_keys (
    kid             text PRIMARY KEY,
    algorithm       text NOT NULL,
    private_key_pem text NOT NULL,
    created_at      timestamptz NOT NULL
);

-- Server-wide values created once, by whichever replica comes first (token HMAC key, tenant id, field types).
CREATE TABLE server_values (
    name  text PRIMARY KEY,
    value bytea NOT NULL
);

-- Mail to send, written in the transaction that caused it; claimed with a lease so two replicas never send one twice.
CREATE TABLE outbox (
    id              bigserial PRIMARY KEY,
    recipient       text NOT NULL,
    subject         text NOT NULL,
    kind            text NOT NULL,
    sealed_body     bytea,
    status          text NOT NULL CHECK (status IN ('pending', 'sent', 'failed')),
    attempts        integer NOT NULL DEFAULT 0,
    created_at      timestamptz NOT NULL,
    next_attempt_at timestamptz NOT NULL,
    sent_at         timestamptz,
    last_error      text
);
CREATE INDEX outbox_due ON outbox(status, next_attempt_at);

CREATE TABLE audit_events (
    id         bigserial PRIMARY KEY,
    at         timestamptz NOT NULL,
    kind       text NOT NULL,
    user_id    text,
    email      text,
    client_ip  text,
    user_agent text,
    detail     text
);
CREATE INDEX audit_events_at ON audit_events(at);

-- Token buckets for the per-address limits (mails to one address, code checks against one account): shared by
-- every replica. Times are Unix seconds.
CREATE TABLE rate_buckets (
    key        text PRIMARY KEY,
    tokens     double precision NOT NULL,
    verdict    smallint NOT NULL,             -- of the last take: 0 allowed, 1 denied, 2 denied and audit-worthy
    updated_at double precision NOT NULL,
    audited_at double precision
);
CREATE INDEX rate_buckets_updated_at ON rate_buckets(updated_at);
