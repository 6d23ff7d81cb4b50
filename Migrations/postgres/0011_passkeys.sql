-- Passkeys (WebAuthn credentials): the public key as COSE, the counter, backup flags; a credential id is unique
-- across the deployment. Challenges are kept as their hash, bound to the browser visit, taken once.
CREATE TABLE passkeys (
    id               text PRIMARY KEY,
    user_id          text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    credential_id    bytea NOT NULL UNIQUE,
    user_handle      bytea NOT NULL,
    public_key       bytea NOT NULL,
    algorithm        bigint NOT NULL,
    sign_count       bigint NOT NULL,
    name             text NOT NULL,
    aaguid           bytea NOT NULL,
    backup_eligible  boolean NOT NULL,
    backed_up        boolean NOT NULL,
    created_at       timestamptz NOT NULL,
    last_used_at     timestamptz,
    clone_flagged_at timestamptz
);
CREATE INDEX passkeys_user ON passkeys(user_id);
CREATE TABLE passkey_challenges (
    challenge_hash bytea PRIMARY KEY,
    purpose        text NOT NULL CHECK (purpose IN ('registration', 'authentication')),
    user_id        text REFERENCES users(id) ON DELETE CASCADE,
    visit_hash     bytea NOT NULL,
    expires_at     timestamptz NOT NULL
);
CREATE INDEX passkey_challenges_expiry ON passkey_challenges(expires_at);
