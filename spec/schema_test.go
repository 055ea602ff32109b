package spec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/idemkit/idem/spec/modfs"
)

// compileSchema compiles the embedded schema; compiling also validates it
// against the draft 2020-12 meta-schema.
func compileSchema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Schema))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	const url = "https://raw.githubusercontent.com/idemkit/idem/main/spec/idem.schema.json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

// yamlToJSON converts a YAML spec into the values a JSON Schema validator
// sees: the first document, merge keys applied, dates kept as text (as Parse
// reads them), other tags as an invalid value.
func yamlToJSON(data []byte) (any, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	if len(doc.Content) == 0 {
		return nil, nil
	}
	return jsonValue(doc.Content[0], 0)
}

func jsonValue(n *yaml.Node, depth int) (any, error) {
	if depth > 64 {
		return nil, errors.New("nested too deeply (an anchor that contains itself?)")
	}
	n = deref(n)
	switch n.Kind {
	case yaml.MappingNode:
		m := map[string]any{}
		var merges []*yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := deref(n.Content[i])
			if k.Kind == yaml.ScalarNode && k.ShortTag() == "!!merge" {
				merges = append(merges, deref(n.Content[i+1]))
				continue
			}
			if k.Kind != yaml.ScalarNode {
				return nil, fmt.Errorf("line %d: a key that is not a scalar", k.Line)
			}
			if _, dup := m[k.Value]; dup {
				return nil, fmt.Errorf("line %d: duplicate key %q", k.Line, k.Value)
			}
			v, err := jsonValue(n.Content[i+1], depth+1)
			if err != nil {
				return nil, err
			}
			m[k.Value] = v
		}
		for _, mv := range merges {
			sources := []*yaml.Node{mv}
			if mv.Kind == yaml.SequenceNode {
				sources = mv.Content
			}
			for _, src := range sources {
				v, err := jsonValue(src, depth+1)
				if err != nil {
					return nil, err
				}
				sm, ok := v.(map[string]any)
				if !ok {
					return nil, fmt.Errorf("line %d: merge of a non-mapping", src.Line)
				}
				for k, v := range sm {
					if _, ok := m[k]; !ok {
						m[k] = v
					}
				}
			}
		}
		return m, nil
	case yaml.SequenceNode:
		s := []any{}
		for _, c := range n.Content {
			v, err := jsonValue(c, depth+1)
			if err != nil {
				return nil, err
			}
			s = append(s, v)
		}
		return s, nil
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!str", "!!timestamp":
			return n.Value, nil
		case "!!null":
			return nil, nil
		case "!!bool":
			var b bool
			err := n.Decode(&b)
			return b, err
		case "!!int":
			var v any
			if err := n.Decode(&v); err != nil {
				return nil, err
			}
			return v, nil
		case "!!float":
			var f float64
			err := n.Decode(&f)
			return f, err
		}
	}
	return struct{}{}, nil // a value JSON does not have: every schema type rejects it
}

// schemaCheck validates a YAML spec against the schema; a file that does
// not convert to JSON values (syntax errors, duplicate keys) fails too.
func schemaCheck(sch *jsonschema.Schema, data []byte) error {
	v, err := yamlToJSON(data)
	if err != nil {
		return fmt.Errorf("yaml: %w", err)
	}
	return sch.Validate(v)
}

// moduleDir is the root of this repository's module.
func moduleDir(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	root, ok, err := modfs.Root(wd)
	if err != nil || !ok {
		t.Fatal("no go.mod above", wd)
	}
	return root
}

// isSpec tells idem specs from other YAML files (CI configs, compose files).
func isSpec(path string, data []byte) bool {
	if filepath.Base(path) == "idem.yaml" || filepath.Base(path) == "idem.yml" {
		return true
	}
	var top map[string]any
	if yaml.Unmarshal(data, &top) != nil {
		return false
	}
	_, consumers := top["consumers"]
	_, version := top["version"]
	return consumers && version
}

