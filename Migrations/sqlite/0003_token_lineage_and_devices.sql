-- Refresh tokens remember the token they were minted from, so a retried refresh inside the grace window
-- replaces its sibling instead of forking the family; App Services sessions keep their login's device id.
ALTER TABLE refresh_tokens ADD COLUMN parent_id TEXT;
ALTER TABLE refresh_tokens ADD COLUMN device_id TEXT;
CREATE INDEX refresh_tokens_parent ON refresh_tokens(parent_id);
CREATE INDEX refresh_tokens_expires_at ON refresh_tokens(expires_at);
CREATE INDEX action_tokens_expires_at ON action_tokens(expires_at);
CREATE INDEX users_pending ON users(status, updated_at);
