-- The dedup table idem_keys of idem's guarded handlers (postgres), written by idemgen.
-- Never edit an applied migration: idemgen refuses to overwrite one that differs.
--
-- Undo with golang-migrate from the spec's folder:
--
--   migrate -path migrations/idem -database 'postgres://USER:PASSWORD@HOST:5432/DBNAME?x-migrations-table=idem_schema_migrations' down

DROP TABLE IF EXISTS idem_keys;
