package guard_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/guardtest"
)

// benchSKUs spreads the stock updates over rows so that concurrency measures
// the store, not one hot row's lock.
const benchSKUs = 64

// BenchmarkSQL compares one message handled by a guarded transactional effect
// (store.Do: claim insert, UPDATE stock, commit) with the same
// effect unguarded (BEGIN, UPDATE stock, COMMIT) on the same database, at
// concurrency 1 and 8. Each message has a fresh key, so every guarded message
// is Applied: the worst case for the guard. BENCHMARKS.md records the ratios.
func BenchmarkSQL(b *testing.B) {
	for _, be := range []struct {
		name    string
		dialect guard.Dialect
		open    func(b *testing.B) *sql.DB
	}{
		{"sqlite", guard.SQLite, func(b *testing.B) *sql.DB {
			return openBench(b, "sqlite", guard.SQLiteDSN(filepath.Join(b.TempDir(), "bench.db")))
		}},
		{"postgres", guard.Postgres, func(b *testing.B) *sql.DB {
			return openBench(b, "pgx", guardtest.Env(b, "IDEM_TEST_POSTGRES"))
		}},
		{"mysql", guard.MySQL, func(b *testing.B) *sql.DB {
			return openBench(b, "mysql", guardtest.Env(b, "IDEM_TEST_MYSQL"))
		}},
	} {
		b.Run(be.name, func(b *testing.B) {
			db := be.open(b)
			table := "idem_bench_" + strconv.FormatInt(time.Now().UnixNano()%1e9, 36)
			store, err := guard.NewSQLStore(db, be.dialect, guard.WithTable(table))
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			if err := store.CreateTable(ctx); err != nil {
				b.Fatal(err)
			}
			stock := table + "_stock"
			mustExec(b, db, `CREATE TABLE `+stock+` (sku VARCHAR(16) PRIMARY KEY, n BIGINT NOT NULL)`)
			for i := range benchSKUs {
				mustExec(b, db, `INSERT INTO `+stock+` (sku, n) VALUES ('sku`+strconv.Itoa(i)+`', 1000000000)`)
			}
			b.Cleanup(func() {
				db.Exec(`DROP TABLE ` + stock)
				db.Exec(`DROP TABLE ` + table)
			})
			update := `UPDATE ` + stock + ` SET n = n - 1 WHERE sku = ?`
			if be.dialect == guard.Postgres {
				update = `UPDATE ` + stock + ` SET n = n - 1 WHERE sku = $1`
			}
			deduct := func(ctx context.Context, tx *sql.Tx, i int64) error {
				_, err := tx.ExecContext(ctx, update, "sku"+strconv.FormatInt(i%benchSKUs, 10))
				return err
			}
			var seq atomic.Int64
			run := fmt.Sprintf("%d-", time.Now().UnixNano())
			message := map[string]func() error{
				"unguarded": func() error {
					i := seq.Add(1)
					tx, err := db.BeginTx(ctx, nil)
					if err != nil {
						return err
					}
					if err := deduct(ctx, tx, i); err != nil {
						tx.Rollback()
						return err
					}
					return tx.Commit()
				},
				"guarded": func() error {
					i := seq.Add(1)
					var k guard.KeyBuilder
					k.String(run + strconv.FormatInt(i, 10))
					out, err := store.Do(ctx, "deduct_inventory", k.Key(), nil, func(ctx context.Context, tx *sql.Tx) error {
						return deduct(ctx, tx, i)
					})
					return guardtest.WantApplied(out, err)
				},
			}
			guardtest.BenchGuarded(b, message["unguarded"], message["guarded"])
		})
	}
}

func openBench(b *testing.B, driver, dsn string) *sql.DB {
	db, err := sql.Open(driver, dsn)
	if err != nil {
		b.Fatal(err)
	}
	db.SetMaxOpenConns(16)
	db.SetMaxIdleConns(16)
	b.Cleanup(func() { db.Close() })
	return db
}

func mustExec(b testing.TB, db *sql.DB, q string) {
	b.Helper()
	if _, err := db.Exec(q); err != nil {
		b.Fatalf("%s: %v", q, err)
	}
}
