-- The dedup table idem_keys of idem's guarded handlers (sqlite), written by idemgen.
-- Never edit an applied migration: idemgen refuses to overwrite one that differs.
--
-- Undo with golang-migrate from the spec's folder:
--
--   migrate -path migrations/idem -database 'sqlite3://PATH/TO/DB?x-migrations-table=idem_schema_migrations' down

DROP TABLE IF EXISTS idem_keys;
