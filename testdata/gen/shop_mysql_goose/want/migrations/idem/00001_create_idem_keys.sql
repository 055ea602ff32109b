-- The dedup table idem_keys of idem's guarded handlers (mysql), written by idemgen.
-- Never edit an applied migration: idemgen refuses to overwrite one that differs.
--
-- Apply with goose from the spec's folder. The migrations keep a version
-- table of their own, apart from the application's:
--
--   goose -dir migrations/idem -table idem_goose_db_version mysql 'USER:PASSWORD@tcp(HOST:3306)/DBNAME' up

-- +goose Up
CREATE TABLE IF NOT EXISTS idem_keys (
    consumer    VARBINARY(191) NOT NULL,
    key_hash    BINARY(32)     NOT NULL,
    key_text    MEDIUMTEXT CHARACTER SET utf8mb4 NOT NULL,
    state       VARCHAR(16) CHARACTER SET ascii NOT NULL,
    fingerprint VARBINARY(255) NULL,
    owner       VARCHAR(64) CHARACTER SET ascii NULL,
    lease_until DATETIME(6)    NULL,
    result      MEDIUMBLOB     NULL,
    created_at  DATETIME(6)    NOT NULL,
    expires_at  DATETIME(6)    NOT NULL,
    PRIMARY KEY (consumer, key_hash),
    KEY idem_keys_expires_at (expires_at)
) ENGINE=InnoDB;

-- +goose Down
DROP TABLE IF EXISTS idem_keys;
