// Package bench holds idem's throughput benchmarks: the scenario "deduct
// inventory" (a message with a key; the effect is an UPDATE of a stock row,
// or an INCRBY on Redis) handled by
//
//   - naive: the effect in a transaction of its own, no deduplication;
//   - inbox: what a careful team writes by hand, an INSERT of the key into
//     an inbox table that ignores duplicates (ON CONFLICT DO NOTHING, INSERT
//     IGNORE; a SET NX script on Redis) and the effect, in one transaction;
//   - dbos: DBOS Transact (PostgreSQL only), a workflow whose ID is the
//     message's key, with one transactional step doing the effect;
//   - idem: guard's Do, one message per transaction;
//   - idem-batch10, idem-batch100: guard's DoBatch, 10 or 100 messages per
//     transaction;
//
// on PostgreSQL (database/sql and pgx), MariaDB, SQLite and Redis, at
// concurrency 1 and 8, against durable servers (bench/servers.sh) and the
// fast CI servers. bench/run.sh runs them and cmd/benchreport turns the
// output into medians and ratios to naive. The package is a module of its
// own so that the library's go.mod never requires DBOS.
//
// BenchmarkLargeTable measures a claim and a purge with 10⁶ or 10⁷ records
// in a PostgreSQL dedup table.
package bench
