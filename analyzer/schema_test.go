package analyzer

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReadSchema checks which files the schema read takes: the module's
// .sql files, not one reached through a symbolic link (to a file outside
// the module or to a directory), not a nested module's, vendor's or a down
// migration's.
func TestReadSchema(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	write := func(path, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	key := func(table string) string { return "CREATE TABLE " + table + " (a TEXT, b TEXT, UNIQUE (a, b));\n" }
	write(filepath.Join(root, "go.mod"), "module m\n")
	write(filepath.Join(root, "db", "migrations", "001_init.up.sql"), key("kept"))
	write(filepath.Join(root, "db", "migrations", "001_init.down.sql"), key("down"))
	write(filepath.Join(root, "vendor", "x", "schema.sql"), key("vendored"))
	write(filepath.Join(root, "tools", "go.mod"), "module tools\n")
	write(filepath.Join(root, "tools", "schema.sql"), key("nested"))
	write(filepath.Join(outside, "schema.sql"), key("linkedfile"))
	write(filepath.Join(outside, "dir", "schema.sql"), key("linkeddir"))
	if err := os.Symlink(filepath.Join(outside, "schema.sql"), filepath.Join(root, "db", "linked.sql")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "dir"), filepath.Join(root, "db", "linkdir")); err != nil {
		t.Fatal(err)
	}
	sc := readSchema(moduleRoot(filepath.Join(root, "db", "migrations")))
	for table, want := range map[string]bool{"kept": true, "down": false, "vendored": false, "nested": false, "linkedfile": false, "linkeddir": false} {
		if got := sc.Natural(table, []string{"a", "b"}); got != want {
			t.Errorf("key of %s read: %v, want %v", table, got, want)
		}
	}
	if r := moduleRoot(outside); r != "" {
		t.Errorf("moduleRoot(outside) = %q, want none", r)
	}
}
