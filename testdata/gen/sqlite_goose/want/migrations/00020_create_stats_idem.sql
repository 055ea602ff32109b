-- The dedup table stats_idem of idem's guarded handlers (sqlite), written by idemgen.
-- Never edit an applied migration: idemgen refuses to overwrite one that differs.
--
-- Apply with goose from the spec's folder. The migrations keep a version
-- table of their own, apart from the application's:
--
--   goose -dir migrations -table idem_goose_db_version sqlite3 'PATH/TO/DB' up

-- +goose Up
CREATE TABLE IF NOT EXISTS stats_idem (
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

CREATE INDEX IF NOT EXISTS stats_idem_expires_at ON stats_idem (expires_at);

-- +goose Down
DROP TABLE IF EXISTS stats_idem;
