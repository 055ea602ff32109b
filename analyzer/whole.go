package analyzer

import (
	"errors"
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"time"

	"golang.org/x/tools/go/callgraph"
	"golang.org/x/tools/go/callgraph/vta"
	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"

	"github.com/idemkit/idem/analyzer/knowledge"
)

// CheckProgram runs idemlint over a whole program: pkgs are the program's
// own packages, loaded by go/packages with syntax and type information;
// their dependencies may come from export data (types only, described by
// the catalog). Unlike the modular analyzer, which sees one package at a
// time and other packages through facts, it builds SSA for all of pkgs and
// resolves calls through interfaces and func values with a call graph
// (VTA, seeded by CHA): an interface call whose implementations write is
// an effect wherever the implementation lives, and a function a message is
// dispatched to through a func value or an interface (a handler registered
// with the service's own helper) is a handler. It returns the findings
// sorted by position; packages with type errors are skipped.
func CheckProgram(pkgs []*packages.Package, c Config) ([]Finding, error) {
	out, _, err := checkProgram(pkgs, c, nil)
	return out, err
}

// CheckProgramReach is CheckProgram that also returns, of the dependency
// packages in candidates (read from export data: no function bodies), the
// ones the program's handlers reach: a function or method of one is
// called, statically or through an interface it declares, by a handler
// or by a function a handler reaches in the program. A driver loads those
// from source and checks the program again, so that an effect inside them
// counts where the handler calls them, without reading every dependency's
// source.
func CheckProgramReach(pkgs []*packages.Package, c Config, candidates []string) ([]Finding, []string, error) {
	want := map[string]bool{}
	for _, p := range candidates {
		want[p] = true
	}
	return checkProgram(pkgs, c, want)
}

func checkProgram(pkgs []*packages.Package, c Config, candidates map[string]bool) ([]Finding, []string, error) {
	if len(pkgs) == 0 {
		return nil, nil, nil
	}
	dir := pkgs[0].Dir
	if dir == "" && len(pkgs[0].GoFiles) > 0 {
		dir = filepath.Dir(pkgs[0].GoFiles[0])
	}
	cfg, err := newSettings(c).config(dir)
	if err != nil {
		return nil, nil, err
	}
	if err := verifyRules(cfg, pkgs); err != nil {
		return nil, nil, err
	}
	fset := pkgs[0].Fset
	cat := cfg.cat
	phase := tracer()
	prog, spkgs := ssautil.Packages(pkgs, ssaMode)
	prog.SetNoReturn(cat.NoReturn)
	prog.Build()
	phase("ssa")

	dirs := newDirectives()
	a := newAnalysis(fset, cat, cfg, dirs)
	a.prog = prog
	a.pkgs = map[*ssa.Package]bool{}
	for i, p := range pkgs {
		sp := spkgs[i]
		if sp == nil || p.IllTyped || cat.Described(p.PkgPath) {
			continue // type errors: reported by the driver; catalogued: described, not analysed
		}
		a.pkgs[sp] = true
		dirs.scan(fset, p.Syntax, p.TypesInfo)
		a.funcs = append(a.funcs, packageFuncs(prog, sp, p.Syntax, p.TypesInfo)...)
	}
	a.callees, a.promoted = dynamicCallees(prog, a.funcs)
	a.countUses()
	a.clients = a.clientTypes() // before learnWrappers: a fetch through the program's interface over a client is one
	a.learnWrappers()
	phase("call graph")
	var out []Finding
	a.emit = func(f Finding) { out = append(out, f) }
	a.findHandlers()
	a.analyseAll()
	a.traceHandlers()
	a.checkAll()
	phase("analysis")
	var reached []string
	if len(candidates) > 0 {
		reached = a.reachedPackages(candidates)
	}
	sort.SliceStable(out, func(i, j int) bool {
		pi, pj := fset.Position(out[i].Pos), fset.Position(out[j].Pos)
		if pi.Filename != pj.Filename {
			return pi.Filename < pj.Filename
		}
		if pi.Offset != pj.Offset {
			return pi.Offset < pj.Offset
		}
		return out[i].Code < out[j].Code
	})
	return out, reached, nil
}

