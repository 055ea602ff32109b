package bench

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/dbos-inc/dbos-transact-golang/dbos"
	_ "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/jackc/pgx/v5/stdlib"
	"github.com/redis/go-redis/v9"
	_ "modernc.org/sqlite"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/pgxguard"
	"github.com/idemkit/idem/guard/redisguard"
)

// config is one configuration of the servers: durable (bench/servers.sh:
// every commit is flushed to the disk) or fast (.ci/run's servers, fsync
// off). Each field names the environment variable holding a server's
// address; SQLite runs in-process with the given synchronous setting.
type config struct {
	name                   string
	postgres, mysql, redis string
	sqliteSync             string
}

var configs = []config{
	{"durable", "IDEM_BENCH_POSTGRES_DURABLE", "IDEM_BENCH_MYSQL_DURABLE", "IDEM_BENCH_REDIS_DURABLE", "FULL"},
	{"fast", "IDEM_TEST_POSTGRES", "IDEM_TEST_MYSQL", "IDEM_TEST_REDIS", "NORMAL"},
}

// concurrencies are the numbers of goroutines handling messages.
var concurrencies = []int{1, 8}

// skusPerWorker stock rows belong to each goroutine, so that no two
// goroutines update the same row: the benchmark measures the store, not a
// hot row's lock, and batches of 100 updates cannot deadlock each other.
const skusPerWorker = 64

const consumer = "deduct_inventory"

// seq numbers the messages of the whole process, so a key never repeats.
var seq atomic.Int64

// runID makes the keys of this process differ from those of earlier runs
// against the same servers.
var runID = strconv.FormatInt(time.Now().UnixNano(), 36)

func msgKey(i int64) string { return runID + "-" + strconv.FormatInt(i, 10) }

func sku(w int, i int64) string {
	return "w" + strconv.Itoa(w) + "-" + strconv.FormatInt(i%skusPerWorker, 10)
}

// encodedKey is the message's key in guard's encoding.
func encodedKey(i int64) string {
	var k guard.KeyBuilder
	k.String(msgKey(i))
	return k.Key()
}

// handler handles the n messages first, first+1, … of goroutine w: one
// message per call for the per-message contenders, up to the batch size
// for the others.
type handler func(ctx context.Context, w int, first int64, n int) error

// contender is one way of handling the messages, set up by open once for
// all concurrencies (its cleanups run when its sub-benchmark ends).
type contender struct {
	name  string
	batch int
	open  func(b *testing.B) handler
}

// BenchmarkThroughput runs every contender on every store, configuration
// and concurrency: sub-benchmarks config/store/contender/c<n>, each
// reporting msgs/s. Every message has a fresh key, so every guarded message
// is applied. A store whose server's variable is unset is skipped.
func BenchmarkThroughput(b *testing.B) {
	for _, cfg := range configs {
		b.Run(cfg.name, func(b *testing.B) {
			b.Run("postgres-sql", func(b *testing.B) {
				runContenders(b, sqlContenders(b, openSQL(b, "pgx", env(b, cfg.postgres)), guard.Postgres))
			})
			b.Run("postgres-pgx", func(b *testing.B) {
				runContenders(b, pgxContenders(b, env(b, cfg.postgres)))
			})
			b.Run("mariadb", func(b *testing.B) {
				runContenders(b, sqlContenders(b, openSQL(b, "mysql", env(b, cfg.mysql)), guard.MySQL))
			})
			b.Run("sqlite", func(b *testing.B) {
				dsn := guard.SQLiteDSN(filepath.Join(b.TempDir(), "bench.db"))
				dsn = strings.Replace(dsn, "synchronous(NORMAL)", "synchronous("+cfg.sqliteSync+")", 1)
				runContenders(b, sqlContenders(b, openSQL(b, "sqlite", dsn), guard.SQLite))
			})
			b.Run("redis", func(b *testing.B) {
				runContenders(b, redisContenders(b, env(b, cfg.redis)))
			})
		})
	}
}

func runContenders(b *testing.B, cs []contender) {
	for _, c := range cs {
		b.Run(c.name, func(b *testing.B) {
			h := c.open(b)
			for _, conc := range concurrencies {
				b.Run("c"+strconv.Itoa(conc), func(b *testing.B) { drive(b, conc, c.batch, h) })
			}
		})
	}
}

