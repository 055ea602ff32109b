package generator

import (
	"fmt"
	"path"
	"time"

	"github.com/idemkit/idem/guard"
	"github.com/idemkit/idem/spec"
	"github.com/idemkit/idem/templates"
)

// usesSQL reports whether a consumer of s keeps its records in SQL.
func usesSQL(s *spec.Spec) bool {
	for _, c := range s.Consumers {
		if c.Effect == spec.EffectSQL || c.Effect == spec.EffectExternal && c.Store == spec.StoreSQL {
			return true
		}
	}
	return false
}

// oneStatementPerFile reports whether the migration tool's driver for
// dialect runs only one statement per migration file: golang-migrate's mysql
// driver does, unless the DSN sets multiStatements.
func oneStatementPerFile(format, dialect string) bool {
	return format == spec.FormatGolangMigrate && dialect == spec.DialectMySQL
}

// migrationFiles renders the migrations of the dedup table.
func migrationFiles(s *spec.Spec) ([]File, error) {
	if !usesSQL(s) {
		return nil, nil
	}
	d, err := guard.ParseDialect(s.Dialect)
	if err != nil {
		return nil, fmt.Errorf("generator: %w", err)
	}
	var up []string
	if s.Migrations.Partition == spec.PartitionDaily {
		up, err = guard.PartitionedTableSQL(d, s.Table, longestRetention(s))
	} else {
		up, err = guard.CreateTableSQL(d, s.Table)
	}
	if err != nil {
		return nil, fmt.Errorf("generator: %w", err)
	}
	down, err := guard.DropTableSQL(d, s.Table)
	if err != nil {
		return nil, fmt.Errorf("generator: %w", err)
	}
	return renderMigrations(s.Migrations, s.Dialect, s.Table, up, down)
}

// longestRetention is the longest retention of s's consumers: the daily
// partitions the migrations create must hold their records' expiries.
func longestRetention(s *spec.Spec) time.Duration {
	r := s.Retention
	for _, c := range s.Consumers {
		r = max(r, c.Retention)
	}
	return r
}

// migrationStep is one migration: its version, name and statements.
type migrationStep struct {
	version  int
	name     string
	up, down []string
}

// migrationSteps splits the statements into migrations: one for all of
// them, or one per up statement when the tool runs one statement per file.
// Then the first migration's down drops everything (a dropped table takes
// its indexes along) and the later ones' downs have nothing to undo.
func migrationSteps(m spec.Migrations, dialect, table string, up, down []string) []migrationStep {
	name := "create_" + table
	if !oneStatementPerFile(m.Format, dialect) || len(up) <= 1 {
		return []migrationStep{{m.Version, name, up, down}}
	}
	var steps []migrationStep
	for i, stmt := range up {
		st := migrationStep{version: m.Version + i, name: name, up: []string{stmt}}
		if i == 0 {
			st.down = down
		} else {
			st.name = fmt.Sprintf("%s_%d", name, i+1)
		}
		steps = append(steps, st)
	}
	return steps
}

func renderMigrations(m spec.Migrations, dialect, table string, up, down []string) ([]File, error) {
	dir := path.Clean(m.Dir)
	var files []File
	add := func(tmpl, file string, data templates.Migration) error {
		data.File = path.Join(dir, file)
		out, err := templates.Execute(tmpl, &data)
		if err != nil {
			return fmt.Errorf("generator: %w", err)
		}
		files = append(files, File{Path: data.File, Data: out, Mode: ModeMigration})
		return nil
	}
	for _, st := range migrationSteps(m, dialect, table, up, down) {
		data := templates.Migration{Dialect: dialect, Table: table, Dir: dir, Up: st.up, Down: st.down}
		var err error
		switch m.Format {
		case spec.FormatGolangMigrate:
			base := fmt.Sprintf("%06d_%s", st.version, st.name)
			err = add(templates.GolangMigrateUp, base+".up.sql", data)
			if err == nil {
				err = add(templates.GolangMigrateDown, base+".down.sql", data)
			}
		case spec.FormatGoose:
			err = add(templates.Goose, fmt.Sprintf("%05d_%s.sql", st.version, st.name), data)
		case spec.FormatPlain:
			err = add(templates.Plain, fmt.Sprintf("%06d_%s.sql", st.version, st.name), data)
		default:
			err = fmt.Errorf("generator: unknown migrations format %q", m.Format)
		}
		if err != nil {
			return nil, err
		}
	}
	return files, nil
}
