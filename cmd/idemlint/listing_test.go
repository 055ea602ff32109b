package main_test

import (
	"archive/zip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestListingFallback: a module whose module-wide listing fails where the
// packages named load (a go.sum entry of a module outside the build that
// no longer verifies, met only when the whole module graph is loaded)
// is analysed by the packages named, with a warning, not left with exit 1
// and no word. The dependencies come from a proxy in a directory.
func TestListingFallback(t *testing.T) {
	bin := idemlint(t)
	proxy := t.TempDir()
	// c is a go 1.16 module (its requirements are not pruned) that
	// requires b; the program imports c, whose package needs nothing of b.
	writeProxyModule(t, proxy, "example.com/b", "module example.com/b\n\ngo 1.16\n", nil)
	writeProxyModule(t, proxy, "example.com/c", "module example.com/c\n\ngo 1.16\n\nrequire example.com/b v1.0.0\n",
		map[string]string{"c.go": "package c\n\n// Name names the order.\nfunc Name(s string) string { return s }\n"})
	dir := writeModule(t, map[string]string{
		"m.go": `package m

import "example.com/c"

//idem:effect
func Write(s string) {}

//idem:handler
func Handle(msg string) { Write(c.Name(msg)) }
`,
	})
	must(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/m\n\ngo 1.21\n\nrequire example.com/c v1.0.0\n"), 0o644))
	gocache := t.TempDir()
	env := []string{"GOPROXY=file://" + filepath.ToSlash(proxy), "GOSUMDB=off", "GONOSUMDB=", "GOPRIVATE=", "GOMODCACHE=" + t.TempDir()}
	tidy := exec.Command("go", "mod", "tidy")
	tidy.Dir = dir
	tidy.Env = append(os.Environ(), append([]string{"GOWORK=off", "GOFLAGS=-mod=mod"}, env...)...)
	if out, err := tidy.CombinedOutput(); err != nil {
		t.Fatalf("go mod tidy: %v\n%s", err, out)
	}
	// The go.mod checksum of b, outside the build, no longer verifies.
	sum, err := os.ReadFile(filepath.Join(dir, "go.sum"))
	must(t, err)
	bad := regexp.MustCompile(`(?m)^example.com/b v1.0.0/go.mod h1:.*$`)
	if !bad.Match(sum) {
		t.Fatalf("go.sum has no go.mod checksum of b:\n%s", sum)
	}
	sum = bad.ReplaceAll(sum, []byte("example.com/b v1.0.0/go.mod h1:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="))
	must(t, os.WriteFile(filepath.Join(dir, "go.sum"), sum, 0o644))

	r := run(t, dir, gocache, env, bin, "./...")
	if r.code != 3 {
		t.Errorf("exit %d, want 3 (a finding)\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "in handler Handle") {
		t.Errorf("the handler's finding is not reported:\n%s", r.stderr)
	}
	if !strings.Contains(r.stderr, "example.com/m/... could not be listed") || !strings.Contains(r.stderr, "checksum mismatch") {
		t.Errorf("no warning naming the listing and its cause:\n%s", r.stderr)
	}
}

// writeProxyModule writes version v1.0.0 of module path into a module
// proxy directory (GOPROXY=file://…): its list, info, go.mod and zip.
func writeProxyModule(t *testing.T, proxy, path, gomod string, files map[string]string) {
	t.Helper()
	at := filepath.Join(proxy, filepath.FromSlash(path), "@v")
	must(t, os.MkdirAll(at, 0o755))
	must(t, os.WriteFile(filepath.Join(at, "list"), []byte("v1.0.0\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(at, "v1.0.0.info"), []byte(`{"Version":"v1.0.0"}`), 0o644))
	must(t, os.WriteFile(filepath.Join(at, "v1.0.0.mod"), []byte(gomod), 0o644))
	f, err := os.Create(filepath.Join(at, "v1.0.0.zip"))
	must(t, err)
	z := zip.NewWriter(f)
	all := map[string]string{"go.mod": gomod}
	for name, content := range files {
		all[name] = content
	}
	for name, content := range all {
		w, err := z.Create(path + "@v1.0.0/" + name)
		must(t, err)
		_, err = w.Write([]byte(content))
		must(t, err)
	}
	must(t, z.Close())
	must(t, f.Close())
}