// reachedPackages returns, sorted, the packages of candidates whose
// functions (bodiless: read from export data) or interface methods the
// handlers call, directly or through the program's functions they reach.
func (a *pkgAnalysis) reachedPackages(candidates map[string]bool) []string {
	var work []*ssa.Function
	seen := map[*ssa.Function]bool{}
	visit := func(f *ssa.Function) {
		if f != nil && f.Blocks != nil && !seen[f] {
			seen[f] = true
			work = append(work, f)
		}
	}
	for _, fn := range a.funcs {
		if a.isHandler(fn) {
			visit(fn)
		}
	}
	found := map[string]bool{}
	note := func(obj types.Object) {
		// A package the team's rules name is described by them: read from
		// source it would be analysed as the program's own code.
		if obj != nil && obj.Pkg() != nil && candidates[obj.Pkg().Path()] && !a.cat.Known(obj.Pkg().Path()) {
			found[obj.Pkg().Path()] = true
		}
	}
	for len(work) > 0 {
		fn := work[len(work)-1]
		work = work[:len(work)-1]
		for _, anon := range fn.AnonFuncs {
			visit(anon)
		}
		for ci := range callsIn(fn) {
			cc := ci.Common()
			if cc.IsInvoke() {
				note(cc.Method)
			} else if f := cc.StaticCallee(); f != nil {
				if f.Blocks == nil {
					note(f.Object())
				}
				visit(f)
			}
			for _, f := range a.callees[ci] {
				visit(f)
			}
		}
	}
	out := make([]string, 0, len(found))
	for p := range found {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// verifyRules checks that every function a team named (flags, rules file)
// exists in the program, with the parameters the rules name: a name that
// resolves to nothing is a typo, and would silently check nothing.
func verifyRules(cfg *config, pkgs []*packages.Package) error {
	user := cfg.userRules()
	if len(user) == 0 {
		return nil
	}
	byPath := map[string]*types.Package{}
	var visit func(p *types.Package)
	visit = func(p *types.Package) {
		path := knowledge.NormPath(p.Path())
		if byPath[path] != nil {
			return
		}
		byPath[path] = p
		for _, imp := range p.Imports() {
			visit(imp)
		}
	}
	for _, p := range pkgs {
		if p.Types != nil {
			visit(p.Types)
		}
	}
	var errs []error
	for _, r := range user {
		pkg := byPath[r.Package()]
		if pkg == nil && r.WholePackage() && r.Role == knowledge.Telemetry {
			continue // a subpackage tree (example.com/obs/...) may be partly used
		}
		if pkg == nil {
			errs = append(errs, fmt.Errorf("%s: %s: package %s is not part of the program", r.Pos, r.Name, r.Package()))
			continue
		}
		if r.WholePackage() {
			continue
		}
		fn := r.Resolve(pkg)
		if fn == nil {
			errs = append(errs, fmt.Errorf("%s: %s: no such function or method in %s", r.Pos, r.Name, r.Package()))
			continue
		}
		for _, spec := range []string{r.Arg, r.Key} {
			if spec != "" && knowledge.Param(fn, spec) < 0 {
				errs = append(errs, fmt.Errorf("%s: %s has no parameter %q", r.Pos, fn.FullName(), spec))
			}
		}
	}
	return errors.Join(errs...)
}

// isHandler reports whether fn is a handler: a message root, a callback
// registered through a helper, an entry of a dispatch table or the
// handler of the program's own queue.
func (a *pkgAnalysis) isHandler(fn *ssa.Function) bool {
	return a.summary(fn).root || a.registered[fn] || a.dispatched[fn] || a.queued[fn]
}

// traceHandlers prints, when IDEMLINT_TRACE is set, the handlers found
// (message roots, callbacks registered through helpers, dispatch tables
// and queues) with their positions, sorted: what a user reads when a
// handler they expected is not judged.
func (a *pkgAnalysis) traceHandlers() {
	if os.Getenv("IDEMLINT_TRACE") == "" {
		return
	}
	var lines []string
	for _, fn := range a.funcs {
		if a.isHandler(fn) {
			lines = append(lines, fmt.Sprintf("idemlint: handler %s (%s)\n", fn.String(), a.fset.Position(fn.Pos())))
		}
	}
	sort.Strings(lines)
	for _, l := range lines {
		fmt.Fprint(os.Stderr, l)
	}
}

// tracer returns a function that, when IDEMLINT_TRACE is set, prints each
// phase's time and the heap in use to stderr.
func tracer() func(string) {
	if os.Getenv("IDEMLINT_TRACE") == "" {
		return func(string) {}
	}
	start := time.Now()
	return func(phase string) {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		fmt.Fprintf(os.Stderr, "idemlint: %-10s %6.1fs heap %5d MB, sys %5d MB\n", phase, time.Since(start).Seconds(), m.HeapInuse>>20, m.Sys>>20)
	}
}

// packageFuncs returns the functions of an SSA package built from files:
// its declared functions and methods, their closures, and init (where
// package-level closures live).
func packageFuncs(prog *ssa.Program, pkg *ssa.Package, files []*ast.File, info *types.Info) []*ssa.Function {
	var out []*ssa.Function
	var add func(f *ssa.Function)
	add = func(f *ssa.Function) {
		out = append(out, f)
		for _, anon := range f.AnonFuncs {
			add(anon)
		}
	}
	for _, file := range files {
		for _, decl := range file.Decls {
			if decl, ok := decl.(*ast.FuncDecl); ok {
				obj, ok := info.Defs[decl.Name].(*types.Func)
				if !ok {
					continue
				}
				if f := prog.FuncValue(obj); f != nil {
					add(f)
				}
			}
		}
	}
	if init := pkg.Func("init"); init != nil {
		add(init)
	}
	return out
}

// dynamicCallees returns, for every call through an interface or a func
// value in funcs (the program's own functions), the functions of funcs it
// reaches, in a stable order. Only the program's own code matters here
// (dependencies are described by the catalog), so the graph is built over
// funcs alone: VTA refines an initial graph that links each interface call
// to the program's implementations of the method (CHA restricted to the
// program) and each func-value call to the program's address-taken
// functions of that signature. An interface call VTA finds no value for (the
// implementation is made by reflection, a DI container, or nowhere in the
// program) reaches every implementation of the method in the program.
//
// The second result holds, for the interface calls a value of the
// program's own type reaches whose method is a dependency's, promoted
// through an embedded field (a DB wrapper embedding *sqlx.DB), those
// dependency methods: the catalog describes them. Such a site does not
// fall back to every implementation of the method (which would include
// the wrapper calling it, a loop that hides the statement).
func dynamicCallees(prog *ssa.Program, funcs []*ssa.Function) (map[ssa.CallInstruction][]*ssa.Function, map[ssa.CallInstruction][]*types.Func) {
	own := make(map[*ssa.Function]bool, len(funcs))
	for _, f := range funcs {
		own[f] = true
	}
	// The functions VTA propagates through: the program's, and the
	// wrappers of its methods (a method value s.onAward is a closure of a
	// $bound wrapper, whose body calls the method).
	flow := make(map[*ssa.Function]bool, len(funcs))
	for f := range own {
		flow[f] = true
	}
	impls := newImplIndex(prog, funcs)
	// Address-taken functions of the program (or wrappers of its methods),
	// by signature.
	bySig := map[string][]*ssa.Function{}
	taken := map[*ssa.Function]bool{}
	note := func(f *ssa.Function) {
		if f == nil || taken[f] || !own[unwrap(prog, f)] {
			return
		}
		taken[f] = true
		flow[f] = true
		k := sigKey(f.Signature)
		bySig[k] = append(bySig[k], f)
	}
	for _, fn := range funcs {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				if mc, ok := instr.(*ssa.MakeClosure); ok {
					if f, ok := mc.Fn.(*ssa.Function); ok {
						note(f)
					}
				}
				for _, op := range instr.Operands(nil) {
					if op == nil || *op == nil {
						continue
					}
					if f, ok := (*op).(*ssa.Function); ok {
						if ci, ok := instr.(ssa.CallInstruction); ok && ci.Common().Value == f {
							continue // called, not taken
						}
						note(f)
					}
				}
			}
		}
	}
	insts := newInstances(funcs)
	initial := callgraph.New(nil)
	sites := map[ssa.CallInstruction][]*ssa.Function{} // the initial graph's dynamic edges
	// Wrappers have bodies too: their calls to the methods they wrap are
	// edges of the graph.
	var callers []*ssa.Function
	callers = append(callers, funcs...)
	for f := range taken {
		if !own[f] {
			callers = append(callers, f)
		}
	}
	sort.Slice(callers[len(funcs):], func(i, j int) bool { return callers[len(funcs)+i].String() < callers[len(funcs)+j].String() })
	for _, fn := range callers {
		caller := initial.CreateNode(fn)
		for ci := range callsIn(fn) {
			cc := ci.Common()
			var targets []*ssa.Function
			switch {
			case cc.StaticCallee() != nil:
				if f := cc.StaticCallee(); own[f] || own[unwrap(prog, f)] {
					targets = []*ssa.Function{f}
					flow[f] = true
				}
			case cc.IsInvoke():
				targets = impls.of(cc.Method)
				sites[ci] = targets
			default:
				targets = bySig[sigKey(cc.Signature())]
				if generic(cc.Signature()) {
					// A func value of a generic body (a generic
					// queue's handler field): values reach it through
					// instantiations, whose bodies are not built, so
					// the taken functions of the signatures it has in
					// the program's instantiations.
					targets = insts.matching(fn, bySig, cc.Signature())
				}
				sites[ci] = targets
			}
			for _, f := range targets {
				callgraph.AddEdge(caller, ci, initial.CreateNode(f))
			}
		}
	}
	refined := vta.CallGraph(flow, initial)
	out := map[ssa.CallInstruction][]*ssa.Function{}
	promoted := map[ssa.CallInstruction][]*types.Func{}
	reached := map[ssa.CallInstruction]bool{} // sites VTA found a callee for, the program's or a dependency's
	ownPkgs := map[*types.Package]bool{}
	for f := range own {
		if f.Pkg != nil {
			ownPkgs[f.Pkg.Pkg] = true
		}
	}
	for _, fn := range funcs {
		n := refined.Nodes[fn]
		if n == nil {
			continue
		}
		for _, e := range n.Out {
			if e.Site == nil || e.Site.Common().StaticCallee() != nil {
				continue
			}
			reached[e.Site] = true
			if m := promotedDependency(ownPkgs, e.Callee.Func); m != nil {
				if !slices.Contains(promoted[e.Site], m) {
					promoted[e.Site] = append(promoted[e.Site], m)
				}
				continue
			}
			f := unwrap(prog, e.Callee.Func)
			if !ownBody(own, f) {
				continue
			}
			if !containsFunc(out[e.Site], f) {
				out[e.Site] = append(out[e.Site], f)
			}
		}
	}
	for site, fs := range sites {
		cc := site.Common()
		// A site VTA found nothing for reaches the initial graph's
		// callees: an interface's implementations (not a std interface's:
		// io.Writer, error are implemented all over a program, so every
		// implementation is no answer) and a generic body's func values.
		// A site VTA found only a dependency's value for (a *sql.DB behind
		// the program's DBTX) is the catalog's to describe.
		if !reached[site] && (cc.IsInvoke() && !stdInterface(cc.Method) || !cc.IsInvoke() && generic(cc.Signature())) {
			for _, f := range fs {
				if m := promotedDependency(ownPkgs, f); m != nil {
					if !slices.Contains(promoted[site], m) {
						promoted[site] = append(promoted[site], m)
					}
					continue
				}
				if f = unwrap(prog, f); ownBody(own, f) && !containsFunc(out[site], f) {
					out[site] = append(out[site], f)
				}
			}
		}
	}
	// An implementation the program never calls, neither directly nor
	// through any interface (its value made where the analysis cannot see:
	// a DI container, wire's generated code left out of the build), may be
	// behind any call of its interface's method: a site VTA found other
	// implementations for reaches it too.
	called := map[*ssa.Function]bool{}
	for f, n := range refined.Nodes {
		if f != nil && len(n.In) > 0 {
			called[unwrap(prog, f)] = true
		}
	}
	for site, fs := range sites {
		cc := site.Common()
		if !reached[site] || !cc.IsInvoke() || stdInterface(cc.Method) {
			continue
		}
		for _, f := range fs {
			if f = unwrap(prog, f); ownBody(own, f) && !called[f] && !containsFunc(out[site], f) {
				out[site] = append(out[site], f)
			}
		}
	}
	for _, fs := range out {
		sort.Slice(fs, func(i, j int) bool {
			return fs[i].Pos() < fs[j].Pos() || fs[i].Pos() == fs[j].Pos() && fs[i].String() < fs[j].String()
		})
	}
	for _, ms := range promoted {
		sort.Slice(ms, func(i, j int) bool { return ms[i].FullName() < ms[j].FullName() })
	}
	return out, promoted
}

