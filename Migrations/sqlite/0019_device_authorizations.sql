-- The device authorization grant (RFC 8628): a device's request, found by its device code (the device polls) or by
-- its user code (the person types it at /ui/device). Both are stored as HMACs only. Approval is the authorization
-- code written under the device code's HMAC; `decision` records a denial, or that the code was written.
CREATE TABLE device_authorizations (
    device_code_hash BLOB PRIMARY KEY,
    user_code_hash   BLOB NOT NULL UNIQUE,
    client_id        TEXT NOT NULL,
    scope            TEXT NOT NULL,
    interval_seconds INTEGER NOT NULL,
    expires_at       TEXT NOT NULL,
    polled_at        TEXT,
    decision         TEXT
);
CREATE INDEX device_authorizations_expires_at ON device_authorizations(expires_at);
