-- Passkeys (WebAuthn credentials): the public key as COSE, the counter, backup flags; a credential id is unique
-- across the deployment. Challenges are kept as their hash, bound to the browser visit, taken once.
CREATE TABLE passkeys (
    id               TEXT PRIMARY KEY,
    user_id          TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    credential_id    BLOB NOT NULL UNIQUE,
    user_handle      BLOB NOT NULL,
    public_key       BLOB NOT NULL,
    algorithm        INTEGER NOT NULL,
    sign_count       INTEGER NOT NULL,
    name             TEXT NOT NULL,
    aaguid           BLOB NOT NULL,
    backup_eligible  INTEGER NOT NULL,
    backed_up        INTEGER NOT NULL,
    created_at       TEXT NOT NULL,
    last_used_at     TEXT,
    clone_flagged_at TEXT
);
CREATE INDEX passkeys_user ON passkeys(user_id);
CREATE TABLE passkey_challenges (
    challenge_hash BLOB PRIMARY KEY,
    purpose        TEXT NOT NULL CHECK (purpose IN ('registration', 'authentication')),
    user_id        TEXT REFERENCES users(id) ON DELETE CASCADE,
    visit_hash     BLOB NOT NULL,
    expires_at     TEXT NOT NULL
);
CREATE INDEX passkey_challenges_expiry ON passkey_challenges(expires_at);
