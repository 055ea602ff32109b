package bench

import (
	"context"
	"database/sql"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/idemkit/idem/guard"
)

// BenchmarkLargeTable measures, on PostgreSQL (IDEM_BENCH_LARGE_POSTGRES,
// else IDEM_TEST_POSTGRES), a dedup table holding IDEM_BENCH_LARGE_ROWS
// records (default 10⁶; 10⁷ is the case of interest): a claim of a fresh
// key (store.Do with an empty effect, sub-benchmark claim) and then the
// purge of the half of the records that has expired (once, reported as
// purge-s and purged-rows), against the same table partitioned by day
// with the expired half in partitions of their own (purge = dropping
// them). The fill (INSERT … SELECT generate_series, then the indexes) is
// reported as fill-s.
func BenchmarkLargeTable(b *testing.B) {
	dsn := os.Getenv("IDEM_BENCH_LARGE_POSTGRES")
	if dsn == "" {
		dsn = env(b, "IDEM_TEST_POSTGRES")
	}
	rows := 1_000_000
	if v := os.Getenv("IDEM_BENCH_LARGE_ROWS"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			b.Fatal(err)
		}
		rows = n
	}
	db := openSQL(b, "pgx", dsn)
	for _, layout := range []string{"plain", "daily"} {
		b.Run(layout+"/rows="+strconv.Itoa(rows), func(b *testing.B) {
			ctx := context.Background()
			table := "bench_large_" + tableSuffix()
			var stmts []string
			var err error
			opts := []guard.Option{guard.WithTable(table), guard.WithPurgeBatch(10000)}
			if layout == "daily" {
				stmts, err = guard.PartitionedTableSQL(guard.Postgres, table, 168*time.Hour)
				opts = append(opts, guard.WithDailyPartitions())
			} else {
				stmts, err = guard.CreateTableSQL(guard.Postgres, table)
			}
			if err != nil {
				b.Fatal(err)
			}
			for _, s := range stmts {
				mustExec(b, db, s)
			}
			b.Cleanup(func() { db.Exec(`DROP TABLE ` + table) })
			if layout == "daily" {
				// Partitions for the expired half: the 4 days before today.
				for d := 1; d <= 4; d++ {
					mustExec(b, db, `DO $$ DECLARE d date := (clock_timestamp() AT TIME ZONE 'UTC')::date - `+strconv.Itoa(d)+`;
BEGIN EXECUTE format('CREATE TABLE %s PARTITION OF `+table+` FOR VALUES FROM (%L) TO (%L)', '`+table+`_p' || to_char(d, 'YYYYMMDD'), d || ' 00:00:00+00', (d + 1) || ' 00:00:00+00'); END $$`)
				}
			}
			// Half the records expired 1–4 days ago, half expire in 1–6 days.
			// The indexes are built after the rows (a sort instead of 10⁷
			// random insertions), as a bulk load would.
			start := time.Now()
			pk := "consumer, key_hash"
			if layout == "daily" {
				pk += ", expires_at"
				mustExec(b, db, `DROP INDEX `+table+`_pending`)
			} else {
				mustExec(b, db, `DROP INDEX `+table+`_expires_at`)
			}
			mustExec(b, db, `ALTER TABLE `+table+` DROP CONSTRAINT `+table+`_pkey`)
			mustExec(b, db, `INSERT INTO `+table+` (consumer, key_hash, key_text, state, created_at, expires_at)
SELECT 'deduct_inventory', sha256(int8send(i)), i::text, 'done', now() - interval '5 days',
       CASE WHEN i % 2 = 0 THEN now() - interval '1 day' - (i % 72) * interval '1 hour'
            ELSE now() + interval '1 day' + (i % 120) * interval '1 hour' END
FROM generate_series(1, `+strconv.Itoa(rows)+`) AS i`)
			mustExec(b, db, `ALTER TABLE `+table+` ADD PRIMARY KEY (`+pk+`)`)
			if layout == "daily" {
				mustExec(b, db, `CREATE INDEX `+table+`_pending ON `+table+` (lease_until) WHERE state = 'pending'`)
			} else {
				mustExec(b, db, `CREATE INDEX `+table+`_expires_at ON `+table+` (expires_at)`)
			}
			mustExec(b, db, `ANALYZE `+table)
			fill := time.Since(start)
			store, err := guard.NewSQLStore(db, guard.Postgres, opts...)
			if err != nil {
				b.Fatal(err)
			}
			b.Run("claim", func(b *testing.B) {
				drive(b, 1, 1, func(ctx context.Context, w int, i int64, _ int) error {
					return wantApplied(store.Do(ctx, consumer, encodedKey(i), nil, func(context.Context, *sql.Tx) error { return nil }))
				})
			})
			// The testing package calls a benchmark's function more than
			// once (b.N = 1 first); only the first purge has work, so it runs
			// once and every call reports it.
			var (
				purged   int64
				purgeDur time.Duration
				purgeErr error
				once     sync.Once
			)
			b.Run("purge", func(b *testing.B) {
				once.Do(func() {
					start := time.Now()
					purged, purgeErr = store.Purge(ctx)
					purgeDur = time.Since(start)
				})
				if purgeErr != nil {
					b.Fatal(purgeErr)
				}
				b.ReportMetric(fill.Seconds(), "fill-s")
				b.ReportMetric(purgeDur.Seconds(), "purge-s")
				b.ReportMetric(float64(purged), "purged-rows")
			})
		})
	}
}
