package e2e_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/guardtest"
	"github.com/idemkit/idem/guard/pgxguard"
)

// The variables naming the test servers (see guardtest.Env).
const (
	envPostgres     = "IDEM_TEST_POSTGRES"
	envMySQL        = "IDEM_TEST_MYSQL"
	envRedis        = "IDEM_TEST_REDIS"
	envRedisCluster = "IDEM_TEST_REDIS_CLUSTER"
)

// suffix returns a fresh random name part, so that parallel tests (and
// parallel runs on one server) never share a table or a key.
func suffix(t testing.TB) string {
	t.Helper()
	b := make([]byte, 5)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return hex.EncodeToString(b)
}

// execFn runs a statement and returns the rows it affected: the one thing
// the apply functions below need of a transaction, so that one business
// logic serves *sql.Tx and pgx.Tx.
type execFn func(ctx context.Context, query string, args ...any) (int64, error)

func sqlExec(tx *sql.Tx) execFn {
	return func(ctx context.Context, query string, args ...any) (int64, error) {
		res, err := tx.ExecContext(ctx, query, args...)
		if err != nil {
			return 0, err
		}
		return res.RowsAffected()
	}
}

func pgxExec(tx pgx.Tx) execFn {
	return func(ctx context.Context, query string, args ...any) (int64, error) {
		tag, err := tx.Exec(ctx, query, args...)
		if err != nil {
			return 0, err
		}
		return tag.RowsAffected(), nil
	}
}

// world is one SQL database prepared for a test: the tables of the effects
// (stock, points per user, stats per shop and day, a ledger of captured
// payments) and a dedup table, all with names of their own and dropped when
// the test ends, and the store of the handlers.
type world struct {
	name    string
	dialect guard.Dialect
	// table is the dedup table; handlers get guard.WithTable(table), which
	// wins over the spec's table.
	table                          string
	stock, points, stats, captures string
	exec                           execFn // outside any transaction
	queryInt                       func(ctx context.Context, query string, args ...any) (int64, error)
	sqlStore                       *guard.SQLStore // database/sql worlds
	pgxStore                       *pgxguard.Store // the pgx world
}

