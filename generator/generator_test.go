package generator

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/dave/jennifer/jen"

	"github.com/idemkit/idem/spec"
)

// parse parses a spec given as YAML lines.
func parse(t testing.TB, lines ...string) *spec.Spec {
	t.Helper()
	s, err := spec.Parse("idem.yaml", []byte(strings.Join(lines, "\n")+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestGenerateDeterministic(t *testing.T) {
	for _, name := range goldenCases(t) {
		s := loadCase(t, name)
		first, err := Generate(s)
		if err != nil {
			t.Fatal(err)
		}
		for _, procs := range []int{1, 4} {
			prev := runtime.GOMAXPROCS(procs)
			again, err := Generate(s)
			runtime.GOMAXPROCS(prev)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(first, again) {
				t.Errorf("%s: Generate with GOMAXPROCS=%d gave other files", name, procs)
			}
		}
	}
}

func TestGenerateNameCollisions(t *testing.T) {
	s := parse(t,
		"version: 1",
		"package: p",
		"consumers:",
		"  - name: x",
		"    topic: t",
		"    message: {fields: {id: string}}",
		"    key: [id]",
		"    effect: redis",
		"  - name: x_consumer",
		"    message: {fields: {id: string}}",
		"    key: [id]",
		"    effect: redis",
		"  - name: x_topic",
		"    message: {fields: {id: string}}",
		"    key: [id]",
		"    effect: redis",
	)
	_, err := Generate(s)
	var list spec.ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("Generate: %v, want a spec.ErrorList", err)
	}
	want := []string{
		`idem.yaml:9:5: consumers[1].name: Go name XConsumer (its message type) collides with the consumer name constant of consumers[0] "x"; rename one of them`,
		`idem.yaml:13:5: consumers[2].name: Go name XTopic (its message type) collides with the topic constant of consumers[0] "x"; rename one of them`,
	}
	if got := strings.Split(err.Error(), "\n"); !reflect.DeepEqual(got, want) {
		t.Errorf("errors:\n%s\nwant:\n%s", err, strings.Join(want, "\n"))
	}
}

// TestGenerateWideNameCollisions: a consumer may not take a name of the
// package-wide API (Effects, Stores, Handlers, NewHandlers, Service, the
// Handlers.Topics method).
func TestGenerateWideNameCollisions(t *testing.T) {
	tests := []struct {
		name string
		want string
	}{
		{"effects", "Go name Effects (its message type) collides with the interface of the effects, Effects, that idemgen declares for the package; rename the consumer"},
		{"stores", "Go name Stores (its message type) collides with the struct of the stores, Stores, that idemgen declares for the package; rename the consumer"},
		{"handlers", "Go name Handlers (its message type) collides with the struct of the handlers, Handlers, that idemgen declares for the package; rename the consumer"},
		{"new_handlers", "Go name NewHandlers (its message type) collides with the constructor of the handlers, NewHandlers, that idemgen declares for the package; rename the consumer"},
		{"service", "Go name Service (its message type) collides with the struct of the effects' stub, Service, that idemgen declares for the package; rename the consumer"},
		{"topics", "Go name Topics (its field of Handlers) collides with the method Handlers.Topics idemgen declares; rename the consumer"},
		{"effect", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := parse(t,
				"version: 1",
				"package: p",
				"consumers:",
				"  - name: "+tt.name,
				"    message: {fields: {id: string}}",
				"    key: [id]",
				"    effect: redis",
			)
			_, err := Generate(s)
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Generate: %v", err)
				}
				return
			}
			want := "idem.yaml:4:5: consumers[0].name: " + tt.want
			if err == nil || err.Error() != want {
				t.Errorf("Generate: %v\nwant %s", err, want)
			}
		})
	}
}

func TestGenerateUnresolvedType(t *testing.T) {
	s := parse(t,
		"version: 1",
		"package: p",
		"consumers:",
		"  - name: x",
		"    message: {type: example.com/m/events.E}",
		"    key: [id]",
		"    effect: redis",
	)
	if _, err := Generate(s); err == nil || !strings.Contains(err.Error(), "not resolved") {
		t.Errorf("Generate of an unresolved message.type: %v", err)
	}
}

func TestNoMigrationsWithoutSQL(t *testing.T) {
	s := parse(t,
		"version: 1",
		"package: p",
		"dialect: postgres",
		"consumers:",
		"  - name: x",
		"    message: {fields: {id: string}}",
		"    key: [id]",
		"    effect: external",
		"    store: redis",
	)
	files, err := Generate(s)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Mode == ModeMigration {
			t.Errorf("migration %s for a spec without SQL consumers", f.Path)
		}
	}
}

