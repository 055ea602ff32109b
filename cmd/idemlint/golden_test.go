package main_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestGeneratedCode runs idemlint over the Go code of every idemgen golden
// case (testdata/gen/*/want), copied into a module that replaces
// github.com/idemkit/idem with this repository: generated handlers and
// their apply stubs must give no finding. Cases whose code needs packages
// outside the repository (message types of a user's module) are skipped.
func TestGeneratedCode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a binary and loads the golden cases")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cases, _ := filepath.Glob(filepath.Join(root, "testdata/gen/*/want"))
	if len(cases) == 0 {
		t.Skip("no golden cases")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "idemlint")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	mod := filepath.Join(dir, "golden")
	gomod := "module example.com/golden\n\ngo 1.26\n\nrequire github.com/idemkit/idem v0.0.0\n\nreplace github.com/idemkit/idem => " + root + "\n"
	must(t, os.MkdirAll(mod, 0o755))
	must(t, os.WriteFile(filepath.Join(mod, "go.mod"), []byte(gomod), 0o644))
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	must(t, err)
	must(t, os.WriteFile(filepath.Join(mod, "go.sum"), sum, 0o644))
	env := append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOPROXY=off")
	var pkgs []string
	for _, c := range cases {
		name := filepath.Base(filepath.Dir(c))
		var files []string
		filepath.WalkDir(c, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") {
				files = append(files, p)
			}
			return nil
		})
		if len(files) == 0 {
			continue
		}
		for _, f := range files {
			rel, _ := filepath.Rel(c, f)
			dst := filepath.Join(mod, name, rel)
			must(t, os.MkdirAll(filepath.Dir(dst), 0o755))
			b, err := os.ReadFile(f)
			must(t, err)
			must(t, os.WriteFile(dst, b, 0o644))
		}
		build := exec.Command("go", "build", "./"+name+"/...")
		build.Dir, build.Env = mod, env
		if out, err := build.CombinedOutput(); err != nil {
			t.Logf("skipping %s: it does not build on its own: %s", name, firstLine(string(out)))
			os.RemoveAll(filepath.Join(mod, name))
			continue
		}
		pkgs = append(pkgs, "./"+name+"/...")
	}
	if len(pkgs) == 0 {
		t.Skip("no golden case builds on its own")
	}
	cmd := exec.Command(bin, pkgs...)
	cmd.Dir, cmd.Env = mod, env
	out, err := cmd.CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Errorf("idemlint over %d golden cases: %v\n%s", len(pkgs), err, out)
	}
	t.Logf("%d golden cases: no finding", len(pkgs))
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}
