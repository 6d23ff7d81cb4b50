-- Temporary lock after repeated wrong passwords (progressive delay; cleared by a successful sign-in or reset).
ALTER TABLE users ADD COLUMN locked_until TEXT;
