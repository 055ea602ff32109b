package main

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/golang-migrate/migrate/v4"
	migratesqlite "github.com/golang-migrate/migrate/v4/database/sqlite"
	"github.com/golang-migrate/migrate/v4/source/iofs"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	redis "github.com/redis/go-redis/v9"
	_ "modernc.org/sqlite" // database/sql driver "sqlite"

	"github.com/idemkit/idem/examples/shop/shopdb"
	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/redisguard"
)

// migrations are the dedup table's migrations idemgen wrote for the spec
// (dialect sqlite), applied to the embedded database.
//
//go:embed migrations/idem/*.sql
var migrations embed.FS

// reachTimeout bounds the first contact with a server.
const reachTimeout = 5 * time.Second

// backend is the database (and Redis) of one run: the naive and the guarded
// consumers' tables side by side, and the stores of the guarded handlers.
type backend struct {
	desc    string // for the output: which database, where
	db      *sql.DB
	dialect guard.Dialect
	naive   shopdb.Tables
	guarded shopdb.Tables
	// dedupTable is the dedup table of the guarded handlers; they get
	// guard.WithTable(dedupTable), which wins over the spec's idem_keys.
	dedupTable string
	store      *guard.SQLStore

	redis        redis.UniversalClient // nil without -redis
	redisDesc    string
	redisStore   *redisguard.Store
	redisTable   string // key prefix of the dedup records; handlers get guard.WithTable(redisTable)
	redisNaive   string // key prefix of the naive points
	redisGuarded string // key prefix of the guarded points

	closers []func()
}

// openBackend opens the SQL database the flags name (the embedded SQLite
// file by default) and Redis with -redis, and creates the tables of a run
// called run. close undoes it all: tables dropped, keys deleted, files
// removed.
func openBackend(ctx context.Context, cfg *config, run string) (_ *backend, err error) {
	b := &backend{}
	defer func() {
		if err != nil {
			b.close()
		}
	}()
	switch {
	case cfg.postgres != "":
		err = b.openServer(ctx, "-postgres", "pgx", cfg.postgres, guard.Postgres, run)
	case cfg.mysql != "":
		err = b.openServer(ctx, "-mysql", "mysql", cfg.mysql, guard.MySQL, run)
	default:
		err = b.openSQLite(ctx)
	}
	if err != nil {
		return nil, err
	}
	if cfg.redis != "" {
		if err := b.openRedis(ctx, cfg.redis, run); err != nil {
			return nil, err
		}
	}
	return b, nil
}

// openSQLite creates the embedded database in a temporary folder and
// applies the committed migrations to it with golang-migrate, as their
// header says (a version table of their own).
func (b *backend) openSQLite(ctx context.Context) error {
	dir, err := os.MkdirTemp("", "idem-shop-")
	if err != nil {
		return err
	}
	b.closers = append(b.closers, func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "shop.db")
	db, err := sql.Open("sqlite", guard.SQLiteDSN(path))
	if err != nil {
		return err
	}
	b.closers = append(b.closers, func() { db.Close() })
	b.db, b.dialect, b.desc = db, guard.SQLite, "SQLite "+path+" (embedded)"

	src, err := iofs.New(migrations, "migrations/idem")
	if err != nil {
		return err
	}
	drv, err := migratesqlite.WithInstance(db, &migratesqlite.Config{MigrationsTable: "idem_schema_migrations"})
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	m, err := migrate.NewWithInstance("iofs", src, "sqlite", drv)
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	if err := m.Up(); err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	b.dedupTable = guard.DefaultTable // the spec's table, which the migration created
	if b.store, err = guard.NewSQLStore(db, guard.SQLite); err != nil {
		return err
	}
	return b.createTables(ctx, "naive_", "guarded_")
}

// openServer connects to a PostgreSQL or MySQL server, where everything of
// the run has names of its own (shop_<run>_…), dropped by close. The spec's
// migrations are SQLite's, so the dedup table is made with CreateTable, the
// same DDL idemgen writes for these dialects.
func (b *backend) openServer(ctx context.Context, flag, driver, dsn string, d guard.Dialect, run string) error {
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return fmt.Errorf("%s: %s: %w", flag, redactDSN(dsn), err)
	}
	b.closers = append(b.closers, func() { db.Close() })
	pctx, cancel := context.WithTimeout(ctx, reachTimeout)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		return fmt.Errorf("%s: cannot reach %s: %w", flag, redactDSN(dsn), err)
	}
	b.db, b.dialect, b.desc = db, d, fmt.Sprintf("%s %s", dialectName(d), redactDSN(dsn))
	b.dedupTable = "shop_" + run + "_idem_keys"
	if b.store, err = guard.NewSQLStore(db, d, guard.WithTable(b.dedupTable)); err != nil {
		return err
	}
	if err := b.store.CreateTable(ctx); err != nil {
		return fmt.Errorf("%s: %w", flag, err)
	}
	b.closers = append(b.closers, func() {
		stmts, _ := guard.DropTableSQL(d, b.dedupTable)
		for _, s := range stmts {
			db.ExecContext(context.Background(), s)
		}
	})
	return b.createTables(ctx, "shop_"+run+"_naive_", "shop_"+run+"_guarded_")
}

