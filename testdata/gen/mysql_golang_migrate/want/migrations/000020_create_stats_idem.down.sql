-- The dedup table stats_idem of idem's guarded handlers (mysql), written by idemgen.
-- Never edit an applied migration: idemgen refuses to overwrite one that differs.
--
-- Undo with golang-migrate from the spec's folder:
--
--   migrate -path migrations -database 'mysql://USER:PASSWORD@tcp(HOST:3306)/DBNAME?x-migrations-table=idem_schema_migrations' down

DROP TABLE IF EXISTS stats_idem;
