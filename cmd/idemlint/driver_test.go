package main_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// idemlint builds the command once for the tests of this file.
func idemlint(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds a binary and runs go vet")
	}
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "idemlint-test")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "idemlint")
		if out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// writeModule writes files (path → content) under a new module
// example.com/m and returns its directory.
func writeModule(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	files["go.mod"] = "module example.com/m\n\ngo 1.26\n"
	for name, content := range files {
		p := filepath.Join(dir, name)
		must(t, os.MkdirAll(filepath.Dir(p), 0o755))
		must(t, os.WriteFile(p, []byte(content), 0o644))
	}
	return dir
}

// A module with findings in a package (a), its in-package and external
// tests, and a package importing it (b); clean has none, but imports a;
// leaf has none and imports nothing. The effect and
// handlers are marked, so that the module needs no other package.
var testModule = map[string]string{
	"a/a.go": `package a

//idem:effect
func Write(s string) {}

//idem:handler
func Handle(msg string) { Write(msg) }
`,
	"a/a_test.go": `package a

//idem:handler
func handleInTest(msg string) { Write(msg) }
`,
	"a/x_test.go": `package a_test

import "example.com/m/a"

//idem:handler
func HandleX(msg string) { a.Write(msg) }
`,
	"b/b.go": `package b

import "example.com/m/a"

//idem:handler
func HandleB(msg string) { a.Write(msg) }
`,
	"leaf/leaf.go": "package leaf\n\nfunc F() {}\n",
	"clean/clean.go": `package clean

import "example.com/m/a"

func NotAHandler(msg string) { a.Write(msg) }
`,
}

const (
	findA     = "a/a.go:7:32: effect a.Write in handler Handle is not guarded by a dedup check (IDEM001)"
	findATest = "a/a_test.go:4:38: effect a.Write in handler handleInTest is not guarded by a dedup check (IDEM001)"
	findX     = "a/x_test.go:6:35: effect a.Write in handler HandleX is not guarded by a dedup check (IDEM001)"
	findB     = "b/b.go:6:35: effect a.Write in handler HandleB is not guarded by a dedup check (IDEM001)"
)

type result struct {
	stdout, stderr string
	code           int
}

// run runs name with args in dir with a GOCACHE of its own (gocache), and
// extra environment.
func run(t testing.TB, dir, gocache string, env []string, name string, args ...string) result {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOCACHE="+gocache, "IDEMLINT_DRIVER=", "IDEMLINT_CACHE="+filepath.Join(gocache, "idemlint"))
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return result{stdout.String(), stderr.String(), code}
}

// findings returns the finding lines of plain output (not related
// positions), relative to dir, sorted.
func findings(dir, out string) []string {
	var fs []string
	for _, l := range strings.Split(out, "\n") {
		l = strings.TrimPrefix(l, dir+string(filepath.Separator))
		if strings.HasSuffix(l, ")") && regexp.MustCompile(`^\S+\.go:\d+:\d+: [^\t]`).MatchString(l) {
			fs = append(fs, l)
		}
	}
	slices.Sort(fs)
	return fs
}

// goWrapper returns a PATH whose go command logs its arguments to the
// returned file, then runs the real one.
func goWrapper(t *testing.T) (path, log string) {
	t.Helper()
	real, err := exec.LookPath("go")
	must(t, err)
	dir := t.TempDir()
	log = filepath.Join(dir, "go.log")
	script := "#!/bin/sh\necho \"$*\" >>" + log + "\nexec " + real + " \"$@\"\n"
	must(t, os.WriteFile(filepath.Join(dir, "go"), []byte(script), 0o755))
	return dir + string(os.PathListSeparator) + os.Getenv("PATH"), log
}