func (b *backend) createTables(ctx context.Context, naivePrefix, guardedPrefix string) error {
	var err error
	if b.naive, err = shopdb.NewTables(naivePrefix); err != nil {
		return err
	}
	if b.guarded, err = shopdb.NewTables(guardedPrefix); err != nil {
		return err
	}
	for _, t := range []shopdb.Tables{b.naive, b.guarded} {
		b.closers = append(b.closers, func() { shopdb.Drop(context.Background(), b.db, t) })
		if err := shopdb.Create(ctx, b.db, t); err != nil {
			return err
		}
	}
	return nil
}

// openRedis connects to Redis: one address, or several (comma-separated)
// for a cluster.
func (b *backend) openRedis(ctx context.Context, addr, run string) error {
	opts := &redis.UniversalOptions{Addrs: strings.Split(addr, ",")}
	if strings.Contains(addr, "://") {
		o, err := redis.ParseURL(addr)
		if err != nil {
			return fmt.Errorf("-redis: %w", err)
		}
		opts = &redis.UniversalOptions{Addrs: []string{o.Addr}, Username: o.Username, Password: o.Password, DB: o.DB, TLSConfig: o.TLSConfig}
	}
	c := redis.NewUniversalClient(opts)
	b.closers = append(b.closers, func() { c.Close() })
	pctx, cancel := context.WithTimeout(ctx, reachTimeout)
	defer cancel()
	if err := c.Ping(pctx).Err(); err != nil {
		return fmt.Errorf("-redis: cannot reach %s: %w", addr, err)
	}
	prefix := "shop_" + run
	b.redisTable = prefix + "_idem"
	store, err := redisguard.New(c, guard.WithTable(b.redisTable))
	if err != nil {
		return fmt.Errorf("-redis: %w", err)
	}
	b.redis, b.redisStore, b.redisDesc = c, store, "Redis "+addr
	b.redisNaive, b.redisGuarded = prefix+"_naive", prefix+"_guarded"
	b.closers = append(b.closers, func() { deleteKeys(c, "*"+prefix+"_*") })
	return nil
}

// deleteKeys deletes the keys matching pattern, on every master of a
// cluster.
func deleteKeys(c redis.UniversalClient, pattern string) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	del := func(ctx context.Context, n *redis.Client) error {
		iter := n.Scan(ctx, 0, pattern, 500).Iterator()
		for iter.Next(ctx) {
			n.Del(ctx, iter.Val())
		}
		return iter.Err()
	}
	switch c := c.(type) {
	case *redis.ClusterClient:
		c.ForEachMaster(ctx, del)
	case *redis.Client:
		del(ctx, c)
	}
}

// close releases everything, last opened first.
func (b *backend) close() {
	for i := len(b.closers) - 1; i >= 0; i-- {
		b.closers[i]()
	}
	b.closers = nil
}

// seed fills both sets of tables with the initial stock and the users.
func (b *backend) seed(ctx context.Context, t *traffic) error {
	for _, tables := range []shopdb.Tables{b.naive, b.guarded} {
		if err := shopdb.Seed(ctx, b.db, b.dialect, tables, t.stock, t.users); err != nil {
			return err
		}
	}
	return nil
}

// redisPoints reads the points of every user under prefix.
func (b *backend) redisPoints(ctx context.Context, prefix string, users []string) (map[string]int64, error) {
	points := map[string]int64{}
	for _, u := range users {
		n, err := b.redis.Get(ctx, shopdb.PointsKey(prefix, u)).Int64()
		if err != nil && !errors.Is(err, redis.Nil) {
			return nil, fmt.Errorf("redis: %w", err)
		}
		points[u] = n
	}
	return points, nil
}

func dialectName(d guard.Dialect) string {
	switch d {
	case guard.Postgres:
		return "PostgreSQL"
	case guard.MySQL:
		return "MySQL"
	}
	return "SQLite"
}

// redactDSN hides the password of a URL or MySQL data source name.
func redactDSN(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.Scheme != "" && u.Host != "" {
		return u.Redacted()
	}
	if c, err := mysql.ParseDSN(dsn); err == nil {
		if c.Passwd != "" {
			c.Passwd = "xxxxx"
		}
		return c.FormatDSN()
	}
	return dsn
}
