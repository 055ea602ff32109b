package generator

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/lockedfile"
	"golang.org/x/mod/modfile"
)

// TestGoldenCompiles builds and vets the golden output of every case: one
// temporary module (example.com/gencase) holds each case's Go output as a
// package of its own, together with the hand-written Go files of the case's
// output folder; it replaces github.com/idemkit/idem with this checkout, and
// a case with a go.mod of its own (message.type) with that folder. The
// requirements and go.sum are the repository's, and the go command runs
// offline (GOPROXY=off), from the module cache.
func TestGoldenCompiles(t *testing.T) {
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not available")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	repoMod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	repo, err := modfile.Parse("go.mod", repoMod, nil)
	if err != nil {
		t.Fatal(err)
	}
	// A folder of a fixed name (per checkout), locked while in use, so that
	// the go command's cache, which keys compiled packages by their folder,
	// serves repeated runs: compiling a package that imports redisguard
	// costs seconds.
	tmp := filepath.Join(os.TempDir(), fmt.Sprintf("idem-gencase-%x", sha256.Sum256([]byte(root)))[:len("idem-gencase-")+12])
	unlock, err := lockedfile.MutexAt(tmp + ".lock").Lock()
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if err := os.RemoveAll(tmp); err != nil {
		t.Fatal(err)
	}
	mod := new(modfile.File)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(mod.AddModuleStmt("example.com/gencase"))
	must(mod.AddGoStmt(repo.Go.Version))
	must(mod.AddRequire(repo.Module.Mod.Path, "v0.0.0"))
	must(mod.AddReplace(repo.Module.Mod.Path, "", root, ""))
	for _, r := range repo.Require {
		must(mod.AddRequire(r.Mod.Path, r.Mod.Version))
	}

	for _, name := range goldenCases(t) {
		caseDir, err := filepath.Abs(filepath.Join(casesDir, name))
		if err != nil {
			t.Fatal(err)
		}
		s := loadCase(t, name)
		pkgDir := filepath.Join(tmp, name, filepath.FromSlash(s.Output))
		for p, data := range readTree(t, filepath.Join(caseDir, "want")) {
			if strings.HasSuffix(p, ".go") {
				writeFile(t, filepath.Join(tmp, name, filepath.FromSlash(p)), data)
			}
		}
		// The case's own files in the output folder (message types of the
		// generated package itself).
		own, _ := filepath.Glob(filepath.Join(caseDir, filepath.FromSlash(s.Output), "*.go"))
		for _, p := range own {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(pkgDir, filepath.Base(p)), data)
		}
		if data, err := os.ReadFile(filepath.Join(caseDir, "go.mod")); err == nil {
			path := modfile.ModulePath(data)
			must(mod.AddRequire(path, "v0.0.0"))
			must(mod.AddReplace(path, "", caseDir, ""))
		}
	}
	mod.Cleanup()
	data, err := mod.Format()
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(tmp, "go.mod"), data)
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(tmp, "go.sum"), sum)

	env := append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local")
	for _, args := range [][]string{{"build", "./..."}, {"vet", "./..."}} {
		cmd := exec.Command(goCmd, args...)
		cmd.Dir = tmp
		cmd.Env = env
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		start := time.Now()
		err := cmd.Run()
		t.Logf("go %s: %v", strings.Join(args, " "), time.Since(start).Round(time.Millisecond))
		if err != nil {
			t.Fatalf("go %s in the module of the golden output: %v\n%s", strings.Join(args, " "), err, out.String())
		}
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o666); err != nil {
		t.Fatal(fmt.Errorf("writing %s: %w", path, err))
	}
}
