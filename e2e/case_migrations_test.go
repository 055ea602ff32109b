package e2e_test

import (
	"context"
	"database/sql"
	"os"
	"testing"

	"github.com/golang-migrate/migrate/v4"
	migratesqlite "github.com/golang-migrate/migrate/v4/database/sqlite"
	"github.com/golang-migrate/migrate/v4/source/iofs"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"

	"github.com/idemkit/idem/e2e/testdata/shop"
	"github.com/idemkit/idem/e2e/testdata/shoppgx"
	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/guardtest"
)

// TestCaseMigrations is the path of a new user: apply the migrations
// idemgen wrote for the spec, with the command its header gives (the same
// version tables), then run the handlers with the spec's own settings (no
// table option), which find the table the migrations created.
func TestCaseMigrations(t *testing.T) {
	t.Parallel()
	t.Run("shop/sqlite/golang-migrate", func(t *testing.T) {
		t.Parallel()
		db := openSQLite(t)
		src, err := iofs.New(os.DirFS("testdata/shop/migrations/idem"), ".")
		if err != nil {
			t.Fatal(err)
		}
		drv, err := migratesqlite.WithInstance(db, &migratesqlite.Config{MigrationsTable: "idem_schema_migrations"})
		if err != nil {
			t.Fatal(err)
		}
		m, err := migrate.NewWithInstance("iofs", src, "sqlite", drv)
		if err != nil {
			t.Fatal(err)
		}
		if err := m.Up(); err != nil {
			t.Fatal(err)
		}
		w := sqlWorld(t, "sqlite", db, guard.SQLite)
		w.seedStock(t, "A", 10)
		h := shop.NewDeductInventoryHandler(w.sqlStore, func(ctx context.Context, tx *sql.Tx, m *shop.DeductInventory) error {
			return w.deduct(ctx, sqlExec(tx), m.Sku, m.Quantity)
		})
		deliverThrice(t, h, `{"order_id":"o1","sku":"A","quantity":3}`)
		expectInt(t, "stock of A", w.stockOf(t, "A"), 7)
		// The dedup records, not the consumers' key identity records (key_text '').
		expectInt(t, "records in e2e_shop_keys", w.mustInt(t, `SELECT COUNT(*) FROM e2e_shop_keys WHERE key_text <> ''`), 1)
	})
	t.Run("shoppgx/postgres/goose", func(t *testing.T) {
		t.Parallel()
		// The spec's table has a fixed name: a schema of its own keeps
		// concurrent runs on one server apart.
		cfg, err := pgxpool.ParseConfig(guardtest.Env(t, envPostgres))
		if err != nil {
			t.Fatal(err)
		}
		schema := "e2e_" + suffix(t)
		admin := openPool(t)
		ctx := context.Background()
		if _, err := admin.Exec(ctx, `CREATE SCHEMA `+schema); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if _, err := admin.Exec(context.Background(), `DROP SCHEMA `+schema+` CASCADE`); err != nil {
				t.Errorf("drop schema %s: %v", schema, err)
			}
		})
		cfg.ConnConfig.RuntimeParams["search_path"] = schema
		pool, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(pool.Close)
		db := stdlib.OpenDB(*cfg.ConnConfig)
		t.Cleanup(func() { db.Close() })

		p, err := goose.NewProvider(goose.DialectPostgres, db, os.DirFS("testdata/shoppgx/migrations/idem"),
			goose.WithTableName("idem_goose_db_version"), goose.WithDisableGlobalRegistry(true))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := p.Up(ctx); err != nil {
			t.Fatal(err)
		}
		w := pgxWorldOn(t, pool)
		w.seedStock(t, "A", 10)
		h := shoppgx.NewDeductInventoryHandler(w.pgxStore, func(ctx context.Context, tx pgx.Tx, m *shoppgx.DeductInventory) error {
			return w.deduct(ctx, pgxExec(tx), m.Sku, m.Quantity)
		})
		deliverThrice(t, h, `{"order_id":"o1","sku":"A","quantity":3}`)
		expectInt(t, "stock of A", w.stockOf(t, "A"), 7)
		expectInt(t, "records in e2e_shoppgx_keys", w.mustInt(t, `SELECT COUNT(*) FROM e2e_shoppgx_keys WHERE key_text <> ''`), 1)
	})
}
