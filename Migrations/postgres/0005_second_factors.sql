-- Second factors: enrolled email addresses and phone numbers (codes go there), authenticator (TOTP) secrets sealed
-- under a key derived from the server key, and recovery codes kept as HMACs. A TOTP step is accepted once.
CREATE TABLE second_factors (
    id         text PRIMARY KEY,
    user_id    text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    kind       text NOT NULL CHECK (kind IN ('email', 'totp', 'sms', 'recovery')),
    target     text,
    secret     bytea,
    last_step  bigint,
    created_at timestamptz NOT NULL
);
CREATE INDEX second_factors_user ON second_factors(user_id, kind);
