package guard_test

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/guardtest"
)

// sqlHarnesses are the database/sql stores under test: SQLite (embedded,
// always), PostgreSQL (IDEM_TEST_POSTGRES) and MySQL/MariaDB (IDEM_TEST_MYSQL).
func sqlHarnesses() []guardtest.Harness {
	return []guardtest.Harness{sqliteHarness(), postgresHarness(), mysqlHarness()}
}

func TestConformance(t *testing.T) {
	for _, h := range sqlHarnesses() {
		t.Run(h.Name, func(t *testing.T) { guardtest.Run(t, h) })
	}
}

func TestBatchConformance(t *testing.T) {
	for _, h := range sqlHarnesses() {
		t.Run(h.Name, func(t *testing.T) { guardtest.RunBatch(t, h) })
	}
}

func TestBatchFaults(t *testing.T) {
	for _, h := range sqlHarnesses() {
		t.Run(h.Name, func(t *testing.T) { guardtest.RunBatchFaults(t, h) })
	}
}

func TestFaults(t *testing.T) {
	for _, h := range sqlHarnesses() {
		t.Run(h.Name, func(t *testing.T) { guardtest.RunFaults(t, h) })
	}
}

func sqliteHarness() guardtest.Harness {
	return guardtest.Harness{
		Name: "sqlite",
		New: func(t testing.TB, opts ...guard.Option) guardtest.Backend {
			t.Helper()
			db, err := sql.Open("sqlite", guard.SQLiteDSN(filepath.Join(t.TempDir(), "idem.db")))
			if err != nil {
				t.Fatal(err)
			}
			db.SetMaxOpenConns(8)
			t.Cleanup(func() { db.Close() })
			return newSQLBackend(t, db, db, guard.SQLite, opts)
		},
	}
}

func postgresHarness() guardtest.Harness {
	open := func(t testing.TB, cuttable bool) (db, admin *sql.DB, cut func()) {
		t.Helper()
		dsn := guardtest.Env(t, "IDEM_TEST_POSTGRES")
		cfg, err := pgx.ParseConfig(dsn)
		if err != nil {
			t.Fatalf("IDEM_TEST_POSTGRES: %v", err)
		}
		admin = stdlib.OpenDB(*cfg)
		t.Cleanup(func() { admin.Close() })
		db = admin
		if cuttable {
			addr, c := guardtest.NewProxy(t, net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))))
			host, port := splitHostPort(t, addr)
			pcfg := cfg.Copy()
			pcfg.Host, pcfg.Port, pcfg.Fallbacks = host, port, nil
			db, cut = stdlib.OpenDB(*pcfg), c
			t.Cleanup(func() { db.Close() })
		}
		db.SetMaxOpenConns(32)
		return db, admin, cut
	}
	return guardtest.Harness{
		Name: "postgres",
		New: func(t testing.TB, opts ...guard.Option) guardtest.Backend {
			db, admin, _ := open(t, false)
			return newSQLBackend(t, db, admin, guard.Postgres, opts)
		},
		NewCuttable: func(t testing.TB, opts ...guard.Option) (guardtest.Backend, func()) {
			db, admin, cut := open(t, true)
			return newSQLBackend(t, db, admin, guard.Postgres, opts), cut
		},
	}
}

func mysqlHarness() guardtest.Harness {
	open := func(t testing.TB, cuttable bool) (db, admin *sql.DB, cut func()) {
		t.Helper()
		dsn := guardtest.Env(t, "IDEM_TEST_MYSQL")
		cfg, err := mysql.ParseDSN(dsn)
		if err != nil {
			t.Fatalf("IDEM_TEST_MYSQL: %v", err)
		}
		admin, err = sql.Open("mysql", dsn)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { admin.Close() })
		db = admin
		if cuttable {
			if cfg.Net != "tcp" {
				t.Skipf("IDEM_TEST_MYSQL uses %s, not tcp: cannot put a proxy in front of it", cfg.Net)
			}
			addr, c := guardtest.NewProxy(t, cfg.Addr)
			pcfg := cfg.Clone()
			pcfg.Addr = addr
			if db, err = sql.Open("mysql", pcfg.FormatDSN()); err != nil {
				t.Fatal(err)
			}
			cut = c
			t.Cleanup(func() { db.Close() })
		}
		db.SetMaxOpenConns(32)
		return db, admin, cut
	}
	return guardtest.Harness{
		Name: "mysql",
		New: func(t testing.TB, opts ...guard.Option) guardtest.Backend {
			db, admin, _ := open(t, false)
			return newSQLBackend(t, db, admin, guard.MySQL, opts)
		},
		NewCuttable: func(t testing.TB, opts ...guard.Option) (guardtest.Backend, func()) {
			db, admin, cut := open(t, true)
			return newSQLBackend(t, db, admin, guard.MySQL, opts), cut
		},
	}
}