// drive hands b.N messages to h from conc goroutines, batch messages at a
// time, and reports messages per second as "msgs/s".
func drive(b *testing.B, conc, batch int, h handler) {
	ctx := context.Background()
	n := int64(b.N)
	base := seq.Add(n) - n
	var (
		next   atomic.Int64
		failed atomic.Value
		wg     sync.WaitGroup
	)
	b.ResetTimer()
	for w := range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				end := next.Add(int64(batch))
				start := end - int64(batch)
				if start >= n {
					return
				}
				if err := h(ctx, w, base+start, int(min(end, n)-start)); err != nil {
					failed.CompareAndSwap(nil, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.StopTimer()
	if err, _ := failed.Load().(error); err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "msgs/s")
}

func env(b *testing.B, name string) string {
	v := os.Getenv(name)
	if v == "" {
		b.Skipf("%s is not set (the CI servers' variables, or bench/servers.sh's output)", name)
	}
	return v
}

func tableSuffix() string {
	return strconv.FormatInt(time.Now().UnixNano()%1e12, 36)
}

// wantApplied is the check of every contender: keys are fresh.
func wantApplied(out guard.Outcome, err error) error {
	if err == nil && out != guard.Applied {
		err = fmt.Errorf("outcome %v, want applied", out)
	}
	return err
}

func wantAllApplied(res []guard.Result) error {
	for i, r := range res {
		if err := wantApplied(r.Outcome, r.Err); err != nil {
			return fmt.Errorf("message %d of %d: %w", i, len(res), err)
		}
	}
	return nil
}

var errDuplicate = fmt.Errorf("a fresh key was refused as a duplicate")

// SQL through database/sql.

func openSQL(b *testing.B, driver, dsn string) *sql.DB {
	db, err := sql.Open(driver, dsn)
	if err != nil {
		b.Fatal(err)
	}
	db.SetMaxOpenConns(16)
	db.SetMaxIdleConns(16)
	b.Cleanup(func() { db.Close() })
	if err := db.Ping(); err != nil {
		b.Fatal(err)
	}
	return db
}

func mustExec(b *testing.B, db *sql.DB, q string) {
	b.Helper()
	if _, err := db.Exec(q); err != nil {
		b.Fatalf("%s: %v", q, err)
	}
}

func prepare(b *testing.B, db *sql.DB, q string) *sql.Stmt {
	b.Helper()
	st, err := db.Prepare(q)
	if err != nil {
		b.Fatalf("%s: %v", q, err)
	}
	b.Cleanup(func() { st.Close() })
	return st
}

// stockDDL creates and fills a stock table with the rows of every
// goroutine.
func stockRows() []string {
	var rows []string
	for w := range concurrencies[len(concurrencies)-1] {
		for i := range skusPerWorker {
			rows = append(rows, "('"+sku(w, int64(i))+"', 1000000000)")
		}
	}
	return rows
}

func sqlContenders(b *testing.B, db *sql.DB, d guard.Dialect) []contender {
	ctx := context.Background()
	suffix := tableSuffix()
	stock := "bench_stock_" + suffix
	mustExec(b, db, `CREATE TABLE `+stock+` (sku VARCHAR(32) PRIMARY KEY, n BIGINT NOT NULL)`)
	mustExec(b, db, `INSERT INTO `+stock+` (sku, n) VALUES `+strings.Join(stockRows(), ", "))
	b.Cleanup(func() { db.Exec(`DROP TABLE ` + stock) })
	ph := "?"
	if d == guard.Postgres {
		ph = "$1"
	}
	update := prepare(b, db, `UPDATE `+stock+` SET n = n - 1 WHERE sku = `+ph)
	var txOpts *sql.TxOptions
	if d != guard.SQLite {
		txOpts = &sql.TxOptions{Isolation: sql.LevelReadCommitted} // as guard's SQLStore
	}
	deduct := func(ctx context.Context, tx *sql.Tx, w int, i int64) error {
		_, err := tx.StmtContext(ctx, update).ExecContext(ctx, sku(w, i))
		return err
	}
	inTx := func(ctx context.Context, f func(tx *sql.Tx) error) error {
		tx, err := db.BeginTx(ctx, txOpts)
		if err != nil {
			return err
		}
		if err := f(tx); err != nil {
			tx.Rollback()
			return err
		}
		return tx.Commit()
	}
	idemStore := func(b *testing.B, name string) *guard.SQLStore {
		table := "bench_idem_" + name + "_" + suffix
		store, err := guard.NewSQLStore(db, d, guard.WithTable(table))
		if err != nil {
			b.Fatal(err)
		}
		if err := store.CreateTable(ctx); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Exec(`DROP TABLE ` + table) })
		return store
	}
	batch := func(size int) contender {
		return contender{"idem-batch" + strconv.Itoa(size), size, func(b *testing.B) handler {
			store := idemStore(b, "b"+strconv.Itoa(size))
			return func(ctx context.Context, w int, first int64, n int) error {
				msgs := make([]guard.TxMessage[*sql.Tx], n)
				for j := range msgs {
					i := first + int64(j)
					msgs[j] = guard.TxMessage[*sql.Tx]{Consumer: consumer, Key: encodedKey(i),
						Apply: func(ctx context.Context, tx *sql.Tx) error { return deduct(ctx, tx, w, i) }}
				}
				return wantAllApplied(store.DoBatch(ctx, msgs))
			}
		}}
	}
	return []contender{
		{"naive", 1, func(b *testing.B) handler {
			return func(ctx context.Context, w int, i int64, _ int) error {
				return inTx(ctx, func(tx *sql.Tx) error { return deduct(ctx, tx, w, i) })
			}
		}},
		{"inbox", 1, func(b *testing.B) handler {
			inbox := "bench_inbox_" + suffix
			var insert string
			switch d {
			case guard.Postgres:
				mustExec(b, db, `CREATE TABLE `+inbox+` (key text PRIMARY KEY, processed_at timestamptz NOT NULL DEFAULT now())`)
				insert = `INSERT INTO ` + inbox + ` (key) VALUES ($1) ON CONFLICT DO NOTHING`
			case guard.MySQL:
				mustExec(b, db, `CREATE TABLE `+inbox+` (k VARBINARY(255) PRIMARY KEY, processed_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)) ENGINE=InnoDB`)
				insert = `INSERT IGNORE INTO ` + inbox + ` (k) VALUES (?)`
			case guard.SQLite:
				mustExec(b, db, `CREATE TABLE `+inbox+` (key TEXT PRIMARY KEY, processed_at INTEGER NOT NULL DEFAULT (unixepoch())) WITHOUT ROWID`)
				insert = `INSERT INTO ` + inbox + ` (key) VALUES (?) ON CONFLICT DO NOTHING`
			}
			// The index a purge of old keys needs, as the dedup table has.
			mustExec(b, db, `CREATE INDEX `+inbox+`_at ON `+inbox+` (processed_at)`)
			b.Cleanup(func() { db.Exec(`DROP TABLE ` + inbox) })
			ins := prepare(b, db, insert)
			return func(ctx context.Context, w int, i int64, _ int) error {
				return inTx(ctx, func(tx *sql.Tx) error {
					res, err := tx.StmtContext(ctx, ins).ExecContext(ctx, msgKey(i))
					if err != nil {
						return err
					}
					if n, err := res.RowsAffected(); err != nil || n == 0 {
						return fmt.Errorf("inbox insert: %d rows, %v: %w", n, err, errDuplicate)
					}
					return deduct(ctx, tx, w, i)
				})
			}
		}},
		{"idem", 1, func(b *testing.B) handler {
			store := idemStore(b, "m")
			return func(ctx context.Context, w int, i int64, _ int) error {
				return wantApplied(store.Do(ctx, consumer, encodedKey(i), nil, func(ctx context.Context, tx *sql.Tx) error {
					return deduct(ctx, tx, w, i)
				}))
			}
		}},
		batch(10),
		batch(100),
	}
}