func TestMigrationSteps(t *testing.T) {
	up := []string{"CREATE TABLE t (a int)", "CREATE INDEX t_a ON t (a)"}
	down := []string{"DROP TABLE t"}
	mig := func(format string) spec.Migrations { return spec.Migrations{Dir: "m", Format: format, Version: 7} }

	// One migration for all statements, except golang-migrate on MySQL.
	for _, c := range []struct{ format, dialect string }{
		{spec.FormatGolangMigrate, spec.DialectPostgres},
		{spec.FormatGoose, spec.DialectMySQL},
		{spec.FormatPlain, spec.DialectMySQL},
	} {
		steps := migrationSteps(mig(c.format), c.dialect, "t", up, down)
		want := []migrationStep{{7, "create_t", up, down}}
		if !reflect.DeepEqual(steps, want) {
			t.Errorf("%s %s: %+v, want %+v", c.format, c.dialect, steps, want)
		}
	}
	steps := migrationSteps(mig(spec.FormatGolangMigrate), spec.DialectMySQL, "t", up, down)
	want := []migrationStep{
		{7, "create_t", up[:1], down},
		{8, "create_t_2", up[1:], nil},
	}
	if !reflect.DeepEqual(steps, want) {
		t.Errorf("golang-migrate mysql: %+v, want %+v", steps, want)
	}
	files, err := renderMigrations(mig(spec.FormatGolangMigrate), spec.DialectMySQL, "t", up, down)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, f.Path)
		if strings.Count(string(f.Data), ";\n") != 1 {
			t.Errorf("%s has not exactly one statement:\n%s", f.Path, f.Data)
		}
	}
	wantNames := []string{"m/000007_create_t.up.sql", "m/000007_create_t.down.sql", "m/000008_create_t_2.up.sql", "m/000008_create_t_2.down.sql"}
	if !reflect.DeepEqual(names, wantNames) {
		t.Errorf("files %v, want %v", names, wantNames)
	}
	if d := string(files[3].Data); !strings.Contains(d, "\nDO 0;\n") {
		t.Errorf("the down of the second MySQL step is not a no-op statement:\n%s", d)
	}
}

