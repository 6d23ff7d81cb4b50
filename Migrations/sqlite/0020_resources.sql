-- Resource indicators (RFC 8707): the protected resource a grant was asked for, whose URL is the `aud` of the access
-- tokens it gives. Null: tokens for the client itself, as before.
ALTER TABLE authorization_codes ADD COLUMN resource TEXT;
ALTER TABLE device_authorizations ADD COLUMN resource TEXT;
ALTER TABLE sessions ADD COLUMN resource TEXT;