// TestSchemaAcceptsSpecs validates every spec under a testdata/ or examples/
// folder of the repository that Parse accepts: a spec the tool takes must
// never be flagged in an editor. (Specs Parse rejects are compared in
// TestSchemaAgreesOnInvalid.)
func TestSchemaAcceptsSpecs(t *testing.T) {
	sch := compileSchema(t)
	root := moduleDir(t)
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "vendor" || d.Name() == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if ext := filepath.Ext(path); ext != ".yaml" && ext != ".yml" {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		parts := strings.Split(filepath.ToSlash(rel), "/")
		if !slices.Contains(parts, "testdata") && !slices.Contains(parts, "examples") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if !isSpec(path, data) {
			return nil
		}
		if _, err := Parse(path, data); err != nil {
			t.Logf("skipped %s: Parse rejects it", rel)
			return nil
		}
		n++
		if err := schemaCheck(sch, data); err != nil {
			t.Errorf("%s: Parse accepts it, the schema does not:\n%v", rel, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 7 {
		t.Errorf("validated %d specs, want at least the 7 of spec/testdata", n)
	}
}

// goOnly lists the bad specs that only the Go validation rejects, and why the
// schema cannot: every other bad spec must be rejected by both.
var goOnly = map[string]string{
	"consumer_duplicate":   "unique consumer names: uniqueItems compares whole objects, not one property",
	"name_collision":       "generated Go names of different consumers (x vs x_handler, a_1 vs a1) collide",
	"field_collision":      "field names that collide as Go names (a_b vs a__b) or take a generated method's name",
	"key_undeclared":       "key, fingerprint and hash_tag name fields of the same consumer's message: a cross-reference, and float64/bytes depend on the field's declared type",
	"lease_retention":      "lease < retention compares two durations, possibly from different levels",
	"durations_minimum":    "minimum durations (retention 1m, lease 1s) compare values written in any unit",
	"table_reserved":       "reserved words of SQL in any case: a list JSON Schema patterns cannot match case-insensitively",
	"multi_document":       "a second YAML document: schema validators check each document on its own",
	"paths_escape":         "whether a relative path leaves the module depends on where go.mod is",
	"shop/output_escape":   "whether a relative path leaves the module depends on where go.mod is",
	"shop/package_missing": "message.type is resolved with go/packages",
	"shop/type_missing":    "message.type is resolved with go/packages",
	"shop/type_fields":     "message.type is resolved with go/packages",
}

// TestSchemaAgreesOnInvalid runs the schema on every bad spec: it must
// reject each one, except those listed in goOnly, which it must accept (so
// the list stays honest).
func TestSchemaAgreesOnInvalid(t *testing.T) {
	sch := compileSchema(t)
	seen := map[string]bool{}
	for _, file := range invalidSpecs(t) {
		name := caseName(file)
		seen[name] = true
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			schemaErr := schemaCheck(sch, data)
			if reason, ok := goOnly[name]; ok {
				if schemaErr != nil {
					t.Errorf("listed as Go-only (%s), but the schema rejects it too:\n%v", reason, schemaErr)
				}
				return
			}
			if schemaErr == nil {
				t.Errorf("Parse rejects %s, the schema accepts it", file)
			}
		})
	}
	for name := range goOnly {
		if !seen[name] {
			t.Errorf("goOnly lists %q, which is not a bad spec in testdata", name)
		}
	}
}

// TestSchemaMatchesGo keeps the schema's enums, patterns and defaults in
// step with the Go constants.
func TestSchemaMatchesGo(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(Schema, &doc); err != nil {
		t.Fatal(err)
	}
	get := func(path ...string) any {
		var v any = doc
		for _, p := range path {
			m, ok := v.(map[string]any)
			if !ok {
				t.Fatalf("schema has no %s", strings.Join(path, "."))
			}
			v = m[p]
		}
		return v
	}
	strs := func(v any) []string {
		var out []string
		for _, x := range v.([]any) {
			out = append(out, x.(string))
		}
		return out
	}
	consumer := []string{"$defs", "consumer", "properties"}
	for _, c := range []struct {
		path []string
		want any
	}{
		{[]string{"properties", "sql_package", "enum"}, sqlPackages},
		{[]string{"properties", "dialect", "enum"}, dialects},
		{[]string{"properties", "migrations", "properties", "format", "enum"}, formats},
		{append(consumer, "effect", "enum"), effects},
		{append(consumer, "store", "enum"), stores},
		{append(consumer, "delivery", "enum"), deliveries},
		{append(consumer, "on_error", "enum"), onErrors},
		{[]string{"$defs", "message", "properties", "fields", "additionalProperties", "enum"}, fieldTypes},
		{[]string{"properties", "package", "pattern"}, packageName.String()},
		{[]string{"properties", "table", "pattern"}, tableName.String()},
		{append(consumer, "name", "pattern"), consumerName.String()},
		{[]string{"$defs", "message", "properties", "fields", "propertyNames", "pattern"}, fieldName.String()},
		{[]string{"$defs", "message", "properties", "fields", "propertyNames", "maxLength"}, float64(maxFieldName)},
		{[]string{"$defs", "fieldRef", "pattern"}, fieldName.String()},
		{[]string{"$defs", "fieldRef", "maxLength"}, float64(maxFieldName)},
		{[]string{"$defs", "dir", "pattern"}, folderPath.String()},
		{[]string{"$defs", "dir", "maxLength"}, float64(maxFolder)},
		{append(consumer, "topic", "pattern"), topicName.String()},
		{append(consumer, "topic", "maxLength"), float64(maxTopic)},
		{[]string{"properties", "output", "default"}, DefaultOutput},
		{[]string{"properties", "sql_package", "default"}, DefaultSQLPackage},
		{[]string{"properties", "table", "default"}, DefaultTable},
		{[]string{"properties", "migrations", "properties", "dir", "default"}, DefaultMigrationsDir},
		{[]string{"properties", "migrations", "properties", "format", "default"}, DefaultMigrationsFormat},
		{[]string{"properties", "migrations", "properties", "version", "default"}, float64(DefaultMigrationsVersion)},
		{[]string{"properties", "retention", "default"}, fmtDuration(DefaultRetention)},
		{append(consumer, "store", "default"), DefaultStore},
		{append(consumer, "lease", "default"), fmtDuration(DefaultLease)},
		{append(consumer, "delivery", "default"), DefaultDelivery},
		{append(consumer, "on_error", "default"), DefaultOnError},
		{append(consumer, "name", "maxLength"), float64(maxConsumerName)},
		{append(consumer, "key_version", "default"), float64(DefaultKeyVersion)},
		{append(consumer, "key_version", "minimum"), float64(1)},
		{[]string{"properties", "version", "const"}, float64(Version)},
	} {
		got := get(c.path...)
		if _, ok := c.want.([]string); ok {
			got = strs(got)
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("schema %s = %v, Go has %v", strings.Join(c.path, "."), got, c.want)
		}
	}
	if got := strs(get("properties", "package", "not", "enum")); len(got) != 25 {
		t.Errorf("schema lists %d Go keywords, want 25", len(got))
	}
	file, err := os.ReadFile("idem.schema.json")
	if err != nil || !bytes.Equal(file, Schema) {
		t.Errorf("Schema differs from idem.schema.json (%v)", err)
	}
}
