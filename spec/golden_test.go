package spec

import (
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the .stderr golden files of testdata/**/invalid")

// invalidSpecs lists the bad specs: testdata/invalid/*.yaml (caught by
// Parse) and testdata/shop/invalid/*.yaml (inside a module of their own,
// caught by Resolve or by the module boundary).
func invalidSpecs(t testing.TB) []string {
	t.Helper()
	var files []string
	for _, pattern := range []string{"testdata/invalid/*.yaml", "testdata/shop/invalid/*.yaml"} {
		m, err := filepath.Glob(pattern)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 20 {
		t.Fatalf("found %d invalid specs, want at least 20", len(files))
	}
	return files
}

// caseName is the name of a bad spec in test names and tables:
// "key_lists", "shop/type_fields".
func caseName(file string) string {
	name := strings.TrimSuffix(filepath.Base(file), ".yaml")
	if strings.Contains(filepath.ToSlash(file), "/shop/") {
		return "shop/" + name
	}
	return name
}

// TestInvalid loads every bad spec and compares the complete error text,
// positions included, with its .stderr file (go test ./spec -update
// rewrites them).
func TestInvalid(t *testing.T) {
	for _, file := range invalidSpecs(t) {
		t.Run(caseName(file), func(t *testing.T) {
			s, err := Load(file)
			if err == nil {
				t.Fatalf("Load(%s) = %+v, want an error", file, s)
			}
			var list ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("Load(%s) error is %T, want ErrorList: %v", file, err, err)
			}
			for _, e := range list {
				if e.Pos.File != file {
					t.Errorf("error %q names file %q, want %q", e, e.Pos.File, file)
				}
			}
			got := err.Error() + "\n"
			golden := strings.TrimSuffix(file, ".yaml") + ".stderr"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./spec -update)", err)
			}
			if got != string(want) {
				t.Errorf("Load(%s) errors:\n%s\nwant (%s):\n%s", file, got, golden, want)
			}
		})
	}
}

// TestAllErrorsAtOnce checks that one run reports every problem: five
// different mistakes give five lines, in file order.
func TestAllErrorsAtOnce(t *testing.T) {
	_, err := Load("testdata/invalid/five_errors.yaml")
	var list ErrorList
	if !errors.As(err, &list) {
		t.Fatalf("error %v (%T), want ErrorList", err, err)
	}
	want := []string{"dialect", "consumers[0].key[1]", "consumers[0].lease", "consumers[1].delivery", "consumers[1]"}
	if len(list) != len(want) {
		t.Fatalf("got %d errors, want %d:\n%v", len(list), len(want), err)
	}
	if lines := strings.Split(err.Error(), "\n"); len(lines) != len(want) {
		t.Errorf("Error() has %d lines, want %d", len(lines), len(want))
	}
	for i, e := range list {
		if e.Path != want[i] {
			t.Errorf("error %d: path %q, want %q (%v)", i, e.Path, want[i], e)
		}
		if i > 0 && e.Pos.Line <= list[i-1].Pos.Line {
			t.Errorf("errors not sorted by position: %v after %v", e, list[i-1])
		}
	}
	var one *Error
	if !errors.As(err, &one) || one != list[0] {
		t.Errorf("errors.As(*Error) = %v, want the first error", one)
	}
}

func TestErrorFormat(t *testing.T) {
	e := &Error{Pos: Position{File: "idem.yaml", Line: 14, Col: 12}, Path: "consumers[1].key[0]", Msg: `field "sku" is not declared in message`}
	if got, want := e.Error(), `idem.yaml:14:12: consumers[1].key[0]: field "sku" is not declared in message`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	e = &Error{Pos: Position{File: "idem.yaml", Line: 3, Col: 1}, Msg: "yaml: did not find expected key"}
	if got, want := e.Error(), "idem.yaml:3:1: yaml: did not find expected key"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	e = &Error{Pos: Position{File: "idem.yaml"}, Msg: "yaml: control characters are not allowed"}
	if got, want := e.Error(), "idem.yaml: yaml: control characters are not allowed"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	l := ErrorList{e, e}
	if got, want := l.Error(), e.Error()+"\n"+e.Error(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestSyntaxErrorWithoutLine covers yaml.v3 errors that carry no line.
func TestSyntaxErrorWithoutLine(t *testing.T) {
	_, err := Parse("idem.yaml", []byte("version: 1\npackage: \x01\n"))
	if got, want := err.Error(), "idem.yaml: yaml: control characters are not allowed"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestLoadMissingFile(t *testing.T) {
	_, err := Load("testdata/nope.yaml")
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("got %v, want a not-exist error", err)
	}
}
