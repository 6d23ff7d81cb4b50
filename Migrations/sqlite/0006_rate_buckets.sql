-- Token buckets for the per-address limits (mails to one address, code checks against one account), kept in the
-- database so that every process serving it counts against the same bucket. Times are Unix seconds.
CREATE TABLE rate_buckets (
    key        TEXT PRIMARY KEY,
    tokens     REAL NOT NULL,
    verdict    INTEGER NOT NULL,              -- of the last take: 0 allowed, 1 denied, 2 denied and audit-worthy
    updated_at REAL NOT NULL,
    audited_at REAL
) WITHOUT ROWID;
CREATE INDEX rate_buckets_updated_at ON rate_buckets(updated_at);
