package guard_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"

	"github.com/idemkit/idem/guard"
)

// TestSQLiteDSNHostilePaths opens databases through SQLiteDSN at paths whose
// bytes mean something in a URI or a DSN: each opens the file named so, and
// keeps the settings the store relies on (WAL, busy timeout), instead of
// another file, read-only, in memory, or with the path's own options.
func TestSQLiteDSNHostilePaths(t *testing.T) {
	names := []string{
		"a?mode=ro",                      // would open "a" read-only
		"b#frag",                         // would open "b"
		"%41",                            // would open "A"
		"x%3Fy",                          // would open "x?y"
		"with space.db",                  //
		"ünïcødé-数据.db",                  //
		"q?_pragma=journal_mode(DELETE)", // would turn WAL off
		"t?_txlock=deferred&_pragma=foreign_keys(1)", // would change the transactions
		"m?vfs=memdb",          // would keep the database in memory
		"semi;colon&amp=1.db",  //
		"tab\tand\nnewline.db", //
	}
	for _, name := range names {
		t.Run(strings.ReplaceAll(name, "/", "_"), func(t *testing.T) {
			dir := t.TempDir()
			checkSQLiteFile(t, dir, name, filepath.Join(dir, name))
		})
	}
	t.Run("relative", func(t *testing.T) {
		dir := t.TempDir()
		t.Chdir(dir)
		checkSQLiteFile(t, dir, "a?mode=ro", "a?mode=ro")
	})
	t.Run("leading-double-slash", func(t *testing.T) {
		// "//data/x" is "/data/x" to the file system, and no host name.
		dir := t.TempDir()
		checkSQLiteFile(t, dir, "idem.db", "/"+filepath.Join(dir, "idem.db"))
	})
}

// checkSQLiteFile opens path (which names the file name in dir) through
// SQLiteDSN, writes a dedup record, and checks that the file holds it, that
// dir holds nothing else, and the connection's settings.
func checkSQLiteFile(t *testing.T, dir, name, path string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := sql.Open("sqlite", guard.SQLiteDSN(path))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	store, err := guard.NewSQLStore(db, guard.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.CreateTable(ctx); err != nil {
		t.Fatalf("CreateTable through SQLiteDSN(%q): %v", path, err)
	}
	if out, err := store.Do(ctx, "c", "v11:a", nil, func(context.Context, *sql.Tx) error { return nil }); err != nil || out != guard.Applied {
		t.Fatalf("Do = %v, %v", out, err)
	}
	for pragma, want := range map[string]string{"journal_mode": "wal", "busy_timeout": "10000", "synchronous": "1"} {
		var got string
		if err := db.QueryRowContext(ctx, "PRAGMA "+pragma).Scan(&got); err != nil || got != want {
			t.Errorf("PRAGMA %s = %q, %v; want %q", pragma, got, err, want)
		}
	}
	var file string
	if err := db.QueryRowContext(ctx, "SELECT file FROM pragma_database_list WHERE name = 'main'").Scan(&file); err != nil {
		t.Fatal(err)
	}
	opened, err := os.Stat(file)
	if err != nil {
		t.Fatalf("SQLiteDSN(%q) opened %q: %v", path, file, err)
	}
	if named, err := os.Stat(filepath.Join(dir, name)); err != nil || !os.SameFile(opened, named) {
		t.Fatalf("SQLiteDSN(%q) opened %q, not the file named %q (%v)", path, file, name, err)
	}
	db.Close()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var list []string
	for _, e := range entries {
		list = append(list, e.Name())
	}
	for _, f := range list {
		if f != name && f != name+"-wal" && f != name+"-shm" {
			t.Errorf("SQLiteDSN(%q) created %q; the directory holds %q", path, f, list)
		}
	}
	if !slices.Contains(list, name) {
		t.Fatalf("SQLiteDSN(%q) did not create %q; the directory holds %q", path, name, list)
	}
	// The file named is the database, with the record in it.
	again, err := sql.Open("sqlite", guard.SQLiteDSN(path))
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	reopened, err := guard.NewSQLStore(again, guard.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := reopened.Do(ctx, "c", "v11:a", nil, func(context.Context, *sql.Tx) error { return nil }); err != nil || out != guard.Duplicate {
		t.Fatalf("Do after reopening %q = %v, %v; want duplicate", path, out, err)
	}
}

func TestSQLiteDSNForm(t *testing.T) {
	for path, want := range map[string]string{
		"/data/idem.db": "file:///data/idem.db?",
		"idem.db":       "file:idem.db?",
		":memory:":      "file::memory:?",
		"a?b#c%d e":     "file:a%3Fb%23c%25d%20e?",
		"//srv/idem.db": "file:////srv/idem.db?",
		"caf\u00e9.db":  "file:caf%C3%A9.db?",
		"x&y=z;w(1).db": "file:x&y=z;w(1).db?",
	} {
		if got := guard.SQLiteDSN(path); !strings.HasPrefix(got, want) || strings.Count(got, "?") != 1 ||
			!strings.HasSuffix(got, "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_txlock=immediate") {
			t.Errorf("SQLiteDSN(%q) = %q, want %q and the store's settings", path, got, want)
		}
	}
}