func TestDurationExpr(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
	}{
		{"168h", "168 * time.Hour"},
		{"1h", "time.Hour"},
		{"90m", "90 * time.Minute"},
		{"30s", "30 * time.Second"},
		{"1500ms", "1500 * time.Millisecond"},
		{"2us", "2 * time.Microsecond"},
		{"7ns", "time.Duration(7)"},
	} {
		d, err := time.ParseDuration(c.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := fmt.Sprintf("%#v", durationExpr(d)); got != c.want {
			t.Errorf("durationExpr(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}

func TestLowerName(t *testing.T) {
	for in, want := range map[string]string{
		"send_sms":         "sendSms",
		"deduct_inventory": "deductInventory",
		"api_url":          "apiURL",
		"id":               "id",
		"x2_id":            "x2ID",
	} {
		if got := lowerName(in); got != want {
			t.Errorf("lowerName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestGroupImports(t *testing.T) {
	in := "package p\n\nimport (\n\t\"context\"\n\t\"example.com/x\"\n\t\"fmt\"\n\tredis \"github.com/redis/go-redis/v9\"\n)\n\nvar _ = 1\n"
	want := "package p\n\nimport (\n\t\"context\"\n\t\"fmt\"\n\n\t\"example.com/x\"\n\tredis \"github.com/redis/go-redis/v9\"\n)\n\nvar _ = 1\n"
	if got := string(groupImports([]byte(in))); got != want {
		t.Errorf("groupImports:\n%s\nwant:\n%s", got, want)
	}
	for _, same := range []string{
		"package p\n\nimport \"fmt\"\n",
		"package p\n\nimport (\n\t\"context\"\n\t\"fmt\"\n)\n",
	} {
		if got := string(groupImports([]byte(same))); got != same {
			t.Errorf("groupImports changed %q to %q", same, got)
		}
	}
}

// TestGenerateRefusesHostileSpec: a Spec built or edited by a program (not
// through Parse) whose strings would break out of generated Go, comments,
// file names or SQL is refused with an error naming the setting, never
// rendered and never a panic.
func TestGenerateRefusesHostileSpec(t *testing.T) {
	tests := []struct {
		name string
		edit func(s *spec.Spec)
		want string
	}{
		{"migrations.dir with SQL", func(s *spec.Spec) { s.Migrations.Dir = "m\nDROP TABLE users;\n--" }, `migrations.dir: "m\nDROP TABLE users;\n--" is not a folder path`},
		{"output with a space", func(s *spec.Spec) { s.Output = "a b" }, `output: "a b" is not a folder path`},
		{"output absolute", func(s *spec.Spec) { s.Output = "/etc" }, `output: "/etc" must be relative`},
		{"package with code", func(s *spec.Spec) { s.Package = "p; import \"os\"" }, `package: "p; import \"os\"" is not a valid package name`},
		{"table with SQL", func(s *spec.Spec) { s.Table = "t; DROP TABLE users" }, `table: "t; DROP TABLE users" is not a SQL identifier`},
		{"unknown dialect", func(s *spec.Spec) { s.Dialect = "oracle" }, `dialect: unknown value "oracle"`},
		{"unknown format", func(s *spec.Spec) { s.Migrations.Format = "flyway" }, `migrations.format: unknown value "flyway"`},
		{"migration version", func(s *spec.Spec) { s.Migrations.Version = -1 }, `migrations.version: must be between 1 and`},
		{"consumer name with code", func(s *spec.Spec) { s.Consumers[0].Name = "x\"+os.Exit(1)+\"" }, `consumers[0].name: "x\"+os.Exit(1)+\"" is not snake_case`},
		{"topic with a newline", func(s *spec.Spec) { s.Consumers[0].Topic = "t\n*/ func init() {}" }, `consumers[0].topic: "t\n*/ func init() {}" is not a topic name`},
		{"field name with a verb", func(s *spec.Spec) { s.Consumers[0].Message.Fields[0].Name = "id%d" }, `consumers[0].message.fields[0]: "id%d" is not a valid field name`},
		{"unknown field type", func(s *spec.Spec) { s.Consumers[0].Message.Fields[0].Type = "complex128" }, `consumers[0].message.fields[0].type: unknown value "complex128"`},
		{"key not in the message", func(s *spec.Spec) { s.Consumers[0].Key = []string{"nope"} }, `consumers[0].key[0]: field "nope" is not in the message`},
		{"no key", func(s *spec.Spec) { s.Consumers[0].Key = nil }, `consumers[0].key: list at least one field`},
		{"float key", func(s *spec.Spec) { s.Consumers[0].Message.Fields[0].Type = "float64" }, `consumers[0].key[0]: field "id" has type float64, which cannot be part of a key`},
		{"hash tag elsewhere", func(s *spec.Spec) { s.Consumers[0].HashTag = "id" }, `consumers[0].hash_tag: hash_tag applies only to effect: redis`},
		{"unknown effect", func(s *spec.Spec) { s.Consumers[0].Effect = "kafka" }, `consumers[0].effect: unknown value "kafka"`},
		{"no consumers", func(s *spec.Spec) { s.Consumers = nil }, `consumers: list at least one consumer`},
		{"retention below the minimum", func(s *spec.Spec) { s.Retention = 168 }, `retention: 168ns is below the minimum of 1m; did you mean 168h?`},
		{"consumer retention below the minimum", func(s *spec.Spec) { s.Consumers[0].Retention = time.Second }, `consumers[0].retention: 1s is below the minimum of 1m`},
		{"lease below the minimum", func(s *spec.Spec) {
			c := &s.Consumers[0]
			c.Effect, c.Store, c.Delivery, c.OnError, c.Lease = "external", "sql", "at-least-once", "release", 30*time.Millisecond
		}, `consumers[0].lease: 30ms is below the minimum of 1s; did you mean 30s?`},
		{"lease not below the retention", func(s *spec.Spec) {
			c := &s.Consumers[0]
			c.Effect, c.Store, c.Delivery, c.OnError, c.Lease, c.Retention = "external", "sql", "at-least-once", "release", time.Hour, time.Hour
		}, `consumers[0].lease: lease 1h must be shorter than the retention (1h)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := parse(t,
				"version: 1",
				"package: p",
				"dialect: sqlite",
				"consumers:",
				"  - name: x",
				"    topic: orders.created",
				"    message: {fields: {id: string, n: int64}}",
				"    key: [id]",
				"    effect: sql",
			)
			tt.edit(s)
			files, err := Generate(s)
			var list spec.ErrorList
			if !errors.As(err, &list) || files != nil {
				t.Fatalf("Generate = %d files, %v; want a spec.ErrorList", len(files), err)
			}
			if !strings.Contains(err.Error(), "idem.yaml") || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error:\n%v\nwant it to contain %q", err, tt.want)
			}
		})
	}
}

// TestDocComments: whatever text reaches a doc comment stays in // line
// comments: no line jennifer would write raw or as a /* block */, no
// control character.
func TestDocComments(t *testing.T) {
	var got []string
	doc(func(c jen.Code) { got = append(got, fmt.Sprintf("%#v", c)) }, "/* opens a block\n\nx */ closes one \x1b[2J\u2028 and\n\tcode */ /*")
	want := []string{
		"// /* opens a block",
		"//",
		`// x */ closes one \x1b[2J\u2028 and`,
		"//\tcode */ /*",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("doc wrote\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