// TestStandalone runs idemlint standalone over testModule: through go vet
// by default, through the go/packages driver when asked to.
func TestStandalone(t *testing.T) {
	bin := idemlint(t)
	dir := writeModule(t, maps(testModule))
	gocache := t.TempDir()
	path, log := goWrapper(t)

	for _, tc := range []struct {
		name     string
		env      []string
		args     []string
		want     []string
		code     int
		driver   string // "vet" or "packages": which go subcommand must have run
		list     bool   // with driver "vet": go list ran (only when go vet's output has findings, dependencies' included)
		repeated bool   // the same run again (warm cache) gives the same
	}{
		{name: "all", args: []string{"-modular", "./..."}, want: []string{findA, findATest, findX, findB}, code: 3, driver: "vet", list: true, repeated: true},
		{name: "a", args: []string{"-modular", "./a"}, want: []string{findA, findATest, findX}, code: 3, driver: "vet", list: true},
		{name: "b only, not its dependency", args: []string{"-modular", "./b"}, want: []string{findB}, code: 3, driver: "vet", list: true},
		{name: "clean", args: []string{"-modular", "./clean"}, code: 0, driver: "vet", list: true, repeated: true}, // a's finding is in go vet's output
		{name: "analyzer flag", args: []string{"-modular", "-effects=example.com/m/a.Handle", "./clean"}, code: 0, driver: "vet", list: true},
		{name: "no finding anywhere", args: []string{"-modular", "./leaf"}, code: 0, driver: "vet", repeated: true},
		{name: "IDEMLINT_DRIVER=vet", env: []string{"IDEMLINT_DRIVER=vet"}, args: []string{"./b"}, want: []string{findB}, code: 3, driver: "vet", list: true},
		{name: "packages driver", env: []string{"IDEMLINT_DRIVER=packages"}, args: []string{"./..."}, want: []string{findA, findATest, findX, findB}, code: 3, driver: "packages"},
		{name: "-modular -test=false", args: []string{"-modular", "-test=false", "./..."}, want: []string{findA, findB}, code: 3, driver: "packages"},
		{name: "packages driver, clean", env: []string{"IDEMLINT_DRIVER=packages"}, args: []string{"./clean"}, code: 0, driver: "packages"},
		// The whole-program driver (the default): tests only with -test.
		{name: "whole", args: []string{"./..."}, want: []string{findA, findB}, code: 3, driver: "whole", repeated: true},
		{name: "whole -test", args: []string{"-test", "./..."}, want: []string{findA, findATest, findX, findB}, code: 3, driver: "whole"},
		{name: "whole b only", args: []string{"./b"}, want: []string{findB}, code: 3, driver: "whole"},
		{name: "whole clean", args: []string{"./clean"}, code: 0, driver: "whole"},
		{name: "whole analyzer flag", args: []string{"-effects=example.com/m/a.Handle", "./clean"}, code: 0, driver: "whole"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(log)
			reps := 1
			if tc.repeated {
				reps = 2
			}
			for i := range reps {
				r := run(t, dir, gocache, append([]string{"PATH=" + path}, tc.env...), bin, tc.args...)
				got := findings(dir, r.stderr)
				if !slices.Equal(got, tc.want) || r.code != tc.code {
					t.Errorf("run %d: exit %d, findings\n\t%s\nwant exit %d,\n\t%s\nstderr:\n%s", i+1, r.code,
						strings.Join(got, "\n\t"), tc.code, strings.Join(tc.want, "\n\t"), r.stderr)
				}
				if r.stdout != "" {
					t.Errorf("run %d: output on stdout: %q", i+1, r.stdout)
				}
			}
			calls, _ := os.ReadFile(log)
			vet := regexp.MustCompile(`(?m)^vet -vettool=\S+ -json .*-vetx-report -- `).Match(calls)
			whole := regexp.MustCompile(`(?m)^list -e -json=.* -export=true `).Match(calls) && !vet
			if vet != (tc.driver == "vet") || whole != (tc.driver == "whole") {
				t.Errorf("driver: want %s; go was run as:\n%s", tc.driver, calls)
			}
			if list := regexp.MustCompile(`(?m)^list -e -find `).Match(calls); vet && list != tc.list {
				t.Errorf("go list run: %v, want %v; go was run as:\n%s", list, tc.list, calls)
			}
		})
	}

	// Each finding once, though a.go is analysed in a, in "a [a.test]",
	// and (as b's dependency) in a again.
	r := run(t, dir, gocache, nil, bin, "-modular", "./...")
	if n := strings.Count(r.stderr, findA); n != 1 {
		t.Errorf("%q reported %d times:\n%s", findA, n, r.stderr)
	}

	// The related position of a finding is printed after it, indented.
	if !regexp.MustCompile(regexp.QuoteMeta(findB) + "\n" + regexp.QuoteMeta(filepath.Join(dir, "a/a.go")) + `:\d+:\d+: \t\S`).MatchString(r.stderr) {
		t.Errorf("no related position after %q:\n%s", findB, r.stderr)
	}

	// go vet with -vetx-report reports b's dependency a too: the driver
	// drops it because a is not named.
	r = run(t, dir, gocache, nil, "go", "vet", "-vettool="+bin, "-json", "-vetx-report", "./b")
	if !strings.Contains(r.stdout, `"example.com/m/a"`) || !strings.Contains(r.stdout, "in handler Handle is") {
		t.Errorf("go vet -vetx-report ./b does not report dependency a:\n%s\n%s", r.stdout, r.stderr)
	}
}

