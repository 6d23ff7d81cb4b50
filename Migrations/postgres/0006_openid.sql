-- The OpenID provider (issue R): browser sessions behind the SSO cookie, authorization codes (single use, bound to
-- client, redirect URI and PKCE challenge; kept with their browser session so sign-out can revoke what they gave),
-- and the consents users gave third-party clients. Cookies and codes are stored as HMACs only.
CREATE TABLE browser_sessions (
    id         text PRIMARY KEY,
    user_id    text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    token_hash bytea NOT NULL UNIQUE,
    amr        text NOT NULL,
    auth_time  timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    revoked_at timestamptz,
    ip         text,
    user_agent text
);
CREATE INDEX browser_sessions_user ON browser_sessions(user_id);
CREATE INDEX browser_sessions_expires_at ON browser_sessions(expires_at);

CREATE TABLE authorization_codes (
    code_hash          bytea PRIMARY KEY,
    client_id          text NOT NULL,
    user_id            text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    redirect_uri       text NOT NULL,
    code_challenge     text,
    nonce              text,
    scope              text NOT NULL,
    amr                text NOT NULL,
    auth_time          timestamptz NOT NULL,
    family_id          text NOT NULL,
    browser_session_id text REFERENCES browser_sessions(id) ON DELETE CASCADE,
    expires_at         timestamptz NOT NULL,
    used_at            timestamptz
);
CREATE INDEX authorization_codes_session ON authorization_codes(browser_session_id);
CREATE INDEX authorization_codes_expires_at ON authorization_codes(expires_at);

CREATE TABLE consents (
    user_id    text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    client_id  text NOT NULL,
    scope      text NOT NULL,
    granted_at timestamptz NOT NULL,
    PRIMARY KEY (user_id, client_id)
);
