-- A client's signed assertion (private_key_jwt, RFC 7523) is used once: its jti, as a SHA-256 with the client's id,
-- until the assertion expires.
CREATE TABLE client_assertions (
    id_hash    bytea PRIMARY KEY,
    expires_at timestamptz NOT NULL
);
CREATE INDEX client_assertions_expiry ON client_assertions (expires_at);