// jsonTree is the -json output of the x/tools drivers.
type jsonTree map[string]map[string][]struct {
	Category string `json:"category"`
	Posn     string `json:"posn"`
	End      string `json:"end"`
	Message  string `json:"message"`
	Related  []struct {
		Posn, End, Message string
	} `json:"related"`
}

// TestJSON checks the shape of -json output through go vet against that
// of the go/packages driver: one object, package IDs as keys, each finding
// once.
func TestJSON(t *testing.T) {
	bin := idemlint(t)
	dir := writeModule(t, maps(testModule))
	gocache := t.TempDir()
	parse := func(r result) (jsonTree, []string) {
		t.Helper()
		dec := json.NewDecoder(strings.NewReader(r.stdout))
		var tree jsonTree
		if err := dec.Decode(&tree); err != nil {
			t.Fatalf("-json: %v\n%s\n%s", err, r.stdout, r.stderr)
		}
		if dec.More() {
			t.Errorf("-json: more than one object:\n%s", r.stdout)
		}
		var fs []string
		for id, byAnalyzer := range tree {
			for name, diags := range byAnalyzer {
				if name != "idemlint" {
					t.Errorf("%s: analyzer %q", id, name)
				}
				for _, d := range diags {
					if d.Category != "IDEM001" || d.End == "" {
						t.Errorf("%s: %+v", id, d)
					}
					fs = append(fs, strings.TrimPrefix(d.Posn, dir+"/")+": "+d.Message)
				}
			}
		}
		slices.Sort(fs)
		return tree, fs
	}

	r := run(t, dir, gocache, nil, bin, "-modular", "-json", "./...")
	if r.code != 0 {
		t.Errorf("-json with findings: exit %d, want 0\n%s", r.code, r.stderr)
	}
	tree, got := parse(r)
	if want := []string{findA, findATest, findX, findB}; !slices.Equal(got, want) {
		t.Errorf("-json findings:\n\t%s\nwant\n\t%s", strings.Join(got, "\n\t"), strings.Join(want, "\n\t"))
	}
	ids := make([]string, 0, len(tree))
	for id := range tree {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	// go vet's unit IDs are import paths, for test variants too.
	wantIDs := []string{"example.com/m/a", "example.com/m/a_test", "example.com/m/b"}
	if !slices.Equal(ids, wantIDs) {
		t.Errorf("package IDs %q, want %q", ids, wantIDs)
	}
	if len(tree["example.com/m/b"]["idemlint"][0].Related) == 0 {
		t.Errorf("no related position in b's finding:\n%s", r.stdout)
	}

	// The go/packages driver: the same findings (under its package IDs,
	// "example.com/m/a [example.com/m/a.test]" …, a.go's in both a and
	// its test variant).
	r = run(t, dir, gocache, []string{"IDEMLINT_DRIVER=packages"}, bin, "-json", "./...")
	_, old := parse(r)
	old = slices.Compact(old)
	if !slices.Equal(old, got) {
		t.Errorf("go/packages driver -json findings:\n\t%s\nvet driver:\n\t%s", strings.Join(old, "\n\t"), strings.Join(got, "\n\t"))
	}

	r = run(t, dir, gocache, nil, bin, "-modular", "-json", "./clean")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "{}" {
		t.Errorf("-json, no finding: exit %d, output %q", r.code, r.stdout)
	}

	// The whole-program driver: the same shape, paths relative to the
	// working directory, package paths as keys, each finding with the URL
	// of its code's documentation.
	r = run(t, dir, gocache, nil, bin, "-json", "-test", "./...")
	tree, whole := parse(r)
	if !slices.Equal(whole, got) {
		t.Errorf("whole-program -json findings:\n\t%s\nvet driver:\n\t%s", strings.Join(whole, "\n\t"), strings.Join(got, "\n\t"))
	}
	for id, byAnalyzer := range tree {
		for _, d := range byAnalyzer["idemlint"] {
			if filepath.IsAbs(d.Posn) {
				t.Errorf("%s: absolute position %s", id, d.Posn)
			}
		}
	}
	r = run(t, dir, gocache, nil, bin, "-json", "./clean")
	if r.code != 0 || strings.TrimSpace(r.stdout) != "{}" {
		t.Errorf("whole-program -json, no finding: exit %d, output %q", r.code, r.stdout)
	}
}

// TestBuildError: a package that does not compile fails the run (exit 1),
// with the compiler's error passed through, in plain and -json mode; the
// findings of the others are still reported.
func TestBuildError(t *testing.T) {
	bin := idemlint(t)
	files := maps(testModule)
	files["broken/broken.go"] = "package broken\n\nfunc F() int { return \"x\" }\n"
	dir := writeModule(t, files)
	gocache := t.TempDir()
	for _, tc := range []struct {
		args []string
		env  []string
	}{
		{args: []string{"./..."}},
		{args: []string{"-json", "./..."}},
		{args: []string{"./..."}, env: []string{"IDEMLINT_DRIVER=packages"}},
		{args: []string{"./nonexistent"}},
	} {
		t.Run(strings.Join(append(tc.env, tc.args...), " "), func(t *testing.T) {
			r := run(t, dir, gocache, tc.env, bin, tc.args...)
			if r.code != 1 {
				t.Errorf("exit %d, want 1\n%s\n%s", r.code, r.stdout, r.stderr)
			}
			wantErr := `broken.go:3:23: cannot use "x"`
			if tc.args[0] == "./nonexistent" {
				wantErr = "nonexistent"
			} else if !strings.Contains(r.stderr+r.stdout, "in handler HandleB") {
				t.Errorf("b's finding is not reported:\n%s\n%s", r.stdout, r.stderr)
			}
			if !strings.Contains(r.stderr+r.stdout, wantErr) {
				t.Errorf("no %q in the output:\n%s\n%s", wantErr, r.stdout, r.stderr)
			}
		})
	}
}

// TestVetxOnlyCache reproduces a hole in go vet's cache (through Go 1.26,
// the vet action's cache key does not include VetxOnly): a package first
// analysed only as a dependency (VetxOnly, no output) is cached with no
// output, which go vet replays when the package is later vetted itself.
// idemlint's driver must report the package's finding anyway.
func TestVetxOnlyCache(t *testing.T) {
	bin := idemlint(t)
	files := map[string]string{"a/a.go": testModule["a/a.go"], "b/b.go": testModule["b/b.go"]} // no tests: a is one unit either way
	dir := writeModule(t, files)

	gocache := t.TempDir()
	for i, pkgs := range [][]string{{"./b"}, {"./a"}, {"./a", "./b"}} {
		r := run(t, dir, gocache, nil, bin, pkgs...)
		want := map[string][]string{"./b": {findB}, "./a": {findA}}
		var all []string
		for _, p := range pkgs {
			all = append(all, want[p]...)
		}
		slices.Sort(all)
		if got := findings(dir, r.stderr); !slices.Equal(got, all) || r.code != 3 {
			t.Errorf("run %d, idemlint %s: exit %d, findings\n\t%s\nwant\n\t%s\n%s", i+1, strings.Join(pkgs, " "), r.code,
				strings.Join(got, "\n\t"), strings.Join(all, "\n\t"), r.stderr)
		}
	}

	// The upstream behaviour, for the record.
	gocache = t.TempDir()
	run(t, dir, gocache, nil, "go", "vet", "-vettool="+bin, "./b")
	r := run(t, dir, gocache, nil, "go", "vet", "-vettool="+bin, "./a")
	if strings.Contains(r.stderr, "in handler Handle is") {
		t.Logf("go vet -vettool ./b, then ./a: a's finding is reported (exit %d); the go command's cache no longer loses it", r.code)
	} else {
		t.Logf("go vet -vettool ./b, then ./a: a's finding is lost (exit %d, output %q): the go command's cache bug is present", r.code, r.stderr)
	}
}

func maps(m map[string]string) map[string]string {
	c := make(map[string]string, len(m))
	for k, v := range m {
		c[k] = v
	}
	return c
}

// BenchmarkWarm measures a warm run over testModule (its packages and
// their tests, facts and findings cached) of idemlint standalone, of the
// go/packages driver it replaces, and of plain go vet:
//
//	go test -run '^$' -bench Warm ./cmd/idemlint/
func BenchmarkWarm(b *testing.B) {
	bin := idemlint(b)
	dir := writeModule(b, maps(testModule))
	gocache := b.TempDir()
	for _, bc := range []struct {
		name string
		env  []string
		args []string
	}{
		{"idemlint", nil, []string{bin, "./..."}},
		{"idemlint-packages", []string{"IDEMLINT_DRIVER=packages"}, []string{bin, "./..."}},
		{"go-vet", nil, []string{"go", "vet", "./..."}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			run(b, dir, gocache, bc.env, bc.args[0], bc.args[1:]...) // warm up
			for b.Loop() {
				run(b, dir, gocache, bc.env, bc.args[0], bc.args[1:]...)
			}
		})
	}
}

