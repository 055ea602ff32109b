package knowledge

import (
	"go/types"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestCatalogAgainstStubs checks every rule and message type of the catalog
// against the stubs under the analyzer's testdata/src, which mirror the real
// packages' signatures: the package exists, so do the type and its method
// (in the method set of the type or of its pointer, or of the interface),
// and every argument a rule names by parameter name is a parameter of it.
// Packages without a stub are listed, not failed.
func TestCatalogAgainstStubs(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the stubs")
	}
	gopath, err := filepath.Abs("../testdata")
	if err != nil {
		t.Fatal(err)
	}
	cat := Default()
	seen := map[string]bool{}
	var paths []string
	for _, r := range cat.Rules() {
		p := r.Package()
		if seen[p] {
			continue
		}
		seen[p] = true
		if _, err := os.Stat(filepath.Join(gopath, "src", p)); err == nil || std(p) {
			paths = append(paths, p)
		}
	}
	sort.Strings(paths)
	cfg := &packages.Config{
		Mode: packages.NeedTypes | packages.NeedName | packages.NeedImports | packages.NeedDeps,
		Env:  append(os.Environ(), "GOPATH="+gopath, "GO111MODULE=off", "GOFLAGS=", "GOWORK=off"),
		Dir:  filepath.Join(gopath, "src"),
	}
	pkgs, err := packages.Load(cfg, paths...)
	if err != nil {
		t.Fatal(err)
	}
	byPath := map[string]*types.Package{}
	packages.Visit(pkgs, nil, func(p *packages.Package) {
		for _, e := range p.Errors {
			t.Errorf("stub %s: %v", p.PkgPath, e)
		}
		if p.Types != nil {
			byPath[p.PkgPath] = p.Types
		}
	})
	missing := map[string]bool{}
	checked := 0
	for _, r := range cat.Rules() {
		if r.WholePackage() {
			continue
		}
		pkg := byPath[r.Package()]
		if pkg == nil {
			missing[r.Package()] = true
			continue
		}
		checked++
		fn := r.Resolve(pkg)
		if fn == nil {
			t.Errorf("rule %s (%s): not in the stub", r.Name, r.Role)
			continue
		}
		for _, spec := range []string{r.Arg, r.Key} {
			if spec != "" && Param(fn, spec) < 0 {
				t.Errorf("rule %s (%s): %s has no parameter %q", r.Name, r.Role, fn.FullName(), spec)
			}
		}
	}
	for _, m := range cat.Messages() {
		i := strings.LastIndex(m.Type, ".")
		pkg := byPath[m.Type[:i]]
		if pkg == nil {
			missing[m.Type[:i]] = true
			continue
		}
		if _, ok := pkg.Scope().Lookup(m.Type[i+1:]).(*types.TypeName); !ok {
			t.Errorf("message type %s: not in the stub", m.Type)
		}
	}
	var ms []string
	for p := range missing {
		ms = append(ms, p)
	}
	sort.Strings(ms)
	t.Logf("%d rules checked against stubs; no stub for %s", checked, strings.Join(ms, ", "))
}

func std(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return !strings.Contains(first, ".")
}
