-- The dedup table stats_idem of idem's guarded handlers (mysql), written by idemgen.
-- Never edit an applied migration: idemgen refuses to overwrite one that differs.
--
-- Plain SQL, for any migration tool; or apply it once by hand:
--
--   mysql -u USER -p DBNAME < migrations/000020_create_stats_idem.sql
--
-- To undo it:
--
--   DROP TABLE IF EXISTS stats_idem;

CREATE TABLE IF NOT EXISTS stats_idem (
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
    KEY stats_idem_expires_at (expires_at)
) ENGINE=InnoDB;