// TestWholeCache: the whole-program driver prints a cached run's findings
// when nothing changed (without loading the program from source), and
// analyses again when a file, the settings or the rules file change.
func TestWholeCache(t *testing.T) {
	bin := idemlint(t)
	dir := writeModule(t, maps(testModule))
	gocache := t.TempDir()
	path, log := goWrapper(t)
	fullLoad := regexp.MustCompile(`(?m)^list -e -json=.* -export=true `)
	step := func(what string, args []string, want []string) {
		t.Helper()
		os.Remove(log)
		r := run(t, dir, gocache, []string{"PATH=" + path}, bin, args...)
		if got := findings(dir, r.stderr); !slices.Equal(got, want) {
			t.Errorf("%s: findings\n\t%s\nwant\n\t%s\n%s", what, strings.Join(got, "\n\t"), strings.Join(want, "\n\t"), r.stderr)
		}
		calls, _ := os.ReadFile(log)
		if loaded := fullLoad.Match(calls); loaded != strings.HasPrefix(what, "analysed") {
			t.Errorf("%s: program loaded from source: %v; go was run as:\n%s", what, loaded, calls)
		}
	}
	step("analysed: first run", []string{"./..."}, []string{findA, findB})
	step("cached: nothing changed", []string{"./..."}, []string{findA, findB})
	step("analysed: other settings", []string{"-codes=IDEM002", "./..."}, nil)
	must(t, os.WriteFile(filepath.Join(dir, "b", "b.go"), []byte("package b\n"), 0o644))
	step("analysed: a file changed", []string{"./..."}, []string{findA})
	step("cached: again", []string{"./..."}, []string{findA})
	must(t, os.WriteFile(filepath.Join(dir, "idemlint.yaml"), []byte("effects: [example.com/m/leaf.F]\n"), 0o644))
	step("analysed: a rules file appeared", []string{"./..."}, []string{findA})
}