func splitHostPort(t testing.TB, addr string) (string, uint16) {
	t.Helper()
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	p, err := strconv.ParseUint(port, 10, 16)
	if err != nil {
		t.Fatal(err)
	}
	return host, uint16(p)
}

// counterSQL is the counters table of a dialect: create, upsert (n = n + delta), read.
type counterSQL struct{ create, upsert, read string }

func countersFor(d guard.Dialect, table string) counterSQL {
	switch d {
	case guard.Postgres:
		return counterSQL{
			create: `CREATE TABLE ` + table + ` (name text PRIMARY KEY, n bigint NOT NULL)`,
			upsert: `INSERT INTO ` + table + ` (name, n) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET n = ` + table + `.n + EXCLUDED.n`,
			read:   `SELECT n FROM ` + table + ` WHERE name = $1`,
		}
	case guard.MySQL:
		return counterSQL{
			create: `CREATE TABLE ` + table + ` (name VARCHAR(191) PRIMARY KEY, n BIGINT NOT NULL) ENGINE=InnoDB`,
			upsert: `INSERT INTO ` + table + ` (name, n) VALUES (?, ?) ON DUPLICATE KEY UPDATE n = n + VALUES(n)`,
			read:   `SELECT n FROM ` + table + ` WHERE name = ?`,
		}
	default:
		return counterSQL{
			create: `CREATE TABLE ` + table + ` (name TEXT PRIMARY KEY, n INTEGER NOT NULL)`,
			upsert: `INSERT INTO ` + table + ` (name, n) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET n = n + excluded.n`,
			read:   `SELECT n FROM ` + table + ` WHERE name = ?`,
		}
	}
}

// newSQLBackend builds a store on db over a fresh dedup table and counters
// table, both created and dropped through admin (which, unlike db, is never
// cut).
func newSQLBackend(t testing.TB, db, admin *sql.DB, d guard.Dialect, opts []guard.Option) guardtest.Backend {
	t.Helper()
	var b [6]byte
	rand.Read(b[:])
	table := "idem_t_" + hex.EncodeToString(b[:])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	adminStore, err := guard.NewSQLStore(admin, d, guard.WithTable(table))
	if err != nil {
		t.Fatal(err)
	}
	if err := adminStore.CreateTable(ctx); err != nil {
		t.Fatal(err)
	}
	counters := countersFor(d, table+"_counters")
	if _, err := admin.ExecContext(ctx, counters.create); err != nil {
		t.Fatalf("create counters table: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		drops, err := guard.DropTableSQL(d, table)
		if err != nil {
			t.Error(err)
		}
		for _, s := range append(drops, `DROP TABLE IF EXISTS `+table+`_counters`) {
			if _, err := admin.ExecContext(ctx, s); err != nil {
				t.Errorf("clean-up %q: %v", s, err)
			}
		}
	})

	tamper := guardtest.SQLTamper(func(ctx context.Context, query string, args ...any) (int64, error) {
		res, err := admin.ExecContext(ctx, query, args...)
		if err != nil {
			return 0, err
		}
		return res.RowsAffected()
	}, d, table)
	return sqlBackendOn(t, db, d, table, counters, tamper, opts)
}

