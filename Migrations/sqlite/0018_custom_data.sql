-- Custom user data: one JSON document per account and App Services app, carried in that app's access tokens.
CREATE TABLE custom_data (
    user_id    TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    app_id     TEXT NOT NULL,
    document   TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    PRIMARY KEY (user_id, app_id)
);