// PostgreSQL through pgx.

func openPool(b *testing.B, dsn string) *pgxpool.Pool {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		b.Fatal(err)
	}
	cfg.MaxConns = 16
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(pool.Close)
	return pool
}

func pgxContenders(b *testing.B, dsn string) []contender {
	ctx := context.Background()
	pool := openPool(b, dsn)
	exec := func(b *testing.B, q string) {
		b.Helper()
		if _, err := pool.Exec(ctx, q); err != nil {
			b.Fatalf("%s: %v", q, err)
		}
	}
	suffix := tableSuffix()
	stock := "bench_stock_" + suffix
	exec(b, `CREATE TABLE `+stock+` (sku VARCHAR(32) PRIMARY KEY, n BIGINT NOT NULL)`)
	exec(b, `INSERT INTO `+stock+` (sku, n) VALUES `+strings.Join(stockRows(), ", "))
	b.Cleanup(func() { pool.Exec(ctx, `DROP TABLE `+stock) })
	update := `UPDATE ` + stock + ` SET n = n - 1 WHERE sku = $1`
	deduct := func(ctx context.Context, tx pgx.Tx, w int, i int64) error {
		_, err := tx.Exec(ctx, update, sku(w, i))
		return err
	}
	inTx := func(ctx context.Context, f func(tx pgx.Tx) error) error {
		return pgx.BeginTxFunc(ctx, pool, pgx.TxOptions{IsoLevel: pgx.ReadCommitted}, f)
	}
	idemStore := func(b *testing.B, name string) *pgxguard.Store {
		table := "bench_idem_" + name + "_" + suffix
		store, err := pgxguard.New(pool, guard.WithTable(table))
		if err != nil {
			b.Fatal(err)
		}
		if err := store.CreateTable(ctx); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { pool.Exec(ctx, `DROP TABLE `+table) })
		return store
	}
	batch := func(size int) contender {
		return contender{"idem-batch" + strconv.Itoa(size), size, func(b *testing.B) handler {
			store := idemStore(b, "b"+strconv.Itoa(size))
			return func(ctx context.Context, w int, first int64, n int) error {
				msgs := make([]guard.TxMessage[pgx.Tx], n)
				for j := range msgs {
					i := first + int64(j)
					msgs[j] = guard.TxMessage[pgx.Tx]{Consumer: consumer, Key: encodedKey(i),
						Apply: func(ctx context.Context, tx pgx.Tx) error { return deduct(ctx, tx, w, i) }}
				}
				return wantAllApplied(store.DoBatch(ctx, msgs))
			}
		}}
	}
	return []contender{
		{"naive", 1, func(b *testing.B) handler {
			return func(ctx context.Context, w int, i int64, _ int) error {
				return inTx(ctx, func(tx pgx.Tx) error { return deduct(ctx, tx, w, i) })
			}
		}},
		{"inbox", 1, func(b *testing.B) handler {
			inbox := "bench_inbox_" + suffix
			exec(b, `CREATE TABLE `+inbox+` (key text PRIMARY KEY, processed_at timestamptz NOT NULL DEFAULT now())`)
			exec(b, `CREATE INDEX `+inbox+`_at ON `+inbox+` (processed_at)`)
			b.Cleanup(func() { pool.Exec(ctx, `DROP TABLE `+inbox) })
			insert := `INSERT INTO ` + inbox + ` (key) VALUES ($1) ON CONFLICT DO NOTHING`
			return func(ctx context.Context, w int, i int64, _ int) error {
				return inTx(ctx, func(tx pgx.Tx) error {
					tag, err := tx.Exec(ctx, insert, msgKey(i))
					if err != nil {
						return err
					}
					if tag.RowsAffected() == 0 {
						return errDuplicate
					}
					return deduct(ctx, tx, w, i)
				})
			}
		}},
		{"dbos", 1, func(b *testing.B) handler { return openDBOS(b, dsn, update) }},
		{"idem", 1, func(b *testing.B) handler {
			store := idemStore(b, "m")
			return func(ctx context.Context, w int, i int64, _ int) error {
				return wantApplied(store.Do(ctx, consumer, encodedKey(i), nil, func(ctx context.Context, tx pgx.Tx) error {
					return deduct(ctx, tx, w, i)
				}))
			}
		}},
		batch(10),
		batch(100),
	}
}