// sqlBackendOn builds a store with opts on the existing dedup table and
// counters table.
func sqlBackendOn(t testing.TB, db *sql.DB, d guard.Dialect, table string, counters counterSQL, tamper guardtest.Tamper, opts []guard.Option) guardtest.Backend {
	t.Helper()
	store, err := guard.NewSQLStore(db, d, append([]guard.Option{guard.WithTable(table)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	if store.Config().Table != table || store.Dialect() != d || store.DB() != db {
		t.Fatalf("NewSQLStore: config %+v, dialect %s", store.Config(), store.Dialect())
	}
	return guardtest.Backend{
		Tamper: tamper,
		Clone: func(more ...guard.Option) guardtest.Backend {
			return sqlBackendOn(t, db, d, table, counters, tamper, append(slices.Clip(opts), more...))
		},
		Store: store,
		Do: func(ctx context.Context, consumer, key string, fp []byte, e guardtest.Effect) (guard.Outcome, error) {
			return store.Do(ctx, consumer, key, fp, func(ctx context.Context, tx *sql.Tx) error {
				if _, err := tx.ExecContext(ctx, counters.upsert, e.Counter, e.Delta); err != nil {
					return fmt.Errorf("add to counter %s: %w", e.Counter, err)
				}
				if e.Hook != nil {
					return e.Hook(ctx)
				}
				return nil
			})
		},
		DoBatch: func(ctx context.Context, msgs []guardtest.BatchEffect) []guard.Result {
			batch := make([]guard.TxMessage[*sql.Tx], len(msgs))
			for i, m := range msgs {
				batch[i] = guard.TxMessage[*sql.Tx]{Consumer: m.Consumer, Key: m.Key, Fingerprint: m.Fingerprint,
					Apply: func(ctx context.Context, tx *sql.Tx) error {
						if _, err := tx.ExecContext(ctx, counters.upsert, m.Effect.Counter, m.Effect.Delta); err != nil {
							return fmt.Errorf("add to counter %s: %w", m.Effect.Counter, err)
						}
						if m.Effect.Hook != nil {
							return m.Effect.Hook(ctx)
						}
						return nil
					}}
			}
			return store.DoBatch(ctx, batch)
		},
		Counter: func(ctx context.Context, name string) (int64, error) {
			var n int64
			err := db.QueryRowContext(ctx, counters.read, name).Scan(&n)
			if errors.Is(err, sql.ErrNoRows) {
				return 0, nil
			}
			return n, err
		},
	}
}

// openDB opens the database of dialect d for a test that needs its own pool
// settings: a fresh SQLite file, or the server of IDEM_TEST_POSTGRES /
// IDEM_TEST_MYSQL (skipped when unset).
func openDB(t *testing.T, d guard.Dialect) *sql.DB {
	t.Helper()
	var (
		db  *sql.DB
		err error
	)
	switch d {
	case guard.SQLite:
		db, err = sql.Open("sqlite", guard.SQLiteDSN(filepath.Join(t.TempDir(), "idem.db")))
	case guard.Postgres:
		db, err = sql.Open("pgx", guardtest.Env(t, "IDEM_TEST_POSTGRES"))
	case guard.MySQL:
		db, err = sql.Open("mysql", guardtest.Env(t, "IDEM_TEST_MYSQL"))
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestSQLStoreSingleConnection runs a store on a pool of one connection (a
// common setting for SQLite): a transaction must never need a second
// connection, or the first Do waits for itself forever. The key identity
// check of a first claim runs before the transaction, on the pool.
func TestSQLStoreSingleConnection(t *testing.T) {
	for _, d := range []guard.Dialect{guard.SQLite, guard.Postgres, guard.MySQL} {
		t.Run(d.String(), func(t *testing.T) {
			db := openDB(t, d)
			db.SetMaxOpenConns(1)
			b := newSQLBackend(t, db, db, d, []guard.Option{guard.WithKeyIdentity("v1 key=order_id")})
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			k := "v11:a"
			for _, want := range []guard.Outcome{guard.Applied, guard.Duplicate} {
				out, err := b.Do(ctx, "deduct_inventory", k, nil, guardtest.Effect{Counter: "stock", Delta: 1})
				if err != nil || out != want {
					t.Fatalf("Do on a pool of one connection = %v, %v; want %v", out, err, want)
				}
			}
			l, err := b.Store.Claim(ctx, "send_sms", k, nil)
			if err != nil {
				t.Fatalf("Claim on a pool of one connection: %v", err)
			}
			if err := l.Complete(ctx, nil); err != nil {
				t.Fatalf("Complete on a pool of one connection: %v", err)
			}
			_, err = b.Do(ctx, "deduct_inventory", "v11:b", nil, guardtest.Effect{Counter: "stock", Delta: 1,
				Hook: func(context.Context) error { return guard.Reject(errors.New("no stock")) }})
			if !errors.Is(err, guard.ErrFailed) {
				t.Fatalf("rejected Do on a pool of one connection: %v, want ErrFailed", err)
			}
		})
	}
}
