package analyzer

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
// against the stubs under testdata/src, which mirror the real packages'
// signatures: the package exists, and so do the type and its method (in the
// method set of the type or of its pointer, or of the interface).
// Packages without a stub are listed, not failed.
func TestCatalogAgainstStubs(t *testing.T) {
	if testing.Short() {
		t.Skip("loads the stubs")
	}
	gopath, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for p := range defaultCatalog.paths {
		if _, err := os.Stat(filepath.Join(gopath, "src", p)); err == nil || stdPath(p) {
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
	for _, rs := range defaultCatalog.rules {
		for _, r := range rs {
			pkg := byPath[r.pkg]
			if pkg == nil {
				missing[r.pkg] = true
				continue
			}
			checked++
			if !ruleExists(pkg, r) {
				t.Errorf("rule %s %s.%s (role %d): not in the stub", r.pkg, r.recv, r.name, r.role)
			}
		}
	}
	for key := range defaultCatalog.messages {
		i := strings.LastIndex(key, ".")
		pkg := byPath[key[:i]]
		if pkg == nil {
			missing[key[:i]] = true
			continue
		}
		if _, ok := pkg.Scope().Lookup(key[i+1:]).(*types.TypeName); !ok {
			t.Errorf("message type %s: not in the stub", key)
		}
	}
	var ms []string
	for p := range missing {
		ms = append(ms, p)
	}
	sort.Strings(ms)
	t.Logf("%d rules checked against stubs; no stub for %s", checked, strings.Join(ms, ", "))
}

func ruleExists(pkg *types.Package, r *rule) bool {
	scope := pkg.Scope()
	if r.recv == "" {
		_, ok := scope.Lookup(r.name).(*types.Func)
		return ok
	}
	var named []*types.TypeName
	if r.recv == "*" {
		for _, n := range scope.Names() {
			if tn, ok := scope.Lookup(n).(*types.TypeName); ok {
				named = append(named, tn)
			}
		}
	} else if tn, ok := scope.Lookup(r.recv).(*types.TypeName); ok {
		named = append(named, tn)
	}
	for _, tn := range named {
		for _, t := range []types.Type{tn.Type(), types.NewPointer(tn.Type())} {
			if types.IsInterface(tn.Type()) && t != tn.Type() {
				continue
			}
			if sel := types.NewMethodSet(t).Lookup(pkg, r.name); sel != nil {
				return true
			}
			if sel := types.NewMethodSet(t).Lookup(nil, r.name); sel != nil {
				return true
			}
		}
	}
	return false
}
