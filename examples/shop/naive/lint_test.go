package naive_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/analysis/checker"
	"golang.org/x/tools/go/packages"

	"github.com/idemkit/idem/analyzer"
)

var update = flag.Bool("update", false, "rewrite expected-findings.txt")

// TestFindings runs idemlint over the shop's packages: every naive handler
// is reported, each for its missing dedup check (IDEM001), and nothing else
// — in particular not the guarded handlers of ../orders and their apply
// functions. The findings are those of
//
//	idemlint ./examples/shop/...
//
// run from the repository's root, as expected-findings.txt holds them. The
// main package is left out here: it imports nats-server, whose analysis
// takes half a minute, and holds no handler idemlint reports.
func TestFindings(t *testing.T) {
	if testing.Short() {
		t.Skip("loads and analyses the shop's packages and their dependencies")
	}
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	pkgs, err := packages.Load(&packages.Config{Mode: packages.LoadAllSyntax, Dir: root},
		"./examples/shop/naive", "./examples/shop/orders", "./examples/shop/shopdb", "./examples/shop/smsprovider")
	if err != nil {
		t.Fatal(err)
	}
	if packages.PrintErrors(pkgs) > 0 {
		t.Fatal("packages do not load")
	}
	g, err := checker.Analyze([]*analysis.Analyzer{analyzer.Analyzer}, pkgs, nil)
	if err != nil {
		t.Fatal(err)
	}
	type finding struct {
		file      string
		line, col int
		msg       string
	}
	var found []finding
	for _, act := range g.Roots {
		if act.Err != nil {
			t.Errorf("%s: %v", act, act.Err)
		}
		for _, d := range act.Diagnostics {
			pos := act.Package.Fset.Position(d.Pos)
			rel, err := filepath.Rel(root, pos.Filename)
			if err != nil {
				t.Fatal(err)
			}
			found = append(found, finding{filepath.ToSlash(rel), pos.Line, pos.Column, d.Message})
		}
	}
	// In idemlint's order: by file, then position.
	sort.Slice(found, func(i, j int) bool {
		a, b := found[i], found[j]
		if a.file != b.file {
			return a.file < b.file
		}
		if a.line != b.line {
			return a.line < b.line
		}
		return a.col < b.col
	})
	var got []string
	for _, f := range found {
		got = append(got, fmt.Sprintf("%s:%d:%d: %s", f.file, f.line, f.col, f.msg))
	}
	text := strings.Join(got, "\n") + "\n"
	if *update {
		if err := os.WriteFile("expected-findings.txt", []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile("expected-findings.txt")
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != text {
		t.Errorf("idemlint findings differ from expected-findings.txt (go test -run TestFindings -update rewrites it):\ngot:\n%swant:\n%s", text, want)
	}
	for _, line := range got {
		if !strings.HasPrefix(line, "examples/shop/naive/") || !strings.HasSuffix(line, "(IDEM001)") {
			t.Errorf("finding outside the naive handlers or of another code: %s", line)
		}
	}
	for _, h := range []string{"DeductInventory", "AddPoints", "AddPointsRedis", "SendSms", "UpdateStats"} {
		if !strings.Contains(text, "handler Consumers."+h+" ") {
			t.Errorf("naive handler %s is not reported", h)
		}
	}
}