// openDBOS launches DBOS Transact on a system database of its own schema,
// dbos_bench, in the benchmark's PostgreSQL database, dropped first so
// that every run starts empty as the other contenders' tables do. The
// workflow's ID is the message's key; its one step is a transaction on
// the same pool (DBOS then writes the step's checkpoint in the effect's
// transaction). update is the stock UPDATE, taking the SKU as $1.
func openDBOS(b *testing.B, dsn, update string) handler {
	ctx := context.Background()
	pool := openPool(b, dsn)
	if _, err := pool.Exec(ctx, `DROP SCHEMA IF EXISTS dbos_bench CASCADE`); err != nil {
		b.Fatal(err)
	}
	dctx, err := dbos.NewContext(ctx, dbos.Config{
		AppName:        "idem-bench",
		SystemDBPool:   pool,
		DatabaseSchema: "dbos_bench",
		Logger:         slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		b.Fatal(err)
	}
	ds, err := dbos.NewDataSource(dctx, pool)
	if err != nil {
		b.Fatal(err)
	}
	deduct := func(c dbos.Context, sku string) (int64, error) {
		return dbos.RunAsTransaction(c, ds, func(ctx context.Context, tx dbos.Tx) (int64, error) {
			res, err := tx.Exec(ctx, update, sku)
			if err != nil {
				return 0, err
			}
			return res.RowsAffected()
		})
	}
	dbos.RegisterWorkflow(dctx, deduct, dbos.WithWorkflowName("deduct_inventory"))
	if err := dbos.Launch(dctx); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { dbos.Shutdown(dctx, 10*time.Second) })
	return func(ctx context.Context, w int, i int64, _ int) error {
		h, err := dbos.RunWorkflow(dctx, deduct, sku(w, i), dbos.WithWorkflowID(msgKey(i)))
		if err != nil {
			return err
		}
		n, err := h.GetResult()
		if err == nil && n != 1 {
			err = fmt.Errorf("dbos: the step updated %d rows, want 1", n)
		}
		return err
	}
}

