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
    PRIMARY KEY (consumer, key_hash, expires_at)
) PARTITION BY RANGE (expires_at);

CREATE INDEX IF NOT EXISTS stats_idem_pending ON stats_idem (lease_until) WHERE state = 'pending';

CREATE TABLE IF NOT EXISTS stats_idem_forever PARTITION OF stats_idem FOR VALUES FROM ('9999-01-01 00:00:00+00') TO (MAXVALUE);

-- +goose StatementBegin
DO $$
DECLARE d date;
BEGIN
    FOR d IN SELECT generate_series(0, 33) + (clock_timestamp() AT TIME ZONE 'UTC')::date LOOP
        EXECUTE format('CREATE TABLE IF NOT EXISTS %s PARTITION OF stats_idem FOR VALUES FROM (%L) TO (%L)',
            'stats_idem_p' || to_char(d, 'YYYYMMDD'), d || ' 00:00:00+00', (d + 1) || ' 00:00:00+00');
    END LOOP;
END $$;
-- +goose StatementEnd

-- +goose Down
DROP TABLE IF EXISTS stats_idem;
