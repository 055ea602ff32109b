package analyzer

import (
	_ "embed"
	"flag"
	"fmt"
	"github.com/idemkit/idem/analyzer/knowledge"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"
)

//go:embed doc.go
var doc string

// Analyzer is the idemlint analyzer. See the package documentation.
var Analyzer = &analysis.Analyzer{
	Name:      "idemlint",
	Doc:       mustExtractDoc(doc, "idemlint"),
	URL:       "https://pkg.go.dev/github.com/idemkit/idem/analyzer",
	Flags:     flags(),
	Run:       run,
	FactTypes: []analysis.Fact{new(effectsFact), new(dedupFact), new(guardedFact), new(annotatedFact), new(freshFact), new(pkgFact)},
	// SSA is built by run itself, and only for packages that pass the
	// import pre-filter: requiring buildssa would build it (and run
	// ctrlflow, which has facts) for every package of the program.
}

// Flag values. They are set before any package is analysed and only read
// afterwards.
var (
	flagEffects string
	flagDedup   string
	flagAcks    string
	flagPublish bool
	flagStrict  bool
	flagIface   = "annotated"
)

func flags() flag.FlagSet {
	var fs flag.FlagSet
	fs.StringVar(&flagEffects, "effects", "", "comma-separated functions or methods that are non-idempotent effects, e.g. `(*example.com/repo.Repo).Save,example.com/sms.Send`")
	fs.StringVar(&flagDedup, "dedup", "", "comma-separated functions or methods that are dedup checks (a bool result: true means fresh; suffix =dup when true means duplicate)")
	fs.StringVar(&flagAcks, "acks", "", "comma-separated functions or methods that acknowledge a message")
	fs.BoolVar(&flagPublish, "publish", false, "treat publishing to a broker as an effect")
	fs.BoolVar(&flagStrict, "strict", false, "also report check-then-act dedup (a lookup followed by a write, IDEM005)")
	fs.StringVar(&flagIface, "iface", flagIface, "policy for calls through interfaces outside the catalog: annotated (only //idem:effect and -effects) or verbs (also methods named like writes: Create, Insert, Add, Incr, Send, Charge …; not Save or Put, which usually overwrite)")
	fs.Bool("vetx-report", false, "internal, set by the standalone driver of cmd/idemlint: also report findings in packages go vet analyses only for facts (VetxOnly)")
	return fs
}

// config is the parsed flags of one run.
type config struct {
	effects map[string]bool
	dedup   map[string]impl // true side
	acks    map[string]bool
	publish bool
	strict  bool
	verbs   bool
}

func parseList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

func newConfig() *config {
	c := &config{effects: map[string]bool{}, dedup: map[string]impl{}, acks: map[string]bool{},
		publish: flagPublish, strict: flagStrict, verbs: flagIface == "verbs"}
	for _, n := range parseList(flagEffects) {
		c.effects[n] = true
	}
	for _, n := range parseList(flagDedup) {
		t := implFresh
		if name, ok := strings.CutSuffix(n, "=dup"); ok {
			n, t = name, implDup
		}
		c.dedup[n] = t
	}
	for _, n := range parseList(flagAcks) {
		c.acks[n] = true
	}
	return c
}

// checkFlags validates the flags of a run.
func checkFlags() error {
	if flagIface != "annotated" && flagIface != "verbs" {
		return fmt.Errorf("-iface: want annotated or verbs, not %q", flagIface)
	}
	return nil
}

