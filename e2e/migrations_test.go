package e2e_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/golang-migrate/migrate/v4"
	migratedb "github.com/golang-migrate/migrate/v4/database"
	migratemysql "github.com/golang-migrate/migrate/v4/database/mysql"
	migratepgx "github.com/golang-migrate/migrate/v4/database/pgx/v5"
	migratesqlite "github.com/golang-migrate/migrate/v4/database/sqlite"
	"github.com/golang-migrate/migrate/v4/source/iofs"
	"github.com/jackc/pgx/v5"
	"github.com/pressly/goose/v3"

	"github.com/idemkit/idem/generator"
	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/guard/pgxguard"
	"github.com/idemkit/idem/spec"
)

// generatedMigrations generates, from a spec naming table, dialect d and
// format, the migrations of the dedup table and returns them as a file
// system rooted at the migrations folder.
func generatedMigrations(t testing.TB, d guard.Dialect, format, table string) fs.FS {
	t.Helper()
	src := fmt.Sprintf(`version: 1
package: migrations
dialect: %s
table: %s
migrations:
  dir: ./migrations/idem
  format: %s
consumers:
  - name: deduct_inventory
    message: {fields: {order_id: string, sku: string, quantity: int64}}
    key: [order_id, sku]
    effect: sql
  - name: send_sms
    message: {fields: {order_id: string, phone: string}}
    key: [order_id]
    effect: external
`, d, table, format)
	s, err := spec.Parse(filepath.Join(t.TempDir(), "idem.yaml"), []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	files, err := generator.Generate(s)
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{}
	for _, f := range files {
		if f.Mode != generator.ModeMigration {
			continue
		}
		rel, ok := strings.CutPrefix(f.Path, "migrations/idem/")
		if !ok || path.Dir(rel) != "." {
			t.Fatalf("migration %s is not in migrations/idem", f.Path)
		}
		fsys[rel] = &fstest.MapFile{Data: f.Data, Mode: 0o644}
	}
	if len(fsys) == 0 {
		t.Fatal("no migration generated")
	}
	return fsys
}

// migrationDB is a database to migrate: how to open it, and the drivers of
// the migration tools for it.
type migrationDB struct {
	name    string
	dialect guard.Dialect
	open    func(t testing.TB) *sql.DB
	// migrateDriver is golang-migrate's driver on db, with the version
	// table migrationsTable.
	migrateDriver func(db *sql.DB, migrationsTable string) (migratedb.Driver, error)
	goose         goose.Dialect
}

var migrationDBs = []migrationDB{
	{
		name: "sqlite", dialect: guard.SQLite, open: openSQLite,
		migrateDriver: func(db *sql.DB, table string) (migratedb.Driver, error) {
			return migratesqlite.WithInstance(db, &migratesqlite.Config{MigrationsTable: table})
		},
		goose: goose.DialectSQLite3,
	},
	{
		name: "postgres", dialect: guard.Postgres, open: openPostgres,
		migrateDriver: func(db *sql.DB, table string) (migratedb.Driver, error) {
			return migratepgx.WithInstance(db, &migratepgx.Config{MigrationsTable: table})
		},
		goose: goose.DialectPostgres,
	},
	{
		name: "mysql", dialect: guard.MySQL, open: openMySQL,
		migrateDriver: func(db *sql.DB, table string) (migratedb.Driver, error) {
			return migratemysql.WithInstance(db, &migratemysql.Config{MigrationsTable: table})
		},
		goose: goose.DialectMySQL,
	},
}

// TestMigrations applies the generated migrations of the dedup table with
// the real golang-migrate and goose, each with a version table of its own,
// to every database; the guard stores then work on the table they created
// (a transactional Do and a lease Claim); the down migrations drop it.
func TestMigrations(t *testing.T) {
	t.Parallel()
	for _, mdb := range migrationDBs {
		for _, tool := range []string{spec.FormatGolangMigrate, spec.FormatGoose} {
			t.Run(mdb.name+"/"+tool, func(t *testing.T) {
				t.Parallel()
				db := mdb.open(t)
				sfx := suffix(t)
				table := "e2e_" + sfx + "_migrated"
				versions := "e2e_" + sfx + "_versions"
				t.Cleanup(func() {
					for _, name := range []string{table, versions} {
						if _, err := db.Exec(`DROP TABLE IF EXISTS ` + name); err != nil {
							t.Errorf("drop %s: %v", name, err)
						}
					}
				})
				fsys := generatedMigrations(t, mdb.dialect, tool, table)
				up, down := migrationRunner(t, mdb, tool, db, fsys, versions)

				if err := up(); err != nil {
					t.Fatalf("%s up: %v", tool, err)
				}
				expectTable(t, db, mdb.dialect, versions, true)
				useStore(t, db, mdb.dialect, table)
				if mdb.dialect == guard.Postgres {
					usePgxStore(t, table)
				}
				// Up again: nothing to do.
				if err := up(); err != nil {
					t.Fatalf("%s up a second time: %v", tool, err)
				}
				if err := down(); err != nil {
					t.Fatalf("%s down: %v", tool, err)
				}
				expectTable(t, db, mdb.dialect, table, false)
			})
		}
	}
}

// migrationRunner returns the up and down of tool over the migrations in
// fsys, on db, keeping its versions in the table versions.
func migrationRunner(t testing.TB, mdb migrationDB, tool string, db *sql.DB, fsys fs.FS, versions string) (up, down func() error) {
	t.Helper()
	switch tool {
	case spec.FormatGolangMigrate:
		src, err := iofs.New(fsys, ".")
		if err != nil {
			t.Fatal(err)
		}
		drv, err := mdb.migrateDriver(db, versions)
		if err != nil {
			t.Fatalf("golang-migrate %s driver: %v", mdb.name, err)
		}
		m, err := migrate.NewWithInstance("iofs", src, mdb.name, drv)
		if err != nil {
			t.Fatal(err)
		}
		noChange := func(err error) error {
			if errors.Is(err, migrate.ErrNoChange) {
				return nil
			}
			return err
		}
		return func() error { return noChange(m.Up()) }, func() error { return noChange(m.Down()) }
	case spec.FormatGoose:
		p, err := goose.NewProvider(mdb.goose, db, fsys, goose.WithTableName(versions), goose.WithDisableGlobalRegistry(true))
		if err != nil {
			t.Fatalf("goose provider: %v", err)
		}
		ctx := context.Background()
		return func() error {
				_, err := p.Up(ctx)
				return err
			}, func() error {
				_, err := p.DownTo(ctx, 0)
				return err
			}
	}
	t.Fatalf("unknown tool %s", tool)
	return nil, nil
}

// expectTable checks whether table exists.
func expectTable(t testing.TB, db *sql.DB, d guard.Dialect, table string, exists bool) {
	t.Helper()
	var query string
	switch d {
	case guard.SQLite:
		query = `SELECT COUNT(*) FROM sqlite_master WHERE type = 'table' AND name = ?`
	case guard.Postgres:
		query = `SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = $1`
	case guard.MySQL:
		query = `SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = ?`
	}
	var n int
	if err := db.QueryRow(query, table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if (n == 1) != exists {
		t.Errorf("table %s exists: %v, want %v", table, n == 1, exists)
	}
}

// useStore runs a transactional Do and a lease Claim on the migrated table
// through database/sql, each delivered twice.
func useStore(t testing.TB, db *sql.DB, d guard.Dialect, table string) {
	t.Helper()
	ctx := testContext(t)
	store, err := guard.NewSQLStore(db, d, guard.WithTable(table))
	if err != nil {
		t.Fatal(err)
	}
	applied := 0
	for i, want := range []guard.Outcome{guard.Applied, guard.Duplicate} {
		out, err := store.Do(ctx, "deduct_inventory", "v12:o1", []byte("fp"), func(ctx context.Context, tx *sql.Tx) error {
			applied++
			return nil
		})
		if err != nil || out != want {
			t.Fatalf("Do %d on the migrated table = (%v, %v), want %v", i+1, out, err, want)
		}
	}
	if applied != 1 {
		t.Errorf("apply ran %d times, want 1", applied)
	}
	claimTwice(t, ctx, store, "send_sms")
}

// usePgxStore does the same through pgx's native interface.
func usePgxStore(t testing.TB, table string) {
	t.Helper()
	ctx := testContext(t)
	store, err := pgxguard.New(openPool(t), guard.WithTable(table))
	if err != nil {
		t.Fatal(err)
	}
	out, err := store.Do(ctx, "deduct_inventory", "v12:o2", []byte("fp"), func(ctx context.Context, tx pgx.Tx) error { return nil })
	if err != nil || out != guard.Applied {
		t.Fatalf("pgx Do on the migrated table = (%v, %v), want applied", out, err)
	}
	claimTwice(t, ctx, store, "send_sms_pgx")
}

// claimTwice claims a key, completes it with a result, and claims it again:
// a duplicate carrying the result.
func claimTwice(t testing.TB, ctx context.Context, store guard.Store, consumer string) {
	t.Helper()
	lease, err := store.Claim(ctx, consumer, "v12:o1", nil)
	if err != nil || lease.Outcome() != guard.Applied {
		t.Fatalf("Claim on the migrated table = (%v, %v), want an applied lease", lease, err)
	}
	if err := lease.Complete(ctx, []byte("sms-1")); err != nil {
		t.Fatal(err)
	}
	lease, err = store.Claim(ctx, consumer, "v12:o1", nil)
	if err != nil || lease.Outcome() != guard.Duplicate || string(lease.Result()) != "sms-1" {
		t.Fatalf("second Claim = (%v, %v), want a duplicate with result sms-1", lease, err)
	}
}
