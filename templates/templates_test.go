package templates

import (
	"bytes"
	"strings"
	"testing"

	"github.com/idemkit/idem/guard"
)

func TestTemplatesNameTheirDataType(t *testing.T) {
	names := Names()
	if len(names) == 0 {
		t.Fatal("no templates")
	}
	for _, name := range names {
		src, err := Source(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(src, []byte("{{/* gotype: github.com/idemkit/idem/templates.Migration */ -}}\n")) {
			t.Errorf("%s does not start with its gotype comment", name)
		}
	}
}

func TestExecute(t *testing.T) {
	for _, d := range []guard.Dialect{guard.Postgres, guard.MySQL, guard.SQLite} {
		up, err := guard.CreateTableSQL(d, "idem_keys")
		if err != nil {
			t.Fatal(err)
		}
		down, err := guard.DropTableSQL(d, "idem_keys")
		if err != nil {
			t.Fatal(err)
		}
		data := &Migration{Dialect: d.String(), Table: "idem_keys", Dir: "migrations/idem", File: "migrations/idem/000001_create_idem_keys.sql", Up: up, Down: down}
		for _, name := range []string{GolangMigrateUp, GolangMigrateDown, Goose, Plain} {
			out, err := Execute(name, data)
			if err != nil {
				t.Fatalf("%s %s: %v", d, name, err)
			}
			text := string(out)
			if strings.Contains(text, "<no value>") || !strings.HasSuffix(text, ";\n") || strings.HasSuffix(text, "\n\n") {
				t.Errorf("%s %s: malformed output:\n%s", d, name, text)
			}
			var stmts []string
			switch name {
			case GolangMigrateUp:
				stmts = up
			case GolangMigrateDown:
				stmts = down
			default:
				stmts = append(append(stmts, up...), down...)
			}
			for _, s := range stmts {
				if !strings.Contains(text, s+";\n") && !strings.Contains(text, "--   "+s+";\n") {
					t.Errorf("%s %s lacks the statement %q", d, name, s)
				}
			}
			for line := range strings.SplitSeq(text, "\n") {
				if strings.HasSuffix(line, " ") {
					t.Errorf("%s %s: trailing space in %q", d, name, line)
				}
			}
		}
		goose, _ := Execute(Goose, data)
		if !bytes.Contains(goose, []byte("\n-- +goose Up\n")) || !bytes.Contains(goose, []byte("\n-- +goose Down\n")) ||
			!bytes.Contains(goose, []byte("-table idem_goose_db_version")) {
			t.Errorf("%s goose: annotations or version table missing:\n%s", d, goose)
		}
		migrate, _ := Execute(GolangMigrateUp, data)
		if !bytes.Contains(migrate, []byte("x-migrations-table=idem_schema_migrations")) {
			t.Errorf("%s golang-migrate: no migrations table of its own:\n%s", d, migrate)
		}
	}
}

func TestExecuteErrors(t *testing.T) {
	ok := Migration{Dialect: "sqlite", Table: "idem_keys", Dir: "migrations/idem", File: "migrations/idem/000001_create_idem_keys.sql"}
	if _, err := Execute("nope.tmpl", &ok); err == nil {
		t.Error("Execute of an unknown template succeeded")
	}
	// Strings that would end a comment, start a statement or reach a shell.
	for _, tt := range []struct {
		name string
		edit func(m *Migration)
		want string
	}{
		{"folder with a newline", func(m *Migration) { m.Dir = "m\nDROP TABLE users;\n--" }, `templates: folder "m\nDROP TABLE users;\n--" is not a slash path`},
		{"file with a space", func(m *Migration) { m.File = "a b.sql" }, `templates: file "a b.sql" is not a slash path`},
		{"file with a shell character", func(m *Migration) { m.File = "$(rm -rf x).sql" }, `templates: file "$(rm -rf x).sql" is not a slash path`},
		{"table", func(m *Migration) { m.Table = "t; DROP TABLE users" }, `templates: table "t; DROP TABLE users" is not a SQL identifier`},
		{"dialect", func(m *Migration) { m.Dialect = "oracle" }, `templates: unknown dialect "oracle"`},
		{"empty", func(m *Migration) { *m = Migration{} }, `templates: unknown dialect ""`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := ok
			tt.edit(&m)
			for _, name := range Names() {
				out, err := Execute(name, &m)
				if err == nil || !strings.HasPrefix(err.Error(), tt.want) || out != nil {
					t.Errorf("%s: %q, %v; want an error %q", name, out, err, tt.want)
				}
			}
		})
	}
}

func TestComment(t *testing.T) {
	got := comment("   ", "DROP TABLE t\n\nx")
	want := "--   DROP TABLE t\n--\n--   x"
	if got != want {
		t.Errorf("comment = %q, want %q", got, want)
	}
}
