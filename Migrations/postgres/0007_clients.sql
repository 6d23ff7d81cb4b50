-- Clients made through the admin API or CLI (issue R), beside the configuration file's: their settings as a JSON
-- document, a confidential client's secret as its SHA-256 only.
CREATE TABLE clients (
    id          text PRIMARY KEY,
    name        text NOT NULL,
    document    text NOT NULL,
    secret_hash bytea,
    created_at  timestamptz NOT NULL
);