// q rewrites the ? placeholders of query for the world's dialect.
func (w *world) q(query string) string {
	if w.dialect != guard.Postgres {
		return query
	}
	var b strings.Builder
	n := 0
	for _, r := range query {
		if r == '?' {
			n++
			b.WriteString("$" + strconv.Itoa(n))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// tableOpt is the option that points a handler at the world's dedup table.
func (w *world) tableOpt() guard.Option { return guard.WithTable(w.table) }

// tamper reaches the records of the world's dedup table behind the store.
func (w *world) tamper() guardtest.Tamper {
	return guardtest.SQLTamper(guardtest.SQLExec(w.exec), w.dialect, w.table)
}

// create makes the effect tables; drop is registered on t.
func (w *world) create(t testing.TB) {
	t.Helper()
	ctx := context.Background()
	engine := ""
	if w.dialect == guard.MySQL {
		engine = " ENGINE=InnoDB"
	}
	stmts := []string{
		`CREATE TABLE ` + w.stock + ` (sku VARCHAR(64) NOT NULL PRIMARY KEY, qty BIGINT NOT NULL)` + engine,
		`CREATE TABLE ` + w.points + ` (user_id VARCHAR(64) NOT NULL PRIMARY KEY, points BIGINT NOT NULL)` + engine,
		`CREATE TABLE ` + w.stats + ` (shop_id BIGINT NOT NULL, day VARCHAR(10) NOT NULL, orders BIGINT NOT NULL, amount BIGINT NOT NULL, PRIMARY KEY (shop_id, day))` + engine,
		`CREATE TABLE ` + w.captures + ` (payment_id VARCHAR(36) NOT NULL, captured_at VARCHAR(40) NOT NULL, amount BIGINT NOT NULL)` + engine,
	}
	t.Cleanup(func() {
		for _, table := range []string{w.stock, w.points, w.stats, w.captures, w.table} {
			if _, err := w.exec(context.Background(), `DROP TABLE IF EXISTS `+table); err != nil {
				t.Errorf("drop %s: %v", table, err)
			}
		}
	})
	for _, s := range stmts {
		if _, err := w.exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// newWorld names the tables of a world.
func newWorld(t testing.TB, name string, d guard.Dialect) *world {
	sfx := suffix(t)
	return &world{
		name:     name,
		dialect:  d,
		table:    "e2e_" + sfx + "_keys",
		stock:    "e2e_" + sfx + "_stock",
		points:   "e2e_" + sfx + "_points",
		stats:    "e2e_" + sfx + "_stats",
		captures: "e2e_" + sfx + "_captures",
	}
}

// sqlWorld prepares db, a database of dialect d, with a database/sql store.
func sqlWorld(t testing.TB, name string, db *sql.DB, d guard.Dialect) *world {
	t.Helper()
	w := newWorld(t, name, d)
	w.exec = func(ctx context.Context, query string, args ...any) (int64, error) {
		res, err := db.ExecContext(ctx, query, args...)
		if err != nil {
			return 0, err
		}
		return res.RowsAffected()
	}
	w.queryInt = func(ctx context.Context, query string, args ...any) (int64, error) {
		var n int64
		err := db.QueryRowContext(ctx, query, args...).Scan(&n)
		if errors.Is(err, sql.ErrNoRows) {
			return 0, nil
		}
		return n, err
	}
	w.create(t)
	store, err := guard.NewSQLStore(db, d, guard.WithTable(w.table))
	if err != nil {
		t.Fatal(err)
	}
	if err := store.CreateTable(context.Background()); err != nil {
		t.Fatal(err)
	}
	w.sqlStore = store
	return w
}

func openSQLite(t testing.TB) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", guard.SQLiteDSN(filepath.Join(t.TempDir(), "e2e.db")))
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(8)
	t.Cleanup(func() { db.Close() })
	return db
}

// openPostgres opens IDEM_TEST_POSTGRES through pgx's database/sql driver.
func openPostgres(t testing.TB) *sql.DB {
	t.Helper()
	cfg, err := pgx.ParseConfig(guardtest.Env(t, envPostgres))
	if err != nil {
		t.Fatalf("%s: %v", envPostgres, err)
	}
	db := stdlib.OpenDB(*cfg)
	db.SetMaxOpenConns(16)
	t.Cleanup(func() { db.Close() })
	return db
}

func openMySQL(t testing.TB) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", guardtest.Env(t, envMySQL))
	if err != nil {
		t.Fatalf("%s: %v", envMySQL, err)
	}
	db.SetMaxOpenConns(16)
	t.Cleanup(func() { db.Close() })
	return db
}

func openPool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	pool, err := pgxpool.New(context.Background(), guardtest.Env(t, envPostgres))
	if err != nil {
		t.Fatalf("%s: %v", envPostgres, err)
	}
	t.Cleanup(pool.Close)
	return pool
}

// sqlWorlds are the database/sql backends: SQLite always, PostgreSQL and
// MySQL/MariaDB when their variables are set.
var sqlWorlds = []struct {
	name string
	open func(t testing.TB) *world
}{
	{"sqlite", func(t testing.TB) *world { return sqlWorld(t, "sqlite", openSQLite(t), guard.SQLite) }},
	{"postgres", func(t testing.TB) *world { return sqlWorld(t, "postgres", openPostgres(t), guard.Postgres) }},
	{"mysql", func(t testing.TB) *world { return sqlWorld(t, "mysql", openMySQL(t), guard.MySQL) }},
}

// pgxWorld prepares PostgreSQL through a pgx pool, with a pgxguard store.
func pgxWorld(t testing.TB) *world {
	t.Helper()
	return pgxWorldOn(t, openPool(t))
}

// pgxWorldOn prepares the database of pool.
func pgxWorldOn(t testing.TB, pool *pgxpool.Pool) *world {
	t.Helper()
	w := newWorld(t, "pgx", guard.Postgres)
	w.exec = func(ctx context.Context, query string, args ...any) (int64, error) {
		tag, err := pool.Exec(ctx, query, args...)
		return tag.RowsAffected(), err
	}
	w.queryInt = func(ctx context.Context, query string, args ...any) (int64, error) {
		var n int64
		err := pool.QueryRow(ctx, query, args...).Scan(&n)
		if errors.Is(err, pgx.ErrNoRows) {
			return 0, nil
		}
		return n, err
	}
	w.create(t)
	store, err := pgxguard.New(pool, guard.WithTable(w.table))
	if err != nil {
		t.Fatal(err)
	}
	if err := store.CreateTable(context.Background()); err != nil {
		t.Fatal(err)
	}
	w.pgxStore = store
	return w
}

// The effects, written once over execFn.

// deduct takes qty of sku from the stock with a conditional update: no row
// changes when the stock is short, which is a business rejection.
func (w *world) deduct(ctx context.Context, exec execFn, sku string, qty int64) error {
	n, err := exec(ctx, w.q(`UPDATE `+w.stock+` SET qty = qty - ? WHERE sku = ? AND qty >= ?`), qty, sku, qty)
	if err != nil {
		return err
	}
	if n == 0 {
		return guard.Reject(fmt.Errorf("sku %s: out of stock for %d", sku, qty))
	}
	return nil
}

// addPoints credits n points to user: points = points + n.
func (w *world) addPoints(ctx context.Context, exec execFn, user string, n int64) error {
	query := `INSERT INTO ` + w.points + ` (user_id, points) VALUES (?, ?) ON CONFLICT (user_id) DO UPDATE SET points = ` + w.points + `.points + excluded.points`
	if w.dialect == guard.MySQL {
		query = `INSERT INTO ` + w.points + ` (user_id, points) VALUES (?, ?) ON DUPLICATE KEY UPDATE points = points + VALUES(points)`
	}
	_, err := exec(ctx, w.q(query), user, n)
	return err
}

// countOrder adds an order of amount to the stats of shop on day.
func (w *world) countOrder(ctx context.Context, exec execFn, shop int64, day string, amount int64) error {
	query := `INSERT INTO ` + w.stats + ` (shop_id, day, orders, amount) VALUES (?, ?, 1, ?) ON CONFLICT (shop_id, day) DO UPDATE SET orders = ` + w.stats + `.orders + 1, amount = ` + w.stats + `.amount + excluded.amount`
	if w.dialect == guard.MySQL {
		query = `INSERT INTO ` + w.stats + ` (shop_id, day, orders, amount) VALUES (?, ?, 1, ?) ON DUPLICATE KEY UPDATE orders = orders + 1, amount = amount + VALUES(amount)`
	}
	_, err := exec(ctx, w.q(query), shop, day, amount)
	return err
}

// capture appends a captured payment to the ledger: a plain insert, which a
// duplicate would repeat.
func (w *world) capture(ctx context.Context, exec execFn, id string, at time.Time, amount int64) error {
	_, err := exec(ctx, w.q(`INSERT INTO `+w.captures+` (payment_id, captured_at, amount) VALUES (?, ?, ?)`),
		strings.ToLower(id), at.UTC().Format(time.RFC3339Nano), amount)
	return err
}

// Reads of the effects.

func (w *world) mustInt(t testing.TB, query string, args ...any) int64 {
	t.Helper()
	n, err := w.queryInt(context.Background(), w.q(query), args...)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	return n
}

func (w *world) seedStock(t testing.TB, sku string, qty int64) {
	t.Helper()
	if _, err := w.exec(context.Background(), w.q(`INSERT INTO `+w.stock+` (sku, qty) VALUES (?, ?)`), sku, qty); err != nil {
		t.Fatal(err)
	}
}

func (w *world) stockOf(t testing.TB, sku string) int64 {
	t.Helper()
	return w.mustInt(t, `SELECT qty FROM `+w.stock+` WHERE sku = ?`, sku)
}

func (w *world) pointsOf(t testing.TB, user string) int64 {
	t.Helper()
	return w.mustInt(t, `SELECT points FROM `+w.points+` WHERE user_id = ?`, user)
}

// statsOf returns the orders and amount counted for shop on day.
func (w *world) statsOf(t testing.TB, shop int64, day string) (orders, amount int64) {
	t.Helper()
	orders = w.mustInt(t, `SELECT orders FROM `+w.stats+` WHERE shop_id = ? AND day = ?`, shop, day)
	amount = w.mustInt(t, `SELECT amount FROM `+w.stats+` WHERE shop_id = ? AND day = ?`, shop, day)
	return orders, amount
}

func (w *world) capturesOf(t testing.TB, id string) int64 {
	t.Helper()
	return w.mustInt(t, `SELECT COUNT(*) FROM `+w.captures+` WHERE payment_id = ?`, strings.ToLower(id))
}