// ownBody reports whether f runs a body of the program's own: its own
// function's, or, for an instance of a generic function or method (a
// generic store's Store[Order].Get, promoted to a type that embeds it), its
// generic origin's.
func ownBody(own map[*ssa.Function]bool, f *ssa.Function) bool {
	return f != nil && built(f).Blocks != nil && own[origin(f)]
}

// promotedDependency returns the dependency's method that w, a synthetic
// wrapper of a method promoted to one of the program's types through an
// embedded field, calls; nil when w is no such wrapper.
func promotedDependency(ownPkgs map[*types.Package]bool, w *ssa.Function) *types.Func {
	if w == nil || w.Synthetic == "" || w.Signature.Recv() == nil {
		return nil
	}
	m, ok := w.Object().(*types.Func)
	if !ok || m.Pkg() == nil {
		return nil
	}
	recv := derefType(w.Signature.Recv().Type())
	n, ok := types.Unalias(recv).(*types.Named)
	if !ok || n.Obj().Pkg() == m.Pkg() || !ownPkgs[n.Obj().Pkg()] || ownPkgs[m.Pkg()] {
		return nil // a wrapper of the method's own type (a pointer receiver's value method), a dependency's type, or a method of the program promoted from its own embedded type
	}
	return m
}

// stdInterface reports whether m is a method of an interface of the
// standard library (or a predeclared one, error).
func stdInterface(m *types.Func) bool {
	return m.Pkg() == nil || stdPath(m.Pkg().Path())
}

