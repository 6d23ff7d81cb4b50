-- Sessions of every kind in one table: native refresh-token families and App Services sessions (Parse sessions
-- next), told apart by `kind`, with the client or app id they were opened for in `audience`.
ALTER TABLE refresh_tokens RENAME TO sessions;
ALTER TABLE sessions RENAME COLUMN client_id TO audience;
ALTER TABLE sessions ADD COLUMN kind TEXT NOT NULL DEFAULT 'native' CHECK (kind IN ('native', 'app_services', 'parse'));
UPDATE sessions SET kind = 'app_services', audience = substr(audience, 5) WHERE audience LIKE 'app:%';

-- Users: the email becomes optional and a username may stand beside it, unique without regard to case
-- (username_key holds the case-folded form). SQLite cannot drop NOT NULL in place: the table is rebuilt.
CREATE TABLE users_new (
    id                 TEXT PRIMARY KEY,
    email              TEXT UNIQUE,                   -- normalized (lowercase): one account per address
    username           TEXT,                          -- as the user wrote it
    username_key       TEXT UNIQUE,
    password_hash      TEXT,                          -- NULL for code-only (passwordless) accounts
    email_verified     INTEGER NOT NULL DEFAULT 0,
    status             TEXT NOT NULL CHECK (status IN ('active', 'pending', 'disabled')),
    attributes         TEXT NOT NULL DEFAULT '{}',    -- JSON object
    failed_login_count INTEGER NOT NULL DEFAULT 0,
    created_at         TEXT NOT NULL,
    updated_at         TEXT NOT NULL,
    last_login_at      TEXT,
    locked_until       TEXT,
    CHECK (email IS NOT NULL OR username IS NOT NULL)
);
INSERT INTO users_new (id, email, username, username_key, password_hash, email_verified, status, attributes,
                       failed_login_count, created_at, updated_at, last_login_at, locked_until)
    SELECT id, email, username, lower(username), password_hash, email_verified, status, attributes,
           failed_login_count, created_at, updated_at, last_login_at, locked_until FROM users;
DROP TABLE users;
ALTER TABLE users_new RENAME TO users;
CREATE INDEX users_pending ON users(status, updated_at);
