-- +goose Up
CREATE TABLE grants (user_id TEXT NOT NULL, role TEXT NOT NULL, UNIQUE (user_id, role));

-- +goose Down
DROP TABLE grants;