// sigKey identifies a signature for matching func values with functions:
// its parameter and result types, not its receiver.
func sigKey(sig *types.Signature) string {
	return types.TypeString(types.NewSignatureType(nil, nil, nil, unnamed(sig.Params()), unnamed(sig.Results()), sig.Variadic()), nil)
}

// unnamed is t without its variables' names, which a func value's type and
// a function matching it need not share.
func unnamed(t *types.Tuple) *types.Tuple {
	if t == nil {
		return nil
	}
	vs := make([]*types.Var, t.Len())
	for i := range vs {
		vs[i] = types.NewVar(0, nil, "", t.At(i).Type())
	}
	return types.NewTuple(vs...)
}

// implIndex finds the program's implementations of interface methods.
type implIndex struct {
	prog  *ssa.Program
	types []*types.Named // the program's own concrete named types
	// generic: the program's own generic named types (NotifierAdapter[T]),
	// whose methods implement interfaces only once instantiated.
	generic []*types.Named
	cache   map[*types.Func][]*ssa.Function
}

func newImplIndex(prog *ssa.Program, funcs []*ssa.Function) *implIndex {
	x := &implIndex{prog: prog, cache: map[*types.Func][]*ssa.Function{}}
	seen := map[*types.Package]bool{}
	for _, f := range funcs {
		if f.Pkg == nil || seen[f.Pkg.Pkg] {
			continue
		}
		seen[f.Pkg.Pkg] = true
		scope := f.Pkg.Pkg.Scope()
		for _, name := range scope.Names() {
			tn, ok := scope.Lookup(name).(*types.TypeName)
			if !ok || tn.IsAlias() {
				continue
			}
			if n, ok := tn.Type().(*types.Named); ok && !types.IsInterface(n) {
				if n.TypeParams().Len() == 0 {
					x.types = append(x.types, n)
				} else {
					x.generic = append(x.generic, n)
				}
			}
		}
	}
	return x
}

// of returns the program's functions implementing interface method m.
func (x *implIndex) of(m *types.Func) []*ssa.Function {
	if r, ok := x.cache[m]; ok {
		return r
	}
	var out []*ssa.Function
	sig, _ := m.Type().(*types.Signature)
	if sig != nil && sig.Recv() != nil {
		if iface, ok := sig.Recv().Type().Underlying().(*types.Interface); ok {
			for _, n := range x.types {
				for _, t := range []types.Type{n, types.NewPointer(n)} {
					if !types.Implements(t, iface) {
						continue
					}
					if sel := x.prog.MethodSets.MethodSet(t).Lookup(m.Pkg(), m.Name()); sel != nil {
						if w := x.prog.MethodValue(sel); w != nil {
							if f := unwrap(x.prog, w); built(f).Blocks != nil {
								out = append(out, f)
							} else if len(sel.Index()) > 1 {
								// Promoted from an embedded dependency's
								// type: the wrapper, which names the
								// dependency's method.
								out = append(out, w)
							}
						}
					}
					break
				}
			}
		}
		if len(out) == 0 && genericIface(sig.Recv().Type()) {
			out = x.byShape(m)
		}
	}
	x.cache[m] = out
	return out
}