func run(pass *analysis.Pass) (any, error) {
	if err := checkFlags(); err != nil {
		return nil, err
	}
	cfg := newConfig()
	cat := knowledge.Default()
	// The catalogued packages themselves (and their stubs) are described by
	// the catalog, not analysed.
	if cat.Known(knowledge.NormPath(pass.Pkg.Path())) {
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
	flagged := len(cfg.effects)+len(cfg.dedup)+len(cfg.acks) > 0
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
			if flagged && (cfg.effects[fn.FullName()] || cfg.acks[fn.FullName()]) {
				return true
			}
			if _, ok := cfg.dedup[fn.FullName()]; ok {
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
					if sqlShaped(it.Method(i)) {
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
		knowledge.RedisDel, knowledge.RedisMark, knowledge.Outcome, knowledge.Telemetry, knowledge.Decode,
		knowledge.Benign, knowledge.HeaderSet, knowledge.NoReturn, knowledge.FreshValue, knowledge.RandRead,
		knowledge.ClockMethod, knowledge.Ignore:
		return false
	}
	return true
}

// --- directives -----------------------------------------------------------

// directives are the //idem: comments of a package.
type directives struct {
	any      bool
	handlers map[token.Pos]bool // func decl or literal positions marked //idem:handler
	funcs    map[*types.Func]string
	ignores  map[string]map[int][]*ignore // file -> line -> ignores
	bad      []badDirective
	lines    map[string]map[int]string // file -> line -> directive kind (handler, effect, dedup) for literals
}

type ignore struct {
	pos    token.Pos
	code   string
	reason string
	used   bool
}

type badDirective struct {
	pos token.Pos
	msg string
}

var knownCodes = map[string]bool{}

func init() {
	for _, c := range codes {
		knownCodes[c.code] = true
	}
}

func scanDirectives(pass *analysis.Pass) *directives {
	d := newDirectives()
	d.scan(pass.Fset, pass.Files, pass.TypesInfo)
	return d
}

func newDirectives() *directives {
	return &directives{handlers: map[token.Pos]bool{}, funcs: map[*types.Func]string{},
		ignores: map[string]map[int][]*ignore{}, lines: map[string]map[int]string{}}
}

// scan adds the directives of files (type-checked into info) to d.
func (d *directives) scan(fset *token.FileSet, files []*ast.File, info *types.Info) {
	for _, f := range files {
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				text, ok := strings.CutPrefix(c.Text, "//idem:")
				if !ok {
					continue
				}
				d.any = true
				pos := fset.Position(c.Pos())
				text, _, _ = strings.Cut(text, " //") // a trailing comment is no reason
				kind, rest, _ := strings.Cut(text, " ")
				switch kind {
				case "ignore":
					fields := strings.Fields(rest)
					if len(fields) == 0 || !knownCodes[fields[0]] {
						d.bad = append(d.bad, badDirective{c.Pos(), "//idem:ignore needs a code (IDEM001 … IDEM007) and a reason"})
						continue
					}
					reason := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest), fields[0]))
					ig := &ignore{pos: c.Pos(), code: fields[0], reason: reason}
					if reason == "" {
						d.bad = append(d.bad, badDirective{c.Pos(), "//idem:ignore " + fields[0] + " needs a reason"})
						continue
					}
					if d.ignores[pos.Filename] == nil {
						d.ignores[pos.Filename] = map[int][]*ignore{}
					}
					d.ignores[pos.Filename][pos.Line] = append(d.ignores[pos.Filename][pos.Line], ig)
				case "handler", "effect", "dedup":
					if d.lines[pos.Filename] == nil {
						d.lines[pos.Filename] = map[int]string{}
					}
					d.lines[pos.Filename][pos.Line] = strings.TrimSpace(text)
				default:
					d.bad = append(d.bad, badDirective{c.Pos(), "unknown directive //idem:" + kind})
				}
			}
		}
		// Attach directives to declarations: a FuncDecl's doc, an interface
		// method's doc, or the line above (or of) a function literal.
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncDecl:
				if k := docDirective(n.Doc); k != "" {
					if fn, ok := info.Defs[n.Name].(*types.Func); ok {
						d.funcs[fn] = k
						if k == "handler" {
							d.handlers[n.Type.Pos()] = true
						}
					}
				}
			case *ast.InterfaceType:
				for _, m := range n.Methods.List {
					if k := docDirective(m.Doc); k != "" && len(m.Names) > 0 {
						if fn, ok := info.Defs[m.Names[0]].(*types.Func); ok {
							d.funcs[fn] = k
						}
					}
				}
			case *ast.FuncLit:
				p := fset.Position(n.Pos())
				for _, l := range []int{p.Line, p.Line - 1} {
					if k := d.lines[p.Filename][l]; strings.HasPrefix(k, "handler") {
						d.handlers[n.Type.Pos()] = true
					}
				}
			}
			return true
		})
	}
}

// docDirective returns the //idem: directive (handler, effect, dedup …) of a
// doc comment, with its arguments.
func docDirective(cg *ast.CommentGroup) string {
	if cg == nil {
		return ""
	}
	for _, c := range cg.List {
		if text, ok := strings.CutPrefix(c.Text, "//idem:"); ok {
			k, _, _ := strings.Cut(text, " ")
			if k == "handler" || k == "effect" || k == "dedup" {
				return strings.TrimSpace(text)
			}
		}
	}
	return ""
}

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
