-- Second factors: enrolled email addresses and phone numbers (codes go there), authenticator (TOTP) secrets sealed
-- under a key derived from the server key, and recovery codes kept as HMACs. A TOTP step is accepted once.
CREATE TABLE second_factors (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind       TEXT NOT NULL CHECK (kind IN ('email', 'totp', 'sms', 'recovery')),
    target     TEXT,
    secret     BLOB,
    last_step  INTEGER,
    created_at TEXT NOT NULL
);
CREATE INDEX second_factors_user ON second_factors(user_id, kind);