// genericIface reports whether t, an interface method's receiver, is a
// generic interface: a type parameter's constraint (TService
// Notifier[TRequest]) or an instance of a generic interface
// (Notifier[any]). The builder does not build instantiated bodies, so the
// values behind such a call are the generic bodies of the program's types,
// whose signatures name type parameters where the interface names others
// or concrete types.
func genericIface(t types.Type) bool {
	if mentionsTypeParam(t, 0) {
		return true
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.TypeArgs().Len() > 0
}

// byShape returns the methods the program declares (on its concrete and
// its generic types) with m's name and m's number of parameters and
// results: the implementations of a generic interface's method, matched by
// name and arity since their types differ only by type arguments.
func (x *implIndex) byShape(m *types.Func) []*ssa.Function {
	sig := m.Type().(*types.Signature)
	var out []*ssa.Function
	for _, ns := range [][]*types.Named{x.types, x.generic} {
		for _, n := range ns {
			for i := 0; i < n.NumMethods(); i++ {
				dm := n.Method(i)
				ds := dm.Type().(*types.Signature)
				if dm.Name() != m.Name() || ds.Params().Len() != sig.Params().Len() || ds.Results().Len() != sig.Results().Len() {
					continue
				}
				if f := x.prog.FuncValue(dm); f != nil && built(f).Blocks != nil {
					out = append(out, f)
				}
			}
		}
	}
	return out
}

func containsFunc(fs []*ssa.Function, f *ssa.Function) bool {
	for _, x := range fs {
		if x == f {
			return true
		}
	}
	return false
}

// unwrap returns the declared method behind a synthetic wrapper (a bound
// method value h.onOrder, a method expression, a promoted method), or f.
func unwrap(prog *ssa.Program, f *ssa.Function) *ssa.Function {
	if f == nil || f.Synthetic == "" {
		return f
	}
	if obj, ok := f.Object().(*types.Func); ok {
		if m := prog.FuncValue(obj); m != nil && m != f {
			return m
		}
		// A method of an instance of a generic type (Store[Order].Get,
		// promoted to a type that embeds it): the instance, which runs its
		// origin's body with its type arguments.
		if recv := obj.Signature().Recv(); recv != nil && obj.Origin() != obj {
			if sel := prog.MethodSets.MethodSet(recv.Type()).Lookup(obj.Pkg(), obj.Name()); sel != nil {
				if m := prog.MethodValue(sel); m != nil && m != f {
					return m
				}
			}
		}
	}
	return f
}

// findHandlers finds the handlers no name or type says are handlers:
// functions handed to a registration API of the catalog (a mux, a task
// server), and, in a whole program, functions a message is dispatched to —
// through a func value called where a message is handled, or through an
// interface method given the message itself — to a fixpoint, since a
// dispatched handler may dispatch again (middleware).
func (a *pkgAnalysis) findHandlers() {
	a.findOnceReceivers()
	for _, fn := range a.funcs {
		for ci := range callsIn(fn) {
			f := callee(ci.Common())
			rules := a.callRules(ci) // through the program's own interface over a client too
			_, args := splitArgs(ci.Common())
			once := false // the call subscribes at most once (an MQTT QoS 0 subscription)
			for _, r := range rules {
				if r.Role == knowledge.AtMostOnce && r.WhenZero != "" {
					n, ok := constInt(arg(args, knowledge.Param(f, r.WhenZero)))
					once = once || ok && n == 0
				}
			}
			for _, r := range rules {
				switch r.Role {
				case knowledge.AtMostOnce:
					if r.WhenZero != "" && !once {
						continue // QoS 1 or 2, or not known: redelivered
					}
					for _, h := range a.handlerValues(arg(args, r.arg)) {
						a.once[h] = true
					}
					continue
				case knowledge.Register, knowledge.Subscribe:
					if once {
						break
					}
					for _, h := range a.handlerValues(arg(args, r.arg)) {
						a.redelivered[h] = true
					}
				}
				if r.Role != knowledge.Register {
					continue
				}
				for _, h := range a.handlerValues(arg(args, r.arg)) {
					a.registered[h] = true
					// A framework acks what its handler returns nil for
					// (or, for some, whatever it returns).
					if res := h.Signature.Results(); res.Len() > 0 && isError(res.At(res.Len()-1).Type()) {
						if _, ok := a.resultAck[h]; !ok || r.CommitsAlways {
							a.resultAck[h] = resultAck{index: res.Len() - 1, isErr: true, always: r.CommitsAlways}
						}
					}
				}
			}
		}
	}
	if a.callees == nil {
		return
	}
	a.findQueueHandlers()
	a.findListQueues()
	a.findClaimHandlers()
	handles := map[*ssa.Function]bool{}
	for _, fn := range a.funcs {
		if a.receives(fn) || a.receivesFed(fn) {
			handles[fn] = true
		}
	}
	// Closures a function calls where it makes them (a recover wrapper:
	// func() (err error) { defer …; return h(…) }()), by the named
	// function they are nested in: inside a handler, they are the handler.
	inline := map[*ssa.Function]*ssa.Function{}
	for _, fn := range a.funcs {
		if fn.Parent() != nil && calledOnly(fn) {
			inline[fn] = outermost(fn)
		}
	}
	for changed := true; changed; {
		changed = false
		for _, fn := range a.funcs {
			inHandler := handles[fn] || a.dispatched[fn] || a.registered[fn] || a.relays[fn]
			if top := inline[fn]; top != nil {
				inHandler = inHandler || handles[top] || a.dispatched[top] || a.registered[top] || a.relays[top]
			}
			for ci := range callsIn(fn) {
				if f := ci.Common().StaticCallee(); f != nil {
					if inHandler && f.Blocks != nil && a.local(f.Pkg) && a.messageArg(ci) {
						a.feed(fn, f) // a helper handed the message: fed by this handler
					}
					if inHandler && f.Blocks != nil && a.local(f.Pkg) && !a.relays[f] && relaysCallback(ci) {
						a.relays[f] = true
						a.feed(fn, f)
						changed = true
					}
					continue
				}
				if ci.Common().IsInvoke() && a.cat.Lookup(ci.Common().Method) != nil {
					continue // a client's own interface: the catalog says what it is
				}
				if !inHandler && !a.messageArg(ci) {
					continue
				}
				if ci.Common().IsInvoke() && !a.messageArg(ci) && !(inHandler && a.processorCall(fn, ci)) {
					continue // a repository or a service given decoded values: followed as a call
				}
				for _, f := range a.callees[ci] {
					if f.Parent() != fn && a.local(f.Pkg) {
						a.feed(fn, f)
					}
					if f.Parent() == fn || !a.local(f.Pkg) || a.dispatched[f] {
						continue // a closure of the caller is judged where it is made
					}
					a.dispatched[f] = true
					a.dispatchSites[f] = append(a.dispatchSites[f], ci)
					changed = true
					if ra, ok := a.ackPolarity(fn, ci); ok {
						a.resultAck[f] = ra
					} else if a.queued[fn] {
						// A queue handler handing its items on: the
						// queue's protocol applies to the next one.
						a.queueOn(fn, ci, f)
					}
				}
			}
		}
	}
	a.propagateOnce()
}

// relaysCallback reports whether a call hands on a func value its caller
// was given (a parameter or a captured variable): a retry helper the
// handler passes its callback to.
func relaysCallback(ci ssa.CallInstruction) bool {
	for _, v := range ci.Common().Args {
		if _, ok := v.Type().Underlying().(*types.Signature); !ok {
			continue
		}
		if ld, ok := v.(*ssa.UnOp); ok && ld.Op == token.MUL {
			v = ld.X // a captured variable's cell
		}
		switch v.(type) {
		case *ssa.Parameter, *ssa.FreeVar:
			return true
		}
	}
	return false
}

// resultAck says which result of a handler makes its dispatcher ack the
// message: result index, a bool (true or false acks) or an error (nil
// acks).
type resultAck struct {
	index int
	isErr bool
	value bool // for a bool: the value that acks
	// field names the bool field of a struct result that acks (a
	// HandlerOutput{Ack: true}); "" when the result itself decides.
	field string
	// always: the dispatcher acks whatever the handler returns (dp-kafka
	// commits a registered handler's message even after an error).
	always bool
}

// acks reports whether v, returned as the result, makes the dispatcher ack.
func (r resultAck) acks(v ssa.Value) bool {
	if r.always {
		return true
	}
	if r.isErr {
		return isNilConst(v)
	}
	if r.field != "" {
		v = fieldValue(v, r.field)
	}
	b, ok := constBool(v)
	return ok && b == r.value
}

func (r resultAck) String() string {
	v := "false"
	switch {
	case r.isErr:
		return "nil"
	case r.value:
		v = "true"
	}
	if r.field != "" {
		return r.field + ": " + v
	}
	return v
}

// ackPolarity finds how fn, a dispatcher, acks by the result of its call
// ci to a handler: an If on the result (a bool, or an error against nil)
// one of whose sides dominates an ack and the other none.
func (a *pkgAnalysis) ackPolarity(fn *ssa.Function, ci ssa.CallInstruction) (resultAck, bool) {
	call, ok := ci.(*ssa.Call)
	if !ok {
		return resultAck{}, false
	}
	var acks []*ssa.BasicBlock
	republished := a.republishBlocks(fn)
	for c := range callsIn(fn) {
		if a.cat.Has(callee(c.Common()), knowledge.Ack) && !dominatedByAny(republished, c.Block()) {
			acks = append(acks, c.Block()) // not an ack after the message was published again (a retry)
		}
	}
	if len(acks) == 0 {
		return resultAck{}, false
	}
	res := call.Call.Signature().Results()
	for i := 0; i < res.Len(); i++ {
		t := res.At(i).Type()
		v := result(call, i)
		if v == nil {
			continue
		}
		tested := []resultField{{v: v}}
		isBool := isBool(t)
		if !isBool && !isError(t) {
			// A struct result whose bool field decides
			// (if out := h(m); out.Ack { ack }).
			tested, isBool = boolFields(v), true
		}
		for _, rf := range tested {
			if ra, ok := a.ackBranch(fn, acks, rf, isBool); ok {
				ra.index = i
				return ra, true
			}
		}
	}
	return resultAck{}, false
}

// ackBranch finds an If on the tested value rf (a bool, or an error against
// nil) one of whose sides dominates an ack in fn and the other none.
func (a *pkgAnalysis) ackBranch(fn *ssa.Function, acks []*ssa.BasicBlock, rf resultField, isBool bool) (resultAck, bool) {
	// acksOn reports whether side, a successor of the If ending b, leads
	// to an ack that other does not: side dominates it and other does
	// not, unless other is a loop's header above b (a header dominates
	// all of its loop's body).
	acksOn := func(b, side, other *ssa.BasicBlock) bool {
		for _, ab := range acks {
			if side.Dominates(ab) && (!other.Dominates(ab) || other.Dominates(b)) {
				return true
			}
		}
		return false
	}
	v := rf.v
	for _, b := range fn.Blocks {
		ifi, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If)
		if !ok {
			continue
		}
		// condTrue is the value of v for which the If's condition holds
		// (for an error, true stands for nil).
		condTrue, ok := false, false
		switch c := ifi.Cond.(type) {
		case *ssa.UnOp:
			condTrue, ok = false, isBool && c.Op == token.NOT && c.X == v
		case *ssa.BinOp:
			if !isBool && (c.X == v && isNilConst(c.Y) || c.Y == v && isNilConst(c.X)) {
				condTrue, ok = c.Op == token.EQL, c.Op == token.EQL || c.Op == token.NEQ
			}
		}
		if isBool && ifi.Cond == v { // the bool itself (a field's is a load)
			condTrue, ok = true, true
		}
		if !ok {
			continue
		}
		var ackValue bool
		switch {
		case acksOn(b, b.Succs[0], b.Succs[1]) && !acksOn(b, b.Succs[1], b.Succs[0]):
			ackValue = condTrue
		case acksOn(b, b.Succs[1], b.Succs[0]) && !acksOn(b, b.Succs[0], b.Succs[1]):
			ackValue = !condTrue
		default:
			continue
		}
		if isBool {
			return resultAck{value: ackValue, field: rf.field}, true
		}
		if ackValue { // acked on a nil error
			return resultAck{isErr: true}, true
		}
	}
	return resultAck{}, false
}

