-- The dedup table idem_keys of idem's guarded handlers (postgres), written by idemgen.
-- Never edit an applied migration: idemgen refuses to overwrite one that differs.
--
-- Apply with golang-migrate from the spec's folder. The migrations keep a
-- version table of their own, apart from the application's:
--
--   migrate -path migrations/idem -database 'postgres://USER:PASSWORD@HOST:5432/DBNAME?x-migrations-table=idem_schema_migrations' up

CREATE TABLE IF NOT EXISTS idem_keys (
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

CREATE INDEX IF NOT EXISTS idem_keys_expires_at ON idem_keys (expires_at);
