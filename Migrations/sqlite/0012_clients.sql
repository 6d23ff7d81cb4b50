-- Clients made through the admin API or CLI (issue R), beside the configuration file's: their settings as a JSON
-- document, a confidential client's secret as its SHA-256 only.
CREATE TABLE clients (
    id          TEXT PRIMARY KEY,
    name        TEXT NOT NULL,
    document    TEXT NOT NULL,
    secret_hash BLOB,
    created_at  TEXT NOT NULL
);
