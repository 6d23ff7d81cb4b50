-- Identities: the ways into an account other than its own email and password (anonymous, Apple, Google, any OpenID
-- issuer, ...). The primary key makes each (provider, subject) belong to one account, even when two replicas link it
-- at once; an account has at most one identity per provider. Only the provider's subject is kept, never a token.
CREATE TABLE identities (
    provider     text NOT NULL,
    subject      text NOT NULL,
    user_id      text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    created_at   timestamptz NOT NULL,
    last_used_at timestamptz NOT NULL,
    CONSTRAINT identities_pkey PRIMARY KEY (provider, subject),
    CONSTRAINT identities_user_provider UNIQUE (user_id, provider)
);
-- The idle-anonymous sweep reads anonymous identities by last use.
CREATE INDEX identities_idle ON identities(provider, last_used_at);
