-- The device authorization grant (RFC 8628): a device's request, found by its device code (the device polls) or by
-- its user code (the person types it at /ui/device). Both are stored as HMACs only. Approval is the authorization
-- code written under the device code's HMAC; `decision` records a denial, or that the code was written.
CREATE TABLE device_authorizations (
    device_code_hash bytea PRIMARY KEY,
    user_code_hash   bytea NOT NULL UNIQUE,
    client_id        text NOT NULL,
    scope            text NOT NULL,
    interval_seconds bigint NOT NULL,
    expires_at       timestamptz NOT NULL,
    polled_at        timestamptz,
    decision         text
);
CREATE INDEX device_authorizations_expires_at ON device_authorizations(expires_at);
