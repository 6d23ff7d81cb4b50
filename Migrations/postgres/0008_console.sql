-- The operator console (issue S): each event's dialect and the operator who acted; indexes for the overview's
-- counts by kind and time, a user's recent events, and a user's mails.
ALTER TABLE audit_events ADD COLUMN dialect text;
ALTER TABLE audit_events ADD COLUMN actor text;
CREATE INDEX audit_events_kind_at ON audit_events(kind, at);
CREATE INDEX audit_events_user ON audit_events(user_id, id);
CREATE INDEX outbox_recipient ON outbox(recipient, id);
