-- Where the request that made a session's token came from: the account page shows each app session's newest.
ALTER TABLE sessions ADD COLUMN ip TEXT;
ALTER TABLE sessions ADD COLUMN user_agent TEXT;
