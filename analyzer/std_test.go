package analyzer_test

import (
	"testing"
	"time"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/analysis/passes/buildssa"
	"golang.org/x/tools/go/packages"

	"github.com/idemkit/idem/analyzer"
)

// TestStd runs idemlint over the standard library: no panic, no error, no
// finding. It also times buildssa alone over the same packages, the cost
// that requiring it would add to every package (idemlint has facts, so it
// runs on every dependency): idemlint builds SSA itself, only for packages
// past its import pre-filter, and so costs less than buildssa alone.
func TestStd(t *testing.T) {
	if testing.Short() {
		t.Skip("loads and analyses all of std")
	}
	pkgs, err := packages.Load(&packages.Config{Mode: packages.LoadAllSyntax}, "std")
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range []*analysis.Analyzer{analyzer.Analyzer, buildssa.Analyzer} {
		start := time.Now()
		g, err := checker.Analyze([]*analysis.Analyzer{a}, pkgs, &checker.Options{Sequential: true})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for act := range g.All() {
			if act.Analyzer != a {
				continue
			}
			n++
			if act.Err != nil {
				t.Errorf("%s: %v", act, act.Err)
			}
			for _, d := range act.Diagnostics {
				t.Errorf("%s: %s", act.Package.Fset.Position(d.Pos), d.Message)
			}
		}
		t.Logf("%s: %d packages in %v", a.Name, n, time.Since(start))
	}
}
