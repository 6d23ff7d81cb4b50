-- Custom user data: one JSON document per account and App Services app, carried in that app's access tokens.
CREATE TABLE custom_data (
    user_id    text NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    app_id     text NOT NULL,
    document   text NOT NULL,
    updated_at timestamptz NOT NULL,
    PRIMARY KEY (user_id, app_id)
);
