// Package templates holds the text/template sources, embedded in the binary,
// from which idemgen writes the SQL migrations of the dedup table: one
// template per migration tool and file kind. The statements themselves come
// from guard.CreateTableSQL and guard.DropTableSQL, the single source of truth
// of the table's schema; the templates only add the tool's annotations and a
// header saying how to apply the migrations with their own version table.
//
// Each template starts with a {{/* gotype: … */}} comment naming the type of
// its data, Migration.
package templates

import (
	"bytes"
	"embed"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"text/template"
)

// The names of the templates, one per migration tool and file kind.
const (
	// GolangMigrateUp is the .up.sql file of a golang-migrate migration.
	GolangMigrateUp = "golang-migrate.up.sql.tmpl"
	// GolangMigrateDown is the .down.sql file of a golang-migrate migration.
	GolangMigrateDown = "golang-migrate.down.sql.tmpl"
	// Goose is a goose migration: one file with Up and Down sections.
	Goose = "goose.sql.tmpl"
	// Plain is a plain SQL file with the up statements, for tools that read
	// plain SQL (or psql -f); the down statements are in a comment.
	Plain = "plain.sql.tmpl"
)

// Migration is the data of every template: one migration file.
type Migration struct {
	Dialect string // "postgres", "mysql" or "sqlite"
	Table   string // the dedup table
	Dir     string // the migrations folder, slash-separated, relative to the spec's folder
	File    string // this file's path, slash-separated, relative to the spec's folder
	// Up are the statements that create the table, without final semicolons.
	Up []string
	// Down are the statements that undo Up, without final semicolons. Empty
	// when there is nothing to undo (the golang-migrate down template then
	// writes a no-op statement).
	Down []string
}

//go:embed *.tmpl
var files embed.FS

var parsed = sync.OnceValues(func() (*template.Template, error) {
	return template.New("").Option("missingkey=error").Funcs(template.FuncMap{
		"comment":      comment,
		"dollarQuoted": func(s string) bool { return strings.Contains(s, "$$") },
	}).ParseFS(files, "*.tmpl")
})

// Names returns the names of the templates, sorted.
func Names() []string {
	entries, _ := files.ReadDir(".")
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// Source returns the text of the template name.
func Source(name string) ([]byte, error) {
	return files.ReadFile(name)
}

// The forms of the strings of a Migration that templates write into SQL
// comments and commands: never a newline (which would end the comment and
// make the rest a statement), a space or a shell character.
var (
	identifier = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)
	slashPath  = regexp.MustCompile(`^[A-Za-z0-9._/-]+$`)
	dialects   = []string{"postgres", "mysql", "sqlite"}
)

// check refuses a Migration whose strings the templates could not write
// safely; the statements, which come from guard, are not checked.
func (m *Migration) check() error {
	switch {
	case !slices.Contains(dialects, m.Dialect):
		return fmt.Errorf("templates: unknown dialect %q", m.Dialect)
	case !identifier.MatchString(m.Table):
		return fmt.Errorf("templates: table %q is not a SQL identifier", m.Table)
	case !slashPath.MatchString(m.Dir) || len(m.Dir) > 1024:
		return fmt.Errorf("templates: folder %q is not a slash path of letters, digits, ., _ and -", m.Dir)
	case !slashPath.MatchString(m.File) || len(m.File) > 1024:
		return fmt.Errorf("templates: file %q is not a slash path of letters, digits, ., _ and -", m.File)
	}
	return nil
}

// Execute renders the template name with data. Data whose dialect, table,
// folder or file name could break out of a comment or a quoted command is
// an error.
func Execute(name string, data *Migration) ([]byte, error) {
	if err := data.check(); err != nil {
		return nil, err
	}
	t, err := parsed()
	if err != nil {
		return nil, fmt.Errorf("templates: %w", err)
	}
	if t.Lookup(name) == nil {
		return nil, fmt.Errorf("templates: no template %q", name)
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, name, data); err != nil {
		return nil, fmt.Errorf("templates: %w", err)
	}
	return buf.Bytes(), nil
}

// comment turns text into SQL line comments, one per line, each prefixed
// with indent.
func comment(indent, text string) string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight("--"+indent+l, " ")
	}
	return strings.Join(lines, "\n")
}
