-- The dedup table shop_dedup of idem's guarded handlers (sqlite), written by idemgen.
-- Never edit an applied migration: idemgen refuses to overwrite one that differs.
--
-- Plain SQL, for any migration tool; or apply it once by hand:
--
--   sqlite3 PATH/TO/DB < db/idem/000003_create_shop_dedup.sql
--
-- To undo it:
--
--   DROP TABLE IF EXISTS shop_dedup;

CREATE TABLE IF NOT EXISTS shop_dedup (
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

CREATE INDEX IF NOT EXISTS shop_dedup_expires_at ON shop_dedup (expires_at);