// handlerValues returns the functions a registered handler value is: a
// function, a closure, a method value (its method), a conversion to a
// handler func type (asynq.HandlerFunc(fn)), a value of a concrete type
// passed as an interface (a kq.ConsumeHandler): its methods that implement
// the interface's; the values of a map of them (machinery's RegisterTasks);
// and, for a parameter of the program's own registration helper, what its
// callers pass.
func (a *pkgAnalysis) handlerValues(v ssa.Value) []*ssa.Function {
	return a.handlerValuesDepth(v, 0)
}

func (a *pkgAnalysis) handlerValuesDepth(v ssa.Value, depth int) []*ssa.Function {
	if v == nil || depth > 4 {
		return nil
	}
	if f := funcValue(v); f != nil {
		return []*ssa.Function{unwrap(a.prog, f)}
	}
	if c, ok := peel(v).(*ssa.Call); ok && c.Call.StaticCallee() == nil && !c.Call.IsInvoke() {
		if f := funcValue(c.Call.Value); f != nil {
			return []*ssa.Function{unwrap(a.prog, f)}
		}
	}
	switch x := peel(v).(type) {
	case *ssa.MakeMap:
		// A table of task functions (machinery's RegisterTasks).
		var out []*ssa.Function
		for _, r := range *x.Referrers() {
			if u, ok := r.(*ssa.MapUpdate); ok {
				out = append(out, a.handlerValuesDepth(u.Value, depth+1)...)
			}
		}
		return out
	case *ssa.Parameter:
		// Registered through the program's own helper
		// (RegisterJob(tasks) calling RegisterTasks(tasks)): what its
		// callers pass.
		if depth >= 3 {
			return nil
		}
		var out []*ssa.Function
		for _, v := range a.argsFor(x) {
			out = append(out, a.handlerValuesDepth(v, depth+1)...)
		}
		return out
	}
	mi, ok := v.(*ssa.MakeInterface)
	if !ok {
		return nil
	}
	iface, ok := v.Type().Underlying().(*types.Interface)
	if !ok {
		return nil
	}
	var out []*ssa.Function
	mset := a.prog.MethodSets.MethodSet(mi.X.Type())
	for i := 0; i < iface.NumMethods(); i++ {
		m := iface.Method(i)
		if sel := mset.Lookup(m.Pkg(), m.Name()); sel != nil {
			if f := a.prog.MethodValue(sel); f != nil && f.Blocks != nil {
				out = append(out, unwrap(a.prog, f))
			}
		}
	}
	return out
}

