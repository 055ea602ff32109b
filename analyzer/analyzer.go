package analyzer

import (
	_ "embed"
	"go/types"
	"path/filepath"
	"strings"

	"github.com/idemkit/idem/analyzer/knowledge"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"
)

//go:embed doc.go
var doc string

// Analyzer is the idemlint analyzer, configured by its flags. See the
// package documentation.
var Analyzer = newAnalyzer(defaultSettings)

var defaultSettings = newSettings(Config{})

// FlagConfig returns the settings Analyzer's flags hold now: what a driver
// that parsed them passes to CheckProgram.
func FlagConfig() Config { return defaultSettings.Config() }

// New returns an idemlint analyzer whose flags start at c's settings: each
// analyzer has its own (the golangci-lint plugin makes one per linter
// configuration).
func New(c Config) *analysis.Analyzer { return newAnalyzer(newSettings(c)) }

func newAnalyzer(st *settings) *analysis.Analyzer {
	return &analysis.Analyzer{
		Name:      "idemlint",
		Doc:       mustExtractDoc(doc, "idemlint"),
		URL:       "https://pkg.go.dev/github.com/idemkit/idem/analyzer",
		Flags:     st.flags(),
		Run:       func(pass *analysis.Pass) (any, error) { return run(pass, st) },
		FactTypes: []analysis.Fact{new(effectsFact), new(dedupFact), new(guardedFact), new(annotatedFact), new(freshFact), new(pkgFact)},
		// SSA is built by run itself, and only for packages that pass the
		// import pre-filter: requiring buildssa would build it (and run
		// ctrlflow, which has facts) for every package of the program.
	}
}

func run(pass *analysis.Pass, st *settings) (any, error) {
	dir := ""
	if len(pass.Files) > 0 {
		dir = filepath.Dir(pass.Fset.File(pass.Files[0].Pos()).Name())
	}
	cfg, err := st.config(dir)
	if err != nil {
		return nil, err
	}
	cat := cfg.cat
	// The catalogued packages themselves (and their stubs) are described by
	// the catalog, not analysed.
	if cat.Described(pass.Pkg.Path()) {
		return nil, nil
	}
	dirs := scanDirectives(pass)
	if !relevant(pass, cat, cfg, dirs) {
		return nil, nil
	}
	a := newPkgAnalysis(pass, cat, cfg, dirs)
	a.run()
	return nil, nil
}

// relevant is the fast path: a package is analysed only when it uses a
// catalogued package, a function carrying an idem fact, a name given in a
// flag, or an //idem: directive. Everything else costs one walk over the
// uses of identifiers.
func relevant(pass *analysis.Pass, cat *knowledge.Catalog, cfg *config, dirs *directives) bool {
	if dirs.any {
		return true
	}
	flagged := cfg.extra
	imports := false
	for _, imp := range pass.Pkg.Imports() {
		p := knowledge.NormPath(imp.Path())
		if cat.Known(p) {
			imports = true
			break
		}
		if pass.ImportPackageFact(imp, new(pkgFact)) {
			imports = true
			break
		}
	}
	if !imports && !flagged {
		return false
	}
	for _, obj := range pass.TypesInfo.Uses {
		if obj.Pkg() == nil || obj.Pkg() == pass.Pkg {
			continue
		}
		if cat.Known(obj.Pkg().Path()) && cat.KnownName(obj.Name()) {
			switch obj := obj.(type) {
			case *types.TypeName:
				if cat.Message(obj.Type()) != nil {
					return true
				}
			case *types.Func:
				for _, r := range cat.Lookup(obj) {
					if primaryRole(r.Role) {
						return true
					}
				}
			}
		}
		if fn, ok := obj.(*types.Func); ok {
			if flagged {
				for _, r := range cat.Lookup(fn) {
					if primaryRole(r.Role) {
						return true
					}
				}
			}
			// A method of an interface of a package that exports facts:
			// its implementations there may have effects (a generated
			// client's Credit implemented over Invoke).
			if sig, ok := fn.Type().(*types.Signature); ok && sig.Recv() != nil && types.IsInterface(sig.Recv().Type()) &&
				pass.ImportPackageFact(fn.Pkg(), new(pkgFact)) {
				return true
			}
			if pass.ImportObjectFact(fn.Origin(), new(effectsFact)) ||
				pass.ImportObjectFact(fn.Origin(), new(dedupFact)) ||
				pass.ImportObjectFact(fn.Origin(), new(guardedFact)) ||
				pass.ImportObjectFact(fn.Origin(), new(annotatedFact)) {
				return true
			}
		}
	}
	// A DBTX-shaped interface declared here counts as SQL.
	for _, obj := range pass.TypesInfo.Defs {
		if tn, ok := obj.(*types.TypeName); ok {
			if it, ok := tn.Type().Underlying().(*types.Interface); ok {
				for i := 0; i < it.NumMethods(); i++ {
					if _, ok := sqlShaped(cat, it.Method(i)); ok {
						return true
					}
				}
			}
		}
	}
	return false
}

// primaryRole reports whether a call with this role can make a package worth
// analysing; the others are helpers of other rules, and alone make no
// handler.
func primaryRole(r knowledge.Role) bool {
	switch r {
	case knowledge.Wait, knowledge.NewRequest, knowledge.Prepare, knowledge.RowsAffected, knowledge.Scan,
		knowledge.RedisDel, knowledge.RedisMark, knowledge.KVWrite, knowledge.Outcome, knowledge.Telemetry, knowledge.Decode,
		knowledge.Benign, knowledge.HeaderSet, knowledge.NoReturn, knowledge.FreshValue, knowledge.RandRead,
		knowledge.ClockMethod, knowledge.Ignore, knowledge.Reply, knowledge.Collection, knowledge.Model, knowledge.Columns,
		knowledge.CompleteTx:
		return false
	}
	return true
}

// --- directives -----------------------------------------------------------

// --- doc extraction -----------------------------------------------------------

// mustExtractDoc returns the "# Analyzer name" section of a package doc
// comment (in the form Analyzer.Doc expects: the text after "name: "),
// as x/tools' passes do.
func mustExtractDoc(content, name string) string {
	start := strings.Index(content, "\n// # Analyzer "+name+"\n")
	if start < 0 {
		panic("analyzer doc: no # Analyzer " + name + " section")
	}
	var lines []string
	for _, l := range strings.Split(content[start+1:], "\n")[1:] {
		if !strings.HasPrefix(l, "//") {
			break
		}
		l = strings.TrimPrefix(strings.TrimPrefix(l, "//"), " ")
		if strings.HasPrefix(l, "# ") {
			break
		}
		lines = append(lines, l)
	}
	text := strings.TrimSpace(strings.Join(lines, "\n"))
	text, ok := strings.CutPrefix(text, name+": ")
	if !ok {
		panic("analyzer doc: section does not start with " + name + ": ")
	}
	return text
}

// ssaMode is the builder mode for the lazily built program.
const ssaMode = ssa.BuilderMode(0)
