-- Parse names every user by a 10-character objectId from [A-Za-z0-9] (about 60 random bits). Users made
-- before this migration get one here; the engine gives every new user one.
ALTER TABLE users ADD COLUMN object_id TEXT;
UPDATE users SET object_id =
    substr('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 1 + abs(random() % 62), 1) ||
    substr('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 1 + abs(random() % 62), 1) ||
    substr('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 1 + abs(random() % 62), 1) ||
    substr('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 1 + abs(random() % 62), 1) ||
    substr('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 1 + abs(random() % 62), 1) ||
    substr('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 1 + abs(random() % 62), 1) ||
    substr('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 1 + abs(random() % 62), 1) ||
    substr('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 1 + abs(random() % 62), 1) ||
    substr('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 1 + abs(random() % 62), 1) ||
    substr('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789', 1 + abs(random() % 62), 1);
CREATE UNIQUE INDEX users_object_id ON users(object_id);