// receives reports whether fn handles messages: it has a message parameter,
// receives from a channel of messages, or calls a fetch API.
func (a *pkgAnalysis) receives(fn *ssa.Function) bool {
	for _, p := range fn.Params {
		if a.cat.Message(p.Type()) != nil {
			return true
		}
	}
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			switch in := instr.(type) {
			case *ssa.UnOp:
				if in.Op == token.ARROW && a.cat.Message(in.X.Type()) != nil {
					return true
				}
			case *ssa.Select:
				for _, st := range in.States {
					if st.Dir == types.RecvOnly && a.cat.Message(st.Chan.Type()) != nil {
						return true
					}
				}
			case ssa.CallInstruction:
				if a.callHas(in, knowledge.Fetch) {
					return true
				}
			}
		}
	}
	return false
}

// messageArg reports whether a call is given a broker message (or a
// pointer to one) as an argument.
func (a *pkgAnalysis) messageArg(ci ssa.CallInstruction) bool {
	for _, v := range ci.Common().Args {
		if a.cat.Message(peel(v).Type()) != nil {
			return true
		}
	}
	return false
}

// atMostOnce reports whether fn handles only messages of subscriptions the
// broker never delivers twice (a core NATS Subscribe callback, a receive
// from an exclusive queue's deliveries, or what only such handlers hand
// the message to): a redelivery cannot repeat its effects. A producer that
// sends again after a timeout still can; that is not modelled.
func (a *pkgAnalysis) atMostOnce(fn *ssa.Function) bool {
	return a.once[fn] && !a.redelivered[fn]
}

