-- The OpenID provider (issue R): browser sessions behind the SSO cookie, authorization codes (single use, bound to
-- client, redirect URI and PKCE challenge; kept with their browser session so sign-out can revoke what they gave),
-- and the consents users gave third-party clients. Cookies and codes are stored as HMACs only.
CREATE TABLE browser_sessions (
    id         TEXT PRIMARY KEY,
    user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    token_hash BLOB NOT NULL UNIQUE,
    amr        TEXT NOT NULL,
    auth_time  TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    revoked_at TEXT,
    ip         TEXT,
    user_agent TEXT
);
CREATE INDEX browser_sessions_user ON browser_sessions(user_id);
CREATE INDEX browser_sessions_expires_at ON browser_sessions(expires_at);

CREATE TABLE authorization_codes (
    code_hash          BLOB PRIMARY KEY,
    client_id          TEXT NOT NULL,
    user_id            TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    redirect_uri       TEXT NOT NULL,
    code_challenge     TEXT,
    nonce              TEXT,
    scope              TEXT NOT NULL,
    amr                TEXT NOT NULL,
    auth_time          TEXT NOT NULL,
    family_id          TEXT NOT NULL,
    browser_session_id TEXT REFERENCES browser_sessions(id) ON DELETE CASCADE,
    expires_at         TEXT NOT NULL,
    used_at            TEXT
);
CREATE INDEX authorization_codes_session ON authorization_codes(browser_session_id);
CREATE INDEX authorization_codes_expires_at ON authorization_codes(expires_at);

CREATE TABLE consents (
    user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    client_id  TEXT NOT NULL,
    scope      TEXT NOT NULL,
    granted_at TEXT NOT NULL,
    PRIMARY KEY (user_id, client_id)
);
