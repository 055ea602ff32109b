-- The dedup table stats_idem of idem's guarded handlers (postgres), written by idemgen.
-- Never edit an applied migration: idemgen refuses to overwrite one that differs.
--
-- Plain SQL, for any migration tool; or apply it once by hand:
--
--   psql 'postgres://USER:PASSWORD@HOST:5432/DBNAME' -v ON_ERROR_STOP=1 -f migrations/000020_create_stats_idem.sql
--
-- To undo it:
--
--   DROP TABLE IF EXISTS stats_idem;

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