// feed records that handler from hands its message to to.
func (a *pkgAnalysis) feed(from, to *ssa.Function) {
	if !slices.Contains(a.feeders[to], from) {
		a.feeders[to] = append(a.feeders[to], from)
	}
}

// propagateOnce marks at most once the functions fed only by handlers that
// are at most once, to a fixpoint.
func (a *pkgAnalysis) propagateOnce() {
	for changed := true; changed; {
		changed = false
		for to, from := range a.feeders {
			if a.once[to] || a.redelivered[to] {
				continue
			}
			all := true
			for _, f := range from {
				all = all && a.atMostOnce(f)
			}
			if all {
				a.once[to] = true
				changed = true
			}
		}
	}
}

// findOnceReceivers marks the functions that receive messages only from
// deliveries of exclusive queues (declared exclusive: the queue, and what
// is in it, is gone when the consumer's connection is), kept in a variable
// or a struct field; and, as redelivered, those that receive from any other
// delivery channel.
func (a *pkgAnalysis) findOnceReceivers() {
	chans := map[ssa.Value]bool{}
	fields := map[string]bool{}
	for _, fn := range a.funcs {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				call, ok := instr.(*ssa.Call)
				if !ok {
					continue
				}
				for _, r := range a.rulesOf(callee(call.Common())) {
					if r.Role != knowledge.AutoAckConsume {
						continue
					}
					_, args := splitArgs(call.Common())
					if !a.exclusiveQueue(arg(args, r.key)) {
						continue
					}
					dl := result(call, 0)
					if dl == nil {
						continue
					}
					chans[dl] = true
					for _, ref := range *dl.Referrers() {
						if st, ok := ref.(*ssa.Store); ok && st.Val == dl {
							if fa, ok := st.Addr.(*ssa.FieldAddr); ok {
								fields[fieldKey(fa)] = true
							}
						}
					}
				}
			}
		}
	}
	once := func(ch ssa.Value) bool {
		ch = peel(ch)
		if chans[ch] {
			return true
		}
		if ld, ok := ch.(*ssa.UnOp); ok && ld.Op == token.MUL {
			if fa, ok := ld.X.(*ssa.FieldAddr); ok {
				return fields[fieldKey(fa)]
			}
		}
		return false
	}
	for _, fn := range a.funcs {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				var chs []ssa.Value
				switch in := instr.(type) {
				case *ssa.UnOp:
					if in.Op == token.ARROW && a.cat.Message(in.X.Type()) != nil {
						chs = append(chs, in.X)
					}
				case *ssa.Select:
					for _, st := range in.States {
						if st.Dir == types.RecvOnly && a.cat.Message(st.Chan.Type()) != nil {
							chs = append(chs, st.Chan)
						}
					}
				}
				for _, ch := range chs {
					if once(ch) {
						a.once[fn] = true
					} else {
						a.redelivered[fn] = true
					}
				}
			}
		}
	}
}

// exclusiveQueue reports whether q, a queue name, is the Name of a queue
// declared exclusive (QueueDeclare("", …, exclusive true, …)).
func (a *pkgAnalysis) exclusiveQueue(q ssa.Value) bool {
	var decl ssa.Value
	switch x := peel(q).(type) {
	case *ssa.Field:
		decl = x.X
	case *ssa.UnOp:
		if fa, ok := x.X.(*ssa.FieldAddr); ok {
			decl = fa.X
		}
	}
	if decl == nil {
		return false
	}
	if al, ok := decl.(*ssa.Alloc); ok {
		// q, err := ch.QueueDeclare(…) kept in memory: the value stored.
		decl = nil
		for _, r := range *al.Referrers() {
			if st, ok := r.(*ssa.Store); ok && st.Addr == al {
				decl = st.Val
			}
		}
		if decl == nil {
			return false
		}
	}
	if ex, ok := peel(decl).(*ssa.Extract); ok {
		decl = ex.Tuple
	}
	call, ok := decl.(*ssa.Call)
	if !ok {
		return false
	}
	for _, r := range a.rulesOf(callee(call.Common())) {
		if r.Role == knowledge.ExclusiveQueue {
			_, args := splitArgs(call.Common())
			b, ok := constBool(arg(args, r.arg))
			return ok && b
		}
	}
	return false
}

// deadLettered reports whether the program declares a dead-letter
// destination anywhere (a queue argument naming one, as a constant): then a
// nak without requeue dead-letters, it does not drop.
func (a *pkgAnalysis) deadLettered() bool {
	if a.dlx != 0 {
		return a.dlx == 1
	}
	a.dlx = 2
	for _, fn := range a.funcs {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				for _, op := range instr.Operands(nil) {
					if k, ok := (*op).(*ssa.Const); ok && k.Value != nil && k.Value.Kind() == constant.String && a.cat.DeadLetter(constant.StringVal(k.Value)) {
						a.dlx = 1
						return true
					}
				}
			}
		}
	}
	return false
}
