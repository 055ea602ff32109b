-- The dedup table stats_idem of idem's guarded handlers (postgres), written by idemgen.
-- Never edit an applied migration: idemgen refuses to overwrite one that differs.
--
-- Apply with goose from the spec's folder. The migrations keep a version
-- table of their own, apart from the application's:
--
--   goose -dir migrations -table idem_goose_db_version postgres 'postgres://USER:PASSWORD@HOST:5432/DBNAME' up

-- +goose Up
CREATE TABLE IF NOT EXISTS stats_idem (
    consumer    text        NOT NULL,
    key_hash    bytea       NOT NULL,
    key_text    text        NOT NULL,
    state       text        NOT NULL CHECK (state IN ('pending', 'done', 'failed', 'uncertain')),
    fingerprint bytea,
    owner       text,
    lease_until timestamptz,
    result      bytea,
    created_at  timestamptz NOT NULL,
    expires_at  timestamptz NOT NULL,
    PRIMARY KEY (consumer, key_hash)
);

CREATE INDEX IF NOT EXISTS stats_idem_expires_at ON stats_idem (expires_at);

-- +goose Down
DROP TABLE IF EXISTS stats_idem;
