-- Identities: the ways into an account other than its own email and password (anonymous, Apple, Google, any OpenID
-- issuer, ...). The primary key makes each (provider, subject) belong to one account, even when two requests link it
-- at once; an account has at most one identity per provider. Only the provider's subject is kept, never a token.
CREATE TABLE identities (
    provider     TEXT NOT NULL,
    subject      TEXT NOT NULL,
    user_id      TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at   TEXT NOT NULL,
    last_used_at TEXT NOT NULL,
    PRIMARY KEY (provider, subject),
    UNIQUE (user_id, provider)
);
-- The idle-anonymous sweep reads anonymous identities by last use.
CREATE INDEX identities_idle ON identities(provider, last_used_at);