// Redis.

func redisContenders(b *testing.B, addr string) []contender {
	ctx := context.Background()
	client := redis.NewClient(&redis.Options{Addr: addr, PoolSize: 32})
	b.Cleanup(func() { client.Close() })
	if err := client.Ping(ctx).Err(); err != nil {
		b.Fatal(err)
	}
	prefix := "idem_bench_" + tableSuffix()
	b.Cleanup(func() {
		iter := client.Scan(ctx, 0, prefix+"*", 1000).Iterator()
		var keys []string
		for iter.Next(ctx) {
			if keys = append(keys, iter.Val()); len(keys) == 1000 {
				client.Unlink(ctx, keys...)
				keys = keys[:0]
			}
		}
		if len(keys) > 0 {
			client.Unlink(ctx, keys...)
		}
	})
	stock := func(w int, i int64) string { return prefix + ":stock:" + sku(w, i) }
	const retention = 10 * time.Minute
	idemStore := func(b *testing.B, name string) *redisguard.Store {
		store, err := redisguard.New(client, guard.WithTable(prefix+"_"+name), guard.WithRetention(retention))
		if err != nil {
			b.Fatal(err)
		}
		return store
	}
	batch := func(size int) contender {
		return contender{"idem-batch" + strconv.Itoa(size), size, func(b *testing.B) handler {
			store := idemStore(b, "b"+strconv.Itoa(size))
			return func(ctx context.Context, w int, first int64, n int) error {
				msgs := make([]redisguard.Message, n)
				for j := range msgs {
					i := first + int64(j)
					msgs[j] = redisguard.Message{Consumer: consumer, Key: encodedKey(i),
						Apply: func(ctx context.Context, pipe redis.Pipeliner) error {
							pipe.IncrBy(ctx, stock(w, i), -1)
							return nil
						}}
				}
				return wantAllApplied(store.DoBatch(ctx, msgs))
			}
		}}
	}
	// The inbox a careful team writes on Redis: one script that sets the
	// key if absent, with a TTL, and applies the effect only then.
	inbox := redis.NewScript(`if redis.call('SET', KEYS[1], '1', 'NX', 'PX', ARGV[1]) then return redis.call('INCRBY', KEYS[2], -1) end return false`)
	return []contender{
		{"naive", 1, func(b *testing.B) handler {
			return func(ctx context.Context, w int, i int64, _ int) error {
				return client.IncrBy(ctx, stock(w, i), -1).Err()
			}
		}},
		{"inbox", 1, func(b *testing.B) handler {
			return func(ctx context.Context, w int, i int64, _ int) error {
				err := inbox.Run(ctx, client, []string{prefix + ":inbox:" + msgKey(i), stock(w, i)}, retention.Milliseconds()).Err()
				if err == redis.Nil {
					return errDuplicate
				}
				return err
			}
		}},
		{"idem", 1, func(b *testing.B) handler {
			store := idemStore(b, "m")
			return func(ctx context.Context, w int, i int64, _ int) error {
				return wantApplied(store.Do(ctx, consumer, encodedKey(i), nil, func(ctx context.Context, pipe redis.Pipeliner) error {
					pipe.IncrBy(ctx, stock(w, i), -1)
					return nil
				}))
			}
		}},
		batch(10),
		batch(100),
	}
}
