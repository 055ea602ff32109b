-- The dedup table idem_keys of idem's guarded handlers (sqlite), written by idemgen.
-- Never edit an applied migration: idemgen refuses to overwrite one that differs.
--
-- Apply with golang-migrate from the spec's folder. The migrations keep a
-- version table of their own, apart from the application's:
--
--   migrate -path migrations/idem -database 'sqlite3://PATH/TO/DB?x-migrations-table=idem_schema_migrations' up

CREATE TABLE IF NOT EXISTS idem_keys (
    consumer    TEXT    NOT NULL,
    key_hash    BLOB    NOT NULL,
    key_text    TEXT    NOT NULL,
    state       TEXT    NOT NULL CHECK (state IN ('pending', 'done', 'failed', 'uncertain')),
    fingerprint BLOB,
    owner       TEXT,
    lease_until INTEGER,
    result      BLOB,
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER NOT NULL,
    PRIMARY KEY (consumer, key_hash)
) WITHOUT ROWID;

CREATE INDEX IF NOT EXISTS idem_keys_expires_at ON idem_keys (expires_at);
