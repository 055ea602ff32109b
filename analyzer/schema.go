package analyzer

import (
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/idemkit/idem/analyzer/internal/sqlclass"
	"github.com/idemkit/idem/analyzer/knowledge"
)

// An insert that sets every column of a natural unique key its table's
// schema declares cannot add a second row: a redelivery violates the key
// (and fails) instead of repeating the write, so the insert is no effect:
//
//	CREATE UNIQUE INDEX ON document_chunks (document_id, sequence_number);
//
//	INSERT INTO document_chunks (id, document_id, sequence_number, text) …
//
// The schema is read from the .sql files of the module that holds the
// statement (migrations, sqlc schema files), in the whole-program mode
// only: a vet tool sees one package, and reading the module's files for
// each one would cost a walk of the tree per package.

// Bounds of the schema read: files larger than maxSchemaFile are skipped,
// reading stops after maxSchemaBytes in all or maxSchemaEntries entries
// walked.
const (
	maxSchemaFile    = 1 << 20
	maxSchemaBytes   = 16 << 20
	maxSchemaEntries = 100000
)

// naturalInsert reports whether o is a direct SQL insert whose columns set
// a natural unique key of its table (sqlclass.Schema.Natural).
func (a *pkgAnalysis) naturalInsert(o *occ) bool {
	return o.kind == knowledge.SQL && o.direct && a.naturalAt(o.pos, o.table, o.cols)
}

// naturalAt reports whether an insert into table writing cols, whose text
// is at pos, sets a natural unique key of the table in the schema of the
// module holding pos (whole-program mode only).
func (a *pkgAnalysis) naturalAt(pos token.Pos, table string, cols []string) bool {
	if a.pass != nil || table == "" || len(cols) == 0 {
		return false
	}
	file := a.fset.Position(pos).Filename
	if file == "" {
		return false
	}
	return a.schemaOf(filepath.Dir(file)).Natural(table, cols)
}

// schemaOf returns the schema of the module holding dir (the nearest
// directory at or above it with a go.mod), read once per module; nil
// outside a module.
func (a *pkgAnalysis) schemaOf(dir string) sqlclass.Schema {
	if m := a.moduleSQLOf(dir); m != nil {
		return m.schema
	}
	return nil
}

// moduleSQL is what a module's .sql files declare: the unique keys of
// its tables and its named queries (namedqueries.go).
type moduleSQL struct {
	schema sqlclass.Schema
	named  map[string][]string
}

// moduleSQLOf returns the SQL of the module holding dir, read once per
// module; nil outside a module.
func (a *pkgAnalysis) moduleSQLOf(dir string) *moduleSQL {
	if a.modSQL == nil {
		a.modSQL = map[string]*moduleSQL{}
		a.moduleRoots = map[string]string{}
	}
	root, ok := a.moduleRoots[dir]
	if !ok {
		root = moduleRoot(dir)
		a.moduleRoots[dir] = root
	}
	if root == "" {
		return nil
	}
	m, ok := a.modSQL[root]
	if !ok {
		m = readModuleSQL(root)
		a.modSQL[root] = m
	}
	return m
}

// moduleRoot returns the nearest directory at or above dir holding a
// go.mod file (not a symbolic link), "" if none.
func moduleRoot(dir string) string {
	for {
		if isFile(filepath.Join(dir, "go.mod")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// readSchema reads the DDL of the .sql files under root (see
// readModuleSQL).
func readSchema(root string) sqlclass.Schema { return readModuleSQL(root).schema }

// readModuleSQL reads the DDL and the named queries of the .sql files
// under root, in lexical order (numbered migrations in order). It follows
// no symbolic link, and skips hidden directories, vendor, node_modules,
// testdata, nested modules and down migrations (files named *.down.sql or
// *_down.sql, and what follows a "-- +goose Down" or "-- migrate:down"
// mark).
func readModuleSQL(root string) *moduleSQL {
	sc := sqlclass.Schema{}
	named := map[string][]string{}
	entries, total := 0, 0
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		entries++
		switch {
		case entries > maxSchemaEntries || total > maxSchemaBytes:
			return fs.SkipAll
		case err != nil:
			return nil // an unreadable directory is skipped
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "vendor" || name == "node_modules" || name == "testdata" || isFile(filepath.Join(path, "go.mod"))) {
				return filepath.SkipDir
			}
			return nil
		}
		lower := strings.ToLower(name)
		if !d.Type().IsRegular() || !strings.HasSuffix(lower, ".sql") || strings.HasSuffix(lower, ".down.sql") || strings.HasSuffix(lower, "_down.sql") {
			return nil
		}
		fi, err := d.Info()
		if err != nil || fi.Size() > maxSchemaFile {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		total += len(data)
		sc.ReadDDL(upPart(string(data)))
		for name, text := range namedQueries(string(data)) {
			named[name] = append(named[name], text)
		}
		return nil
	})
	return &moduleSQL{schema: sc, named: named}
}

// upPart returns the text of a migration before its down section (goose's
// "-- +goose Down", dbmate's "-- migrate:down").
func upPart(text string) string {
	lower := strings.ToLower(text)
	for _, mark := range []string{"-- +goose down", "-- migrate:down"} {
		if i := strings.Index(lower, mark); i >= 0 {
			text, lower = text[:i], lower[:i]
		}
	}
	return text
}

// isFile reports whether path is a regular file (not a symbolic link).
func isFile(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && fi.Mode().IsRegular()
}
