-- The operator console (issue S): each event's dialect and the operator who acted; hourly counts of each kind by
-- dialect (kept with every append, so the overview's charts read a few hundred rows, not a month of events);
-- indexes for a user's recent events, a user's mails and the user list in creation order.
ALTER TABLE audit_events ADD COLUMN dialect TEXT;
ALTER TABLE audit_events ADD COLUMN actor TEXT;
CREATE TABLE audit_counts (
    hour    INTEGER NOT NULL,             -- Unix time / 3600
    kind    TEXT NOT NULL,
    dialect TEXT NOT NULL DEFAULT '',     -- '' when not recorded
    count   INTEGER NOT NULL,
    PRIMARY KEY (hour, kind, dialect)
) WITHOUT ROWID;
INSERT INTO audit_counts (hour, kind, dialect, count)
    SELECT CAST(strftime('%s', at) AS INTEGER) / 3600, kind, '', count(*) FROM audit_events GROUP BY 1, 2;
CREATE INDEX audit_events_kind_at ON audit_events(kind, at);
CREATE INDEX audit_events_user ON audit_events(user_id, id);
CREATE INDEX outbox_recipient ON outbox(recipient, id);
CREATE INDEX users_created ON users(created_at, id);
-- Roles an operator gives accounts: `operator` signs in to the console through the hosted pages.
CREATE TABLE user_roles (
    user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    role       TEXT NOT NULL,
    granted_at TEXT NOT NULL,
    PRIMARY KEY (user_id, role)
) WITHOUT ROWID;
