package spec

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse: Parse never panics, returns either a spec or an ErrorList of
// positioned one-line errors, and a spec it accepts passes the JSON Schema
// too (the schema is never stricter than Parse).
func FuzzParse(f *testing.F) {
	for _, pattern := range []string{"testdata/*/*.yaml", "testdata/*.yaml", "testdata/shop/*/*.yaml"} {
		files, _ := filepath.Glob(pattern)
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Add([]byte("version: 1\nconsumers: [{<<: {<<: *a}}]\n"))
	f.Add([]byte("a: &a {b: *a}\nversion: 1\nconsumers: [*a]\n"))
	sch := compileSchema(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.yaml", data)
		if err != nil {
			var list ErrorList
			if !errors.As(err, &list) || len(list) == 0 {
				t.Fatalf("error %v (%T) is not a non-empty ErrorList", err, err)
			}
			for _, e := range list {
				if e.Msg == "" || e.Pos.File != "fuzz.yaml" || strings.Contains(e.Error(), "\n") {
					t.Fatalf("bad error %q", e.Error())
				}
			}
			return
		}
		if s == nil || s.Version != 1 || len(s.Consumers) == 0 || s.Package == "" {
			t.Fatalf("accepted an incomplete spec: %+v", s)
		}
		for _, c := range s.Consumers {
			if c.Name == "" || len(c.Key) == 0 || c.Effect == "" {
				t.Fatalf("accepted an incomplete consumer: %+v", c)
			}
		}
		if err := schemaCheck(sch, data); err != nil {
			t.Fatalf("Parse accepts, the schema rejects:\n%s\n%v", data, err)
		}
	})
}
