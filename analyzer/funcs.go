package analyzer

import (
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strings"

	"github.com/idemkit/idem/analyzer/internal/sqlclass"
	"github.com/idemkit/idem/analyzer/knowledge"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"
)

// pkgAnalysis is the analysis of one package: its SSA, a summary of each of
// its functions (effects, checks, decisions), and the diagnostics.
type pkgAnalysis struct {
	fset *token.FileSet
	// pass is the package's pass in modular mode (one package at a time,
	// other packages known through facts); nil for a whole program.
	pass *analysis.Pass
	emit func(Finding)
	cat  *knowledge.Catalog
	cfg  *config
	dirs *directives
	prog *ssa.Program
	pkg  *ssa.Package // modular mode: the package analysed
	// pkgs, for a whole program: the packages built from syntax, whose
	// functions are analysed; callees: the functions a dynamic call (an
	// interface method or a func value) can reach, from the call graph.
	pkgs    map[*ssa.Package]bool
	callees map[ssa.CallInstruction][]*ssa.Function
	// promoted: the dependency methods an interface call reaches through
	// the program's types that embed a dependency's (dynamicCallees).
	promoted map[ssa.CallInstruction][]*types.Func
	// receivers: the functions receiving from each channel field or
	// variable; handoffs: what a call of a function hands to another
	// goroutine over one (handoff.go). Both built on demand.
	receivers map[any][]*ssa.Function
	// fed: the channels a function that fetches queues messages on for
	// the program's workers (fedchans.go); built on demand.
	fed      map[any]bool
	handoffs map[*ssa.Function]string
	// dispatched: functions a message is dispatched to through a func value
	// or an interface (a handler registered with a helper), and registered:
	// those handed to a registration API; both are handlers.
	dispatched map[*ssa.Function]bool
	registered map[*ssa.Function]bool
	// once: handlers whose messages come only from subscriptions the
	// broker never delivers twice (core NATS), directly or dispatched from
	// one; redelivered: handlers that also get messages from elsewhere.
	once, redelivered map[*ssa.Function]bool
	dlx               uint8                             // deadLettered: 0 unknown, 1 yes, 2 no
	feeders           map[*ssa.Function][]*ssa.Function // handler → the handlers that hand it their message
	// queued: the handlers of the program's own queues (queues.go), and
	// what they dispatch their items to.
	queued map[*ssa.Function]bool
	// queuePkgs: the packages that implement such a queue; their writes
	// store items, they publish.
	queuePkgs map[*ssa.Package]bool
	// clients, for a whole program: the catalogued client types it
	// converts to an interface (clientimpls.go).
	clients []types.Type
	// encoders: the program's functions that serialize (queues.go).
	encoders map[*ssa.Function]bool
	// resultAck: handlers whose dispatcher acks the message by one of
	// their results (true, or a nil error).
	resultAck map[*ssa.Function]resultAck
	funcs     []*ssa.Function
	sums      map[*ssa.Function]*summary
	globals   map[*ssa.Global][]ssa.Value
	uses      map[*ssa.Function]*funcUses
	files     map[string]*token.File
	seen      map[string]bool // reported diagnostics: pos + code
	impls     map[*types.Func][]implEffect
	fields    map[string][]ssa.Value
	stmts     map[string][]ssa.Value // prepared statements kept in fields (stmtFields)
	fresh     map[*types.Func]string // freshFunc's answers
}

// local reports whether p's functions are analysed here (their summaries
// are known), rather than known through facts.
func (a *pkgAnalysis) local(p *ssa.Package) bool {
	if p == nil {
		return false
	}
	if a.pkgs != nil {
		return a.pkgs[p]
	}
	return p == a.pkg
}

// importFact imports obj's fact of fact's type from another package, in
// modular mode; a whole program has no facts (it sees every body).
func (a *pkgAnalysis) importFact(obj types.Object, fact analysis.Fact) bool {
	return a.pass != nil && a.pass.ImportObjectFact(obj, fact)
}

// funcUses counts how a function of the package is used: called statically,
// or taken as a value (registered as a callback, stored).
type funcUses struct {
	calls  []ssa.CallInstruction
	values int
}

func newPkgAnalysis(pass *analysis.Pass, cat *knowledge.Catalog, cfg *config, dirs *directives) *pkgAnalysis {
	a := newAnalysis(pass.Fset, cat, cfg, dirs)
	a.pass, a.emit = pass, func(f Finding) { pass.Report(f.Diagnostic) }
	return a
}

func newAnalysis(fset *token.FileSet, cat *knowledge.Catalog, cfg *config, dirs *directives) *pkgAnalysis {
	return &pkgAnalysis{fset: fset, cat: cat, cfg: cfg, dirs: dirs,
		sums: map[*ssa.Function]*summary{}, uses: map[*ssa.Function]*funcUses{}, seen: map[string]bool{},
		fresh: map[*types.Func]string{}, dispatched: map[*ssa.Function]bool{}, registered: map[*ssa.Function]bool{}, once: map[*ssa.Function]bool{}, redelivered: map[*ssa.Function]bool{}, feeders: map[*ssa.Function][]*ssa.Function{}, queued: map[*ssa.Function]bool{}, queuePkgs: map[*ssa.Package]bool{},
		resultAck: map[*ssa.Function]resultAck{}, handoffs: map[*ssa.Function]string{}}
}

// build creates the package's SSA (as buildssa does, without ctrlflow: a
// short list of functions that never return stands in for its facts).
func (a *pkgAnalysis) build() {
	a.prog = ssa.NewProgram(a.fset, ssaMode)
	a.prog.SetNoReturn(a.cat.NoReturn)
	for _, p := range a.pass.Pkg.Imports() {
		a.prog.CreatePackage(p, nil, nil, true)
	}
	a.pkg = a.prog.CreatePackage(a.pass.Pkg, a.pass.Files, a.pass.TypesInfo, false)
	a.pkg.Build()
	var add func(f *ssa.Function)
	add = func(f *ssa.Function) {
		a.funcs = append(a.funcs, f)
		for _, anon := range f.AnonFuncs {
			add(anon)
		}
	}
	for _, file := range a.pass.Files {
		for _, decl := range file.Decls {
			if decl, ok := decl.(*ast.FuncDecl); ok {
				obj, ok := a.pass.TypesInfo.Defs[decl.Name].(*types.Func)
				if !ok {
					continue
				}
				if f := a.prog.FuncValue(obj); f != nil {
					add(f)
				}
			}
		}
	}
	// Package-level closures (var h = func(…){…}) live in init.
	if init := a.pkg.Func("init"); init != nil {
		add(init)
	}
}

func (a *pkgAnalysis) run() {
	a.build()
	a.countUses()
	a.findHandlers()
	a.analyseAll()
	a.exportFacts()
	a.checkAll()
}

// analyseAll summarises every function.
func (a *pkgAnalysis) analyseAll() {
	for _, fn := range a.funcs {
		a.summary(fn)
	}
}

// checkAll reports the diagnostics of every function, then the malformed
// directives.
func (a *pkgAnalysis) checkAll() {
	for _, fn := range a.funcs {
		a.check(fn)
	}
	a.reportDirectives()
}

// countUses records, for every function of the package, its static calls
// and its uses as a value.
func (a *pkgAnalysis) countUses() {
	use := func(f *ssa.Function) *funcUses {
		u := a.uses[f]
		if u == nil {
			u = &funcUses{}
			a.uses[f] = u
		}
		return u
	}
	for _, fn := range a.funcs {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				if ci, ok := instr.(ssa.CallInstruction); ok {
					if f := ci.Common().StaticCallee(); f != nil {
						use(f).calls = append(use(f).calls, ci)
					}
				}
				for _, op := range instr.Operands(nil) {
					if op == nil || *op == nil {
						continue
					}
					var f *ssa.Function
					switch x := (*op).(type) {
					case *ssa.Function:
						f = x
					case *ssa.MakeClosure:
						f, _ = x.Fn.(*ssa.Function)
					}
					if f == nil {
						continue
					}
					if ci, ok := instr.(ssa.CallInstruction); ok && ci.Common().Value == *op {
						continue // a call, counted above
					}
					if _, ok := instr.(*ssa.MakeClosure); ok && (*op) == instr.(*ssa.MakeClosure).Fn {
						// the closure's value is what is used; count its uses
						mc := instr.(*ssa.MakeClosure)
						for _, r := range *mc.Referrers() {
							if ci, ok := r.(ssa.CallInstruction); ok && ci.Common().Value == mc {
								continue
							}
							use(f).values++
						}
						continue
					}
					use(f).values++
				}
			}
		}
	}
}

// summary is what the analysis knows about one function.
type summary struct {
	fn      *ssa.Function
	cat     *knowledge.Catalog
	state   uint8 // 0 new, 1 in progress, 2 done
	root    bool  // a handler: receives a message, or loops over a source
	param   bool  // a root by a message parameter (one message per call)
	handler bool  // marked //idem:handler
	sources []ssa.Instruction
	srcSet  map[ssa.Instruction]bool
	elems   map[ssa.Instruction]bool // elements of a fetched batch (also in srcSet)

	occs      []*occ
	byInstr   map[ssa.Instruction][]*occ
	checks    []*check
	values    map[ssa.Value]*dval
	decisions []*decision
	acks      []ssa.CallInstruction
	dels      []ssa.CallInstruction
	waits     map[ssa.Instruction]bool
	autoAcks  []autoAck
	unique    bool // tests an error for a unique violation
	guarded   map[int]bool
	dedup     *dedupFact
	unguarded []*occ
	doTx      map[*ssa.Function]*check // closures passed to a guard Do: the check

	failures   []*decision              // error branches: fresh holds the failure side
	guardWork  map[ssa.Instruction]*occ // guard calls as work (workAt), built lazily
	dispatch   map[ssa.Instruction]*occ // calls that dispatch the message to a handler, as work
	benign     []benignSide
	writes     map[string]map[string]bool // table, collection or model → the columns written, here or in a callee
	drops      []ssa.CallInstruction      // naks without requeue in a program that declares no dead-letter exchange
	row        *stateFact                 // the function returns a looked-up row
	redisMarks int
	// sends: the function publishes a message, here or in a callee (an
	// effect only with -publish): a step whose failure is no poison
	// message.
	sends bool
	// callsOut: the function calls, here or in a callee, a function of a
	// dependency outside the catalog that takes a context (an API
	// client's request): I/O whose failure is no poison message.
	callsOut bool
	// nwrites counts the writes recorded, idempotent or not (SQL and ORM
	// writes of a known table, Redis SETs, calls of functions that write);
	// wroteAt holds the calls that made it grow: where the message's writes
	// are, for a rule about losing it (IDEM007).
	nwrites int
	wroteAt map[ssa.Instruction]bool
}

// marks reports whether a lookup's key is recorded afterwards (an SQL write
// to its table, a Redis write): a lookup-then-act dedup, not a mere read.
func (s *summary) marks(c *check) bool {
	if c.store == knowledge.Redis {
		return s.redisMarks > 0 || len(s.occs) > 0 && hasKind(s.occs, knowledge.Redis)
	}
	_, ok := s.writes[c.table]
	return c.table != "" && ok
}

// addWrite records a write of table, setting cols.
func (s *summary) addWrite(table string, cols ...string) {
	s.nwrites++
	if s.writes == nil {
		s.writes = map[string]map[string]bool{}
	}
	m := s.writes[table]
	if m == nil {
		m = map[string]bool{}
		s.writes[table] = m
	}
	for _, c := range cols {
		m[c] = true
	}
}

// followStores gives the loads of a local variable the decision value last
// stored into it: `_, err = tx.ExecContext(…)` into a named result err of a
// function with a defer, tested afterwards.
func (s *summary) followStores() {
	vals := make([]ssa.Value, 0, len(s.values))
	for v := range s.values {
		vals = append(vals, v)
	}
	for _, v := range vals {
		refs := v.Referrers()
		if refs == nil {
			continue
		}
		for _, r := range *refs {
			st, ok := r.(*ssa.Store)
			if !ok || st.Val != v {
				continue
			}
			al, ok := st.Addr.(*ssa.Alloc)
			if !ok {
				continue
			}
			for _, ar := range *al.Referrers() {
				if ld, ok := ar.(*ssa.UnOp); ok && ld.Op == token.MUL && reachingStore(al, ld) == st {
					if _, set := s.values[ld]; !set {
						s.values[ld] = s.values[v]
					}
				}
			}
		}
	}
}

// reachingStore returns the store into al that a load certainly reads: the
// one that runs before it with no other store in between, nil if unsure.
func reachingStore(al *ssa.Alloc, ld ssa.Instruction) *ssa.Store {
	var stores []*ssa.Store
	for _, r := range *al.Referrers() {
		if st, ok := r.(*ssa.Store); ok && st.Addr == al {
			stores = append(stores, st)
		}
	}
	before := func(a, b ssa.Instruction) bool { // a runs before b whenever b runs
		if a.Block() != b.Block() {
			return a.Block().Dominates(b.Block())
		}
		for _, in := range a.Block().Instrs {
			if in == a {
				return true
			}
			if in == b {
				return false
			}
		}
		return false
	}
	var last *ssa.Store
	for _, st := range stores {
		if !before(st, ld) {
			continue
		}
		if last == nil || before(last, st) {
			last = st
		}
	}
	if last == nil {
		return nil
	}
	// Another store that may run between last and the load: unsure.
	for _, st := range stores {
		if st == last || st.Block() == last.Block() || st.Block() == ld.Block() {
			continue // ordered within the block by before
		}
		if blockReaches(last.Block(), st.Block()) && blockReaches(st.Block(), ld.Block()) {
			return nil
		}
	}
	return last
}

// blockReaches reports whether to can run after from (a path of successors).
func blockReaches(from, to *ssa.BasicBlock) bool {
	return pathTo(from.Succs, to, nil, func(b *ssa.BasicBlock) []*ssa.BasicBlock { return b.Succs })
}

// pathTo reports whether a walk from the blocks start reaches to, taking
// from each block the successors next returns (nil ends the path there) and
// never entering skip.
func pathTo(start []*ssa.BasicBlock, to, skip *ssa.BasicBlock, next func(*ssa.BasicBlock) []*ssa.BasicBlock) bool {
	seen := map[*ssa.BasicBlock]bool{skip: true}
	stack := append([]*ssa.BasicBlock(nil), start...)
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if b == to {
			return true
		}
		if seen[b] {
			continue
		}
		seen[b] = true
		stack = append(stack, next(b)...)
	}
	return false
}

// nestedMarks reports whether a closure created in s records a Redis key
// after a Redis lookup: the SET queued in a TxPipelined callback of a WATCH
// transaction (WATCH key; EXISTS key; MULTI SET key … EXEC), which makes the
// lookup and the record atomic.
func (a *pkgAnalysis) nestedMarks(s *summary, c *check) bool {
	if c.store != knowledge.Redis {
		return false
	}
	for _, f := range s.fn.AnonFuncs {
		if a.summary(f).redisMarks > 0 {
			return true
		}
	}
	return false
}

func hasKind(os []*occ, k knowledge.Kind) bool {
	for _, o := range os {
		if o.kind == k && o.direct {
			return true
		}
	}
	return false
}

// occ is one occurrence of an effect in a function: a direct call, a call to
// a function with effects, or a closure created here.
type occ struct {
	instr     ssa.Instruction
	pos       token.Pos
	desc      string
	kind      knowledge.Kind
	recv      ssa.Value // the client/transaction used, when direct
	direct    bool
	inner     token.Pos // where the effect really is (for Related)
	innerMsg  string    // the Related message, when not "the effect"
	innerFact factEffect
	param     int    // SQL text is this parameter
	table     string // the table a direct SQL write changes
	errVal    ssa.Value
	insert    bool
	guardedBy *check
	covered   *check // an IDEM004 check before it
	fromCheck *check // a unique insert turned into a check
	pooled    bool   // the effect runs on a pool: it commits on its own
}

// check is a dedup check in a function.
type check struct {
	call      ssa.CallInstruction
	pos       token.Pos
	desc      string
	kind      checkKind
	recv      ssa.Value
	store     knowledge.Kind
	key       ssa.Value
	table     string
	decided   bool
	invalid   string // why it guards nothing: "lock", "no mark", or a fresh key
	decisions []*decision
	pooled    bool               // the record is written on a pool: it commits on its own
	sqlDedup  sqlclass.DedupKind // ckSQL: how the statement tells a fresh key
	state     bool               // ckLookup: a row's state read through a function (states.go)
	bases     []ssa.Value        // ckLookup: the rows (structs) it filled, which a function may return
}

type checkKind uint8

const (
	ckGuardDo checkKind = iota + 1
	ckClaim
	ckSetNX
	ckSQL    // dedup-capable statement (DO NOTHING, IGNORE, conditional UPDATE, DELETE)
	ckUnique // a plain insert whose error is tested for a unique violation
	ckLookup // a read whose result decides (check-then-act)
	ckFunc   // a function returning a dedup result (fact, annotation, flag)
)

// dval is a value that carries a check's decision.
type dval struct {
	chk      *check
	kind     vkind
	t, f, s  impl
	sentinel string // knowledge.NoRows or knowledge.DupKey: which sentinel errors compare to s
	field    string // vState: the field of the row, "" for the row itself
}

// decision is an If deciding on a check's result.
type decision struct {
	chk   *check
	blk   *ssa.BasicBlock
	succ  [2]impl // what the true and false successors imply
	fresh *ssa.BasicBlock
	other *ssa.BasicBlock
	what  string    // failures: the failing call
	err   ssa.Value // failures: the error tested
}

type autoAck struct {
	call ssa.CallInstruction
	kind knowledge.Role
	cb   ssa.Value // callback (knowledge.Subscribe)
	ch   ssa.Value // deliveries channel (knowledge.AutoAckConsume)
}

func (a *pkgAnalysis) summary(fn *ssa.Function) *summary {
	fn = built(fn)
	s := a.sums[fn]
	if s != nil {
		if s.state == 1 {
			return &summary{fn: fn} // recursion: nothing known yet
		}
		return s
	}
	s = &summary{fn: fn, cat: a.cat, state: 1, values: map[ssa.Value]*dval{}, byInstr: map[ssa.Instruction][]*occ{},
		waits: map[ssa.Instruction]bool{}, guarded: map[int]bool{}, srcSet: map[ssa.Instruction]bool{}, elems: map[ssa.Instruction]bool{},
		doTx: map[*ssa.Function]*check{}}
	a.sums[fn] = s
	a.analyse(s)
	s.state = 2
	return s
}

// isRoot decides whether fn is a handler.
func (a *pkgAnalysis) rootKind(s *summary) {
	fn := s.fn
	if obj, ok := fn.Object().(*types.Func); ok && strings.HasPrefix(a.dirs.funcs[obj], "handler") {
		s.root, s.param, s.handler = true, true, true
	}
	if a.dispatched[fn] || a.registered[fn] {
		s.root, s.param, s.handler = true, true, true
	}
	if lit, ok := fn.Syntax().(*ast.FuncLit); ok && a.dirs.handlers[lit.Type.Pos()] {
		s.root, s.param, s.handler = true, true, true
	}
	params := fn.Params
	if fn.Signature.Recv() != nil && len(params) > 0 {
		params = params[1:]
	}
	for _, p := range params {
		if a.cat.MessageClient(p.Type()) != "" {
			if _, ok := types.Unalias(p.Type()).Underlying().(*types.Chan); ok {
				continue // a channel of messages: its receives are sources
			}
			s.root, s.param = true, true
		}
	}
}

// analyse walks fn once: effects, checks, decision values, acks.
func (a *pkgAnalysis) analyse(s *summary) {
	fn := s.fn
	a.rootKind(s)
	var ifs []*ssa.If
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			switch in := instr.(type) {
			case ssa.CallInstruction:
				a.visitCall(s, in)
			case *ssa.UnOp:
				if in.Op == token.ARROW {
					if a.cat.MessageClient(in.X.Type()) != "" || a.fedReceive(in) {
						s.addSource(in)
					} else {
						s.waits[in] = true
					}
				}
			case *ssa.Select:
				s.waits[in] = true
				for _, st := range in.States {
					if st.Dir == types.RecvOnly && a.cat.Message(st.Chan.Type()) != nil {
						s.addSource(in) // for { select { case m := <-msgs: … } }
					}
				}
				if a.fedReceive(in) {
					s.addSource(in) // a worker of the program's own consumer
				}
			case *ssa.BinOp:
				if (in.Op == token.EQL || in.Op == token.NEQ) && (uniqueCode(a.cat, in.X) || uniqueCode(a.cat, in.Y)) {
					s.unique = true // pgErr.Code == "23505", mysqlErr.Number == 1062
				}
			case *ssa.IndexAddr:
				// Not the variadic array of a call (CommitMessages(ctx, m)):
				// a local array is written here, not a batch read.
				if _, local := in.X.(*ssa.Alloc); !local && a.cat.MessageClient(in.Type()) != "" {
					s.srcSet[in] = true // the next message of a batch
					s.elems[in] = true
				}
			case *ssa.If:
				ifs = append(ifs, in)
			}
		}
	}
	if len(s.sources) > 0 {
		s.root = true
	}
	// Plain inserts whose error is tested for a unique violation are checks.
	if s.unique {
		for _, o := range s.occs {
			if o.insert && o.errVal != nil {
				c := &check{call: o.instr.(ssa.CallInstruction), pos: o.pos, desc: o.desc, kind: ckUnique, recv: o.recv, store: o.kind}
				s.values[o.errVal] = &dval{chk: c, kind: vErr, t: implFresh, s: implDup, sentinel: knowledge.DupKey}
				o.fromCheck = c
				s.checks = append(s.checks, c)
			}
		}
	}
	// Decision values kept in variables that SSA leaves in memory (named
	// results of a function with a defer): their loads carry them too.
	s.followStores()
	// Decisions.
	for _, in := range ifs {
		if sd := s.stateCond(in.Cond); sd != nil {
			if d := s.stateDecision(in, sd); d != nil {
				sd.chk.decided = true
				sd.chk.decisions = append(sd.chk.decisions, d)
				s.decisions = append(s.decisions, d)
			}
			continue
		}
		c, t, f := s.cond(in.Cond, 0)
		b := in.Block()
		if c != nil && (t != implNone || f != implNone) {
			c.decided = true
			d := &decision{chk: c, blk: b, succ: [2]impl{t, f}}
			switch {
			case t == implFresh:
				d.fresh, d.other = b.Succs[0], b.Succs[1]
			case f == implFresh:
				d.fresh, d.other = b.Succs[1], b.Succs[0]
			}
			c.decisions = append(c.decisions, d)
			s.decisions = append(s.decisions, d)
		}
		if fail := a.failureSide(s, in); fail >= 0 {
			d := &decision{blk: b, fresh: b.Succs[fail], other: b.Succs[1-fail], what: errCallDesc(in.Cond), err: testedErr(in.Cond)}
			if ci, ok := a.respError(testedErr(in.Cond)); ok {
				d.what = describeCall(ci.Common())
			}
			if !a.handedOn(s, d) {
				s.failures = append(s.failures, d)
			}
		}
	}
	// Unique inserts that decide nothing stay effects; those that decide
	// are checks, not effects.
	keep := s.occs[:0]
	for _, o := range s.occs {
		if o.fromCheck != nil && o.fromCheck.decided {
			continue
		}
		o.fromCheck = nil
		keep = append(keep, o)
	}
	s.occs = keep
	s.byInstr = map[ssa.Instruction][]*occ{}
	for _, o := range s.occs {
		s.byInstr[o.instr] = append(s.byInstr[o.instr], o)
	}
	// Locks: a SET NX whose key is deleted on the success path.
	for _, c := range s.checks {
		if c.kind == ckSetNX && a.isLock(s, c) {
			c.invalid = "it is a lock: its key is deleted on the success path"
		}
		if c.kind == ckLookup && !s.marks(c) && !a.nestedMarks(s, c) {
			c.invalid = "nothing records the key after the lookup"
		}
		if ind, gen := a.keyIndependent(c.key); ind {
			c.invalid = "its key is built from " + gen + ", which differs on every delivery"
		}
	}
	// Guardedness of every occurrence.
	for _, o := range s.occs {
		o.guardedBy = s.guardOf(o.instr.Block(), o.instr)
	}
	// IDEM004 cover: effects after a check that decides nothing.
	for _, c := range s.checks {
		if !s.undecided(c) {
			continue
		}
		s.forward(c.call, func(in ssa.Instruction) int {
			for _, o := range s.byInstr[in] {
				if o.guardedBy == nil && o.covered == nil {
					o.covered = c
				}
			}
			return 0
		})
	}
	for _, o := range s.occs {
		if o.guardedBy == nil {
			s.addUnguarded(o)
		}
	}
	a.inferGuardedParams(s)
	a.inferDedup(s)
	a.inferState(s)
}

// addUnguarded records an unguarded effect, once per place it really
// happens, and at most maxUnguarded of them: what callers are told.
func (s *summary) addUnguarded(o *occ) {
	if len(s.unguarded) >= maxUnguarded {
		return
	}
	for _, x := range s.unguarded {
		if x.inner == o.inner && x.kind == o.kind && x.innerFact.QueryParam == o.innerFact.QueryParam {
			return
		}
	}
	s.unguarded = append(s.unguarded, o)
}

// maxUnguarded bounds the unguarded effects a function reports to callers.
const maxUnguarded = 16

func (s *summary) addSource(in ssa.Instruction) {
	if !s.srcSet[in] {
		s.srcSet[in] = true
		s.sources = append(s.sources, in)
	}
}

func (s *summary) addOcc(o *occ) {
	s.occs = append(s.occs, o)
	s.byInstr[o.instr] = append(s.byInstr[o.instr], o)
}

// undecided reports whether c is a check whose result decides no branch and
// that IDEM004 is about: SET NX, a claim, a dedup function, or an INSERT …
// DO NOTHING / conditional UPDATE (a DELETE is usually just a delete).
func (s *summary) undecided(c *check) bool {
	if c.decided {
		return false
	}
	switch c.kind {
	case ckSetNX, ckClaim, ckFunc:
		return true
	case ckSQL:
		return c.sqlDedup != sqlclass.DedupDelete
	}
	return false
}

// guardOf returns the check that guards instr in block b: one of its
// decisions has a fresh successor that dominates b, and a duplicate
// successor that cannot reach b without passing the decision again.
func (s *summary) guardOf(b *ssa.BasicBlock, instr ssa.Instruction) *check {
	for _, d := range s.decisions {
		if d.fresh == nil || !d.chk.valid() {
			continue
		}
		if d.fresh.Dominates(b) && !s.reaches(d.other, b, d.blk) {
			return d.chk
		}
	}
	return nil
}

// valid reports whether a check can guard anything: not a lock, and keyed
// on something that can repeat.
func (c *check) valid() bool { return c.invalid == "" }

// reaches reports whether block to is reachable from from without entering
// avoid or a block that receives the next message.
func (s *summary) reaches(from, to, avoid *ssa.BasicBlock) bool {
	if from == nil {
		return false
	}
	return pathTo([]*ssa.BasicBlock{from}, to, avoid, func(b *ssa.BasicBlock) []*ssa.BasicBlock {
		if s.hasSource(b) {
			return nil
		}
		return b.Succs
	})
}

func (s *summary) hasSource(b *ssa.BasicBlock) bool {
	for _, in := range b.Instrs {
		if s.srcSet[in] {
			return true
		}
	}
	return false
}

// precedes reports whether instruction a runs before b whenever both run:
// a's block dominates b's, and within one block a comes first.
func (s *summary) precedes(a, b ssa.Instruction) bool {
	if a.Block() != b.Block() {
		return a.Block().Dominates(b.Block())
	}
	for _, in := range a.Block().Instrs {
		switch in {
		case a:
			return true
		case b:
			return false
		}
	}
	return false
}

// forward visits the instructions that can run after start (in its block,
// then along successors), stopping a path at the next message. f returns 0
// to go on, 1 to stop this path, 2 to stop everything.
func (s *summary) forward(start ssa.Instruction, f func(ssa.Instruction) int) bool {
	return s.forwardUntil(start, s.srcSet, f)
}

// forwardUntil is forward with the set of instructions that end a path.
func (s *summary) forwardUntil(start ssa.Instruction, stop map[ssa.Instruction]bool, f func(ssa.Instruction) int) bool {
	b := start.Block()
	idx := 0
	for i, in := range b.Instrs {
		if in == start {
			idx = i + 1
			break
		}
	}
	seen := map[*ssa.BasicBlock]bool{}
	var walkBlock func(b *ssa.BasicBlock, from int) bool
	walkBlock = func(b *ssa.BasicBlock, from int) bool {
		for _, in := range b.Instrs[from:] {
			if stop[in] {
				return false
			}
			switch f(in) {
			case 1:
				return false
			case 2:
				return true
			}
		}
		for _, succ := range b.Succs {
			if seen[succ] {
				continue
			}
			seen[succ] = true
			if walkBlock(succ, 0) {
				return true
			}
		}
		return false
	}
	return walkBlock(b, idx)
}

// failureSide returns which successor of in (0 or 1) is the failure side of
// an error test (err != nil), -1 when in is no such test. Errors of decoding
// and validation, of acks, and of reads do not count: acking a message that
// cannot be decoded is how poison messages are dropped.
func (a *pkgAnalysis) failureSide(s *summary, in *ssa.If) int {
	bin, ok := in.Cond.(*ssa.BinOp)
	if !ok || (bin.Op != token.EQL && bin.Op != token.NEQ) {
		return -1
	}
	x, y := bin.X, bin.Y
	if isNilConst(x) {
		x, y = y, x
	}
	if !isNilConst(y) {
		return -1
	}
	if _, ok := a.respError(x); ok {
		// the error field of a response an API call filled
	} else if !isError(x.Type()) || !a.failingCall(x, 0) {
		return -1
	}
	if bin.Op == token.NEQ {
		return 0
	}
	return 1
}

// errCallDesc describes the call whose error an error test tests.
func errCallDesc(cond ssa.Value) string {
	bin, ok := cond.(*ssa.BinOp)
	if !ok {
		return "a call"
	}
	v := bin.X
	if isNilConst(v) {
		v = bin.Y
	}
	for range 4 {
		switch x := v.(type) {
		case *ssa.Extract:
			v = x.Tuple
			continue
		case *ssa.Phi:
			for _, e := range x.Edges {
				if !isNilConst(e) {
					v = e
					break
				}
			}
			continue
		case *ssa.Call:
			return describeCall(x.Common())
		}
		break
	}
	return "a call"
}

// respError reports whether v is the error field (Err, Error) of a
// response struct that a call doing work filled in
// (api.PerformUpload(ctx, &req, &res); if res.Error != nil …), and which
// call.
func (a *pkgAnalysis) respError(v ssa.Value) (ssa.CallInstruction, bool) {
	ld, ok := v.(*ssa.UnOp)
	if !ok || ld.Op != token.MUL {
		return nil, false
	}
	fa, ok := ld.X.(*ssa.FieldAddr)
	if !ok {
		return nil, false
	}
	if n := fieldName(fa.X.Type(), fa.Field); n != "Err" && n != "Error" {
		return nil, false
	}
	if !types.Implements(ld.Type(), errorType.Underlying().(*types.Interface)) {
		return nil, false
	}
	for _, r := range *fa.X.Referrers() {
		ci, ok := r.(ssa.CallInstruction)
		if !ok {
			continue
		}
		for _, x := range ci.Common().Args {
			if x == fa.X {
				if fn := callee(ci.Common()); fn != nil && hasContextParam(fn) {
					return ci, true
				}
			}
		}
	}
	return nil, false
}

// hasContextParam reports whether fn takes a context.Context: a call that
// does work somewhere (a database, a service), rather than a computation.
func hasContextParam(fn *types.Func) bool {
	sig, ok := fn.Type().(*types.Signature)
	if !ok {
		return false
	}
	for i := 0; i < sig.Params().Len(); i++ {
		if isContext(sig.Params().At(i).Type()) {
			return true
		}
	}
	return false
}

var decodeName = []string{"Unmarshal", "Decode", "Parse", "Valid", "Bind", "Scan", "Atoi", "Convert"}

// testedErr returns the error of an `err != nil` (or ==) test.
func testedErr(cond ssa.Value) ssa.Value {
	bin, ok := cond.(*ssa.BinOp)
	if !ok {
		return nil
	}
	if isNilConst(bin.X) {
		return bin.Y
	}
	return bin.X
}

// failingCall reports whether the error v comes from a call whose failure
// matters (an effect, a dedup check, processing), not from decoding.
func (a *pkgAnalysis) failingCall(v ssa.Value, depth int) bool {
	if depth > 4 {
		return false
	}
	switch x := v.(type) {
	case *ssa.Extract:
		return a.failingCall(x.Tuple, depth+1)
	case *ssa.Phi:
		for _, e := range x.Edges {
			if !isNilConst(e) && a.failingCall(e, depth+1) {
				return true
			}
		}
		return false
	case *ssa.Call:
		fn := callee(x.Common())
		if fn == nil {
			// A func value is processing, unless in a whole program every
			// function it can be is this program's and only decodes (a
			// preprocess callback that parses the message).
			return !a.decodesAll(a.callees[x])
		}
		rules := a.rulesOf(fn)
		for _, r := range rules {
			switch r.Role {
			case knowledge.Ack, knowledge.Nack, knowledge.Fetch, knowledge.RedisLookup, knowledge.Scan, knowledge.RowsAffected, knowledge.Prepare, knowledge.NewRequest,
				knowledge.Decode, knowledge.Telemetry, knowledge.Ignore:
				return false
			}
		}
		for _, r := range rules {
			if r.Role == knowledge.Effect || r.Role == knowledge.Publish {
				return true // a catalogued effect failing (smtp.SendMail takes no context)
			}
		}
		// The error of a go-redis command that is an effect
		// (rdb.IncrBy(…).Err(), .Result()) is that effect failing.
		if a.cat.Has(fn, knowledge.Reply) {
			if recv, _ := splitArgs(x.Common()); recv != nil {
				if fa, ok := recv.(*ssa.FieldAddr); ok {
					recv = fa.X // the embedded baseCmd of an IntCmd
				}
				if rc, ok := peel(recv).(*ssa.Call); ok {
					return a.cat.Has(callee(rc.Common()), knowledge.Effect)
				}
			}
			return false
		}
		// Other calls into a client library (a message's Metadata, a
		// reader's Config) fail harmlessly; its effects have rules.
		if fn.Pkg() != nil && a.cat.Known(knowledge.NormPath(fn.Pkg().Path())) && len(rules) == 0 {
			return false
		}
		// In a whole program, a function of a dependency that takes no
		// context (and is no interface method) parses or validates: its
		// failure is a poison message (gomatrixserverlib.SplitID,
		// uuid.Parse), not a step that must be retried.
		if a.pkgs != nil && !x.Call.IsInvoke() && !hasContextParam(fn) {
			if sf := a.prog.FuncValue(fn); sf == nil || !a.local(sf.Pkg) {
				return false
			}
		}
		for _, n := range decodeName {
			if strings.Contains(fn.Name(), n) || strings.HasPrefix(fn.Name(), strings.ToLower(n)) {
				return false
			}
		}
		// A function of this package that performs no effect, writes
		// nothing (not even idempotently), publishes nothing, checks no
		// key, acks nothing and tests no failure of its own calls decodes
		// or validates: its failure is a poison message, not a lost
		// effect. One that tests the failure of a call it makes, or calls
		// a dependency's function that takes a context (an API client's
		// request, an upload), fails for reasons a redelivery may not meet
		// again.
		if f := callee(x.Common()); f != nil {
			if a.decodes(a.prog.FuncValue(f)) {
				return false
			}
		}
		return true
	}
	return false
}

// decodesAll reports whether fs, the functions a dynamic call can reach,
// are some and all decode (see decodes).
func (a *pkgAnalysis) decodesAll(fs []*ssa.Function) bool {
	for _, f := range fs {
		if !a.decodes(f) {
			return false
		}
	}
	return len(fs) > 0
}

// decodes reports whether f is a function of this program that performs no
// effect, writes nothing (not even idempotently), publishes nothing, checks
// no key, acks nothing and tests no failure of its own calls: it decodes or
// validates, and its failure is a poison message.
func (a *pkgAnalysis) decodes(f *ssa.Function) bool {
	if f == nil || !a.local(f.Pkg) || f.Blocks == nil {
		return false
	}
	cs := a.summary(f)
	return len(cs.occs) == 0 && len(cs.checks) == 0 && len(cs.acks) == 0 && len(cs.writes) == 0 && !cs.sends && !cs.callsOut && len(cs.failures) == 0
}

// isLock reports whether the key of a SET NX is deleted on its success path
// (deferred, or in a block the fresh side reaches that is not an error
// branch): then the SET NX is a mutex around the effect, not a dedup record.
func (a *pkgAnalysis) isLock(s *summary, c *check) bool {
	for _, del := range s.dels {
		_, args := splitArgs(del.Common())
		same := false
		for _, k := range args[min(1, len(args)):] {
			if sameKey(k, c.key) {
				same = true
			}
		}
		if !same {
			continue
		}
		if _, ok := del.(*ssa.Defer); ok {
			return true
		}
		onFailure := false
		for _, d := range s.failures {
			if d.fresh.Dominates(del.Block()) {
				onFailure = true
			}
		}
		if !onFailure {
			return true
		}
	}
	return false
}

// sameKey reports whether two key values are the same value, or computed
// the same way from the same values and constants ("lock:"+o.User twice).
func sameKey(x, y ssa.Value) bool { return sameExpr(x, y, 0) }

func sameExpr(x, y ssa.Value, depth int) bool {
	if x == nil || y == nil || depth > 6 {
		return false
	}
	x, y = peelVariadic(peel(x)), peelVariadic(peel(y))
	if x == y {
		return true
	}
	if sx, ok := constString(x); ok {
		sy, ok := constString(y)
		return ok && sx == sy
	}
	switch a := x.(type) {
	case *ssa.BinOp:
		b, ok := y.(*ssa.BinOp)
		return ok && a.Op == b.Op && sameExpr(a.X, b.X, depth+1) && sameExpr(a.Y, b.Y, depth+1)
	case *ssa.UnOp:
		b, ok := y.(*ssa.UnOp)
		return ok && a.Op == b.Op && sameExpr(a.X, b.X, depth+1)
	case *ssa.FieldAddr:
		b, ok := y.(*ssa.FieldAddr)
		return ok && a.Field == b.Field && sameExpr(a.X, b.X, depth+1)
	case *ssa.Field:
		b, ok := y.(*ssa.Field)
		return ok && a.Field == b.Field && sameExpr(a.X, b.X, depth+1)
	case *ssa.Call:
		b, ok := y.(*ssa.Call)
		if !ok || len(a.Call.Args) != len(b.Call.Args) || callee(a.Common()) == nil || callee(a.Common()) != callee(b.Common()) {
			return false
		}
		for i := range a.Call.Args {
			if !sameExpr(a.Call.Args[i], b.Call.Args[i], depth+1) {
				return false
			}
		}
		return true
	}
	return false
}

// variadicValues returns the values (peeled) stored into the backing array
// of a variadic argument slice; ok is false when v is no such slice.
func variadicValues(v ssa.Value) (vals []ssa.Value, ok bool) {
	sl, ok := v.(*ssa.Slice)
	if !ok {
		return nil, false
	}
	alloc, ok := sl.X.(*ssa.Alloc)
	if !ok {
		return nil, false
	}
	for _, r := range *alloc.Referrers() {
		if ia, ok := r.(*ssa.IndexAddr); ok {
			for _, rr := range *ia.Referrers() {
				if st, ok := rr.(*ssa.Store); ok && st.Addr == ia {
					vals = append(vals, peel(st.Val))
				}
			}
		}
	}
	return vals, true
}

// peelVariadic returns the single element stored into a variadic slice.
func peelVariadic(v ssa.Value) ssa.Value {
	vals, ok := variadicValues(v)
	if !ok {
		return v
	}
	if len(vals) == 1 {
		return vals[0]
	}
	return v
}

// cond evaluates an If condition: which check it decides on, and what its
// true and false sides imply (fresh, duplicate, or nothing). It follows
// negations, comparisons with constants and sentinel errors, errors.Is, and
// phis of those (a && b), as gopls's yield analyzer follows booleans.
func (s *summary) cond(v ssa.Value, depth int) (*check, impl, impl) {
	if depth > 6 {
		return nil, implNone, implNone
	}
	if d := s.values[v]; d != nil && d.kind == vBool {
		return d.chk, d.t, d.f
	}
	switch x := v.(type) {
	case *ssa.UnOp:
		if x.Op == token.NOT {
			c, t, f := s.cond(x.X, depth+1)
			return c, f, t
		}
	case *ssa.BinOp:
		return s.compare(x)
	case *ssa.Call:
		fn := callee(x.Common())
		if fn != nil && fn.FullName() == "errors.Is" && len(x.Call.Args) == 2 {
			if d := s.values[x.Call.Args[0]]; d != nil && d.kind == vErr {
				if sentinelMatches(s.cat, globalName(x.Call.Args[1]), d.sentinel) {
					return d.chk, d.s, implNone
				}
			}
		}
	case *ssa.Phi:
		var c *check
		t, f := implNone, implNone
		tset, fset := false, false
		meet := func(cur *impl, set *bool, v impl) {
			if !*set {
				*cur, *set = v, true
			} else if *cur != v {
				*cur = implNone
			}
		}
		for _, e := range x.Edges {
			if b, ok := constBool(e); ok {
				if b {
					meet(&t, &tset, implNone)
				} else {
					meet(&f, &fset, implNone)
				}
				continue
			}
			ec, et, ef := s.cond(e, depth+1)
			if ec == nil || (c != nil && ec != c) {
				return nil, implNone, implNone
			}
			c = ec
			meet(&t, &tset, et)
			meet(&f, &fset, ef)
		}
		if c != nil {
			return c, t, f
		}
	}
	return nil, implNone, implNone
}

// sentinelMatches reports whether the sentinel error name (qualified)
// belongs to class (knowledge.NoRows, knowledge.DupKey): by the catalog, or
// for unique violations by its name (ErrDuplicate, ErrAlreadyExists …).
func sentinelMatches(cat *knowledge.Catalog, name, class string) bool {
	if name == "" {
		return false
	}
	if c := cat.Sentinel(name); c != "" {
		return c == class
	}
	if class == knowledge.DupKey {
		n := strings.ToLower(name[strings.LastIndex(name, ".")+1:])
		return strings.Contains(n, "dup") || strings.Contains(n, "unique") || strings.Contains(n, "exist") || strings.Contains(n, "conflict")
	}
	return false
}

// compare evaluates a comparison of a decision value with a constant.
func (s *summary) compare(b *ssa.BinOp) (*check, impl, impl) {
	x, y, op := b.X, b.Y, b.Op
	if s.values[x] == nil && s.values[y] != nil {
		x, y = y, x
		switch op {
		case token.LSS:
			op = token.GTR
		case token.GTR:
			op = token.LSS
		case token.LEQ:
			op = token.GEQ
		case token.GEQ:
			op = token.LEQ
		}
	}
	d := s.values[x]
	if d == nil {
		return nil, implNone, implNone
	}
	swap := func(c *check, t, f impl) (*check, impl, impl) { return c, f, t }
	switch d.kind {
	case vBool:
		bv, ok := constBool(y)
		if !ok {
			break
		}
		t, f := d.t, d.f
		if !bv {
			t, f = f, t
		}
		if op == token.NEQ {
			t, f = f, t
		}
		return d.chk, t, f
	case vInt:
		k, ok := constInt(y)
		if !ok {
			break
		}
		pos, zero := d.t, d.f
		switch {
		case op == token.EQL && k == 0, op == token.LSS && k == 1, op == token.LEQ && k == 0:
			return d.chk, zero, pos
		case op == token.NEQ && k == 0, op == token.GTR && k == 0, op == token.GEQ && k == 1:
			return d.chk, pos, zero
		case op == token.EQL && k >= 1:
			return d.chk, pos, implNone
		case op == token.NEQ && k >= 1:
			return d.chk, implNone, pos
		}
	case vErr:
		var t, f impl
		switch {
		case isNilConst(y):
			t, f = d.t, d.f
		case sentinelMatches(s.cat, globalName(y), d.sentinel):
			t, f = d.s, implNone
		default:
			return nil, implNone, implNone
		}
		if op == token.NEQ {
			return swap(d.chk, t, f)
		}
		if op == token.EQL {
			return d.chk, t, f
		}
	case vOutcome:
		k, ok := constInt(y)
		if !ok || (op != token.EQL && op != token.NEQ) {
			break
		}
		t, f := implFresh, implDup // Applied (1)
		if k == 2 {
			t, f = implDup, implFresh
		}
		if op == token.NEQ {
			t, f = f, t
		}
		return d.chk, t, f
	}
	return nil, implNone, implNone
}

// sideOf returns what the decisions dominating b imply.
func (s *summary) sideOf(b *ssa.BasicBlock) impl {
	res := implNone
	for _, d := range s.decisions {
		for i, succ := range d.blk.Succs {
			if d.succ[i] == implNone || !succ.Dominates(b) {
				continue
			}
			if i == 0 && d.blk.Succs[1] == succ || i == 1 && d.blk.Succs[0] == succ {
				continue
			}
			if s.reaches(d.blk.Succs[1-i], b, d.blk) {
				continue
			}
			if res != implNone && res != d.succ[i] {
				return implNone
			}
			res = d.succ[i]
		}
	}
	return res
}

// inferGuardedParams finds callback parameters called only under a fresh
// decision: the function is an adapter that guards its callback.
func (a *pkgAnalysis) inferGuardedParams(s *summary) {
	fn := s.fn
	if len(s.decisions) == 0 {
		return
	}
	for i, p := range fn.Params {
		if _, ok := p.Type().Underlying().(*types.Signature); !ok {
			continue
		}
		calls, ok := 0, true
		for _, r := range *p.Referrers() {
			ci, isCall := r.(ssa.CallInstruction)
			if !isCall || ci.Common().Value != p {
				continue
			}
			calls++
			if s.guardOf(ci.Block(), ci) == nil {
				ok = false
			}
		}
		if calls > 0 && ok {
			idx := i
			if fn.Signature.Recv() != nil {
				idx--
			}
			s.guarded[idx] = true
		}
	}
}

// inferDedup finds a function that returns a dedup decision: a bool that is
// true only on a fresh (or only on a duplicate) path, or an error that is nil
// only on a fresh path.
func (a *pkgAnalysis) inferDedup(s *summary) {
	a.inferDedupResult(s)
	if s.dedup == nil {
		return
	}
	// The store the record is written to, when every check agrees, and
	// whether it is written on a pool (committed on its own).
	for i, c := range s.checks {
		if i == 0 {
			s.dedup.Store, s.dedup.Pooled = c.store, c.pooled
		} else {
			if c.store != s.dedup.Store {
				s.dedup.Store = 0
			}
			s.dedup.Pooled = s.dedup.Pooled && c.pooled
		}
	}
}

func (a *pkgAnalysis) inferDedupResult(s *summary) {
	fn := s.fn
	if len(s.decisions) == 0 && len(s.values) == 0 {
		return
	}
	res := fn.Signature.Results()
	errIdx := -1
	if res.Len() > 0 && isError(res.At(res.Len()-1).Type()) {
		errIdx = res.Len() - 1
	}
	var returns []*ssa.Return
	for _, b := range fn.Blocks {
		if r, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok {
			returns = append(returns, r)
		}
	}
	var key ssa.Value
	for _, d := range s.decisions {
		if d.chk.key != nil {
			key = d.chk.key
		}
	}
	keyParam := paramIndex(fn, key)
	for i := 0; i < res.Len(); i++ {
		t := res.At(i).Type()
		if b, ok := t.Underlying().(*types.Basic); ok && b.Kind() == types.Bool {
			tImpl, fImpl := implNone, implNone
			tset, fset := false, false
			meet := func(cur *impl, set *bool, v impl) {
				if !*set {
					*cur, *set = v, true
				} else if *cur != v {
					*cur = implNone
				}
			}
			for _, r := range returns {
				v := r.Results[i]
				if errIdx >= 0 && !isNilConst(r.Results[errIdx]) {
					// A failing return, unless it passes a check's own
					// (value, error) on: return rdb.SetNX(…).Result().
					if d := s.values[v]; d == nil || d.kind != vBool {
						continue
					}
				}
				if bv, ok := constBool(v); ok {
					side := s.sideOf(r.Block())
					if bv {
						meet(&tImpl, &tset, side)
					} else {
						meet(&fImpl, &fset, side)
					}
					continue
				}
				_, ct, cf := s.cond(v, 0)
				meet(&tImpl, &tset, ct)
				meet(&fImpl, &fset, cf)
			}
			if tImpl == implFresh || fImpl == implFresh {
				s.dedup = &dedupFact{Result: i, Kind: vBool, T: tImpl, F: fImpl, KeyParam: keyParam}
				return
			}
		}
		if f := s.intDedup(returns, i, errIdx, keyParam); f != nil {
			s.dedup = f
			return
		}
		if i == errIdx {
			ok, any := true, false
			for _, r := range returns {
				v := r.Results[i]
				if isNilConst(v) {
					any = true
					if s.sideOf(r.Block()) != implFresh {
						ok = false
					}
				}
			}
			if ok && any {
				s.dedup = &dedupFact{Result: i, Kind: vErr, T: implFresh, KeyParam: keyParam}
			}
		}
	}
}

// intDedup recognises an integer result that passes on one check's rows
// affected (or count), as sqlc's `:execrows` methods do with an INSERT … ON
// CONFLICT DO NOTHING: every return that does not fail returns that value.
func (s *summary) intDedup(returns []*ssa.Return, i, errIdx, keyParam int) *dedupFact {
	if b, ok := s.fn.Signature.Results().At(i).Type().Underlying().(*types.Basic); !ok || b.Info()&types.IsInteger == 0 {
		return nil
	}
	var d0 *dval
	for _, r := range returns {
		if d := s.values[r.Results[i]]; d != nil && d.kind == vInt {
			if d0 != nil && (d0.chk != d.chk || d0.t != d.t || d0.f != d.f) {
				return nil
			}
			d0 = d
			continue
		}
		if errIdx >= 0 && !isNilConst(r.Results[errIdx]) {
			continue // a failing return: callers test the error first
		}
		return nil
	}
	if d0 == nil || (d0.t != implFresh && d0.f != implFresh) {
		return nil
	}
	return &dedupFact{Result: i, Kind: vInt, T: d0.t, F: d0.f, KeyParam: keyParam}
}

// paramIndex returns the index (receiver excluded) of the only parameter v
// is built from, or -1.
func paramIndex(fn *ssa.Function, v ssa.Value) int {
	if v == nil {
		return -1
	}
	var found *ssa.Parameter
	many := false
	walk(v, 8, func(x ssa.Value) bool {
		if p, ok := x.(*ssa.Parameter); ok {
			if found != nil && found != p {
				many = true
			}
			found = p
		}
		return true
	})
	if found == nil || many {
		return -1
	}
	for i, p := range fn.Params {
		if p == found {
			if fn.Signature.Recv() != nil {
				return i - 1
			}
			return i
		}
	}
	return -1
}

// exportFacts exports the facts of the package's named functions.
func (a *pkgAnalysis) exportFacts() {
	any := false
	names := make([]*ssa.Function, 0, len(a.funcs))
	for _, fn := range a.funcs {
		if _, ok := fn.Object().(*types.Func); ok && fn.Parent() == nil {
			names = append(names, fn)
		}
	}
	sort.Slice(names, func(i, j int) bool { return names[i].Pos() < names[j].Pos() })
	for _, fn := range names {
		obj := fn.Object().(*types.Func)
		s := a.summary(fn)
		if kind := a.dirs.funcs[obj]; strings.HasPrefix(kind, "effect") {
			a.pass.ExportObjectFact(obj, &effectsFact{Effects: []factEffect{
				toFactEffect(a.fset, fn.Pos(), shortFunc(obj), knowledge.Custom)}})
			any = true
			continue
		}
		if kind := a.dirs.funcs[obj]; strings.HasPrefix(kind, "dedup") {
			a.pass.ExportObjectFact(obj, annotatedDedup(obj, kind))
			any = true
			continue
		}
		if len(s.unguarded) > 0 && !a.topRoot(s) {
			f := &effectsFact{}
			for _, o := range s.unguarded {
				e := o.innerFact
				e.Desc = o.desc // the chain of calls down to the effect
				e.Pooled = o.pooled
				e.ErrResult = -1
				if o.insert && o.errVal != nil {
					e.ErrResult = returnedAs(fn, o.errVal)
				}
				f.Effects = append(f.Effects, e)
			}
			a.pass.ExportObjectFact(obj, f)
			any = true
		}
		if s.dedup != nil && !s.root {
			a.pass.ExportObjectFact(obj, s.dedup)
			any = true
		}
		if fn.Signature.Results().Len() > 0 && !a.cat.Has(obj, knowledge.FreshValue) {
			if g := a.freshFunc(obj); g != "" {
				a.pass.ExportObjectFact(obj, &freshFact{Gen: g})
				any = true
			}
		}
		for i := range s.guarded {
			a.pass.ExportObjectFact(obj, &guardedFact{Param: i})
			any = true
			break
		}
	}
	// Annotated interface methods.
	for obj, kind := range a.dirs.funcs {
		if a.prog.FuncValue(obj) != nil {
			continue
		}
		switch {
		case strings.HasPrefix(kind, "effect"):
			a.pass.ExportObjectFact(obj, &effectsFact{Effects: []factEffect{toFactEffect(a.fset, obj.Pos(), shortFunc(obj), knowledge.Custom)}})
			any = true
		case strings.HasPrefix(kind, "dedup"):
			a.pass.ExportObjectFact(obj, annotatedDedup(obj, kind))
			any = true
		}
	}
	if any {
		a.pass.ExportPackageFact(&pkgFact{})
	}
}

// returnedAs returns the result index under which fn returns v, or -1.
func returnedAs(fn *ssa.Function, v ssa.Value) int {
	for _, b := range fn.Blocks {
		if r, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok {
			for i, x := range r.Results {
				if x == v {
					return i
				}
			}
		}
	}
	return -1
}

// annotatedDedup is the dedup fact of a function marked //idem:dedup: its
// first bool result (true means fresh, unless "true=duplicate" is given or
// its name says it reports a duplicate: IsDuplicate, Seen, Processed …),
// else its error result (nil means fresh).
func annotatedDedup(fn *types.Func, directive string) *dedupFact {
	sig := fn.Type().(*types.Signature)
	for i := 0; i < sig.Results().Len(); i++ {
		if b, ok := sig.Results().At(i).Type().Underlying().(*types.Basic); ok && b.Kind() == types.Bool {
			t := implFresh
			switch {
			case strings.Contains(directive, "true=duplicate"), strings.Contains(directive, "true=dup"):
				t = implDup
			case strings.Contains(directive, "true=fresh"):
			case dupName(fn.Name()):
				t = implDup
			}
			f := implDup
			if t == implDup {
				f = implFresh
			}
			return &dedupFact{Result: i, Kind: vBool, T: t, F: f, KeyParam: -1}
		}
	}
	return &dedupFact{Result: sig.Results().Len() - 1, Kind: vErr, T: implFresh, KeyParam: -1}
}

func dupName(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"dup", "seen", "processed", "exists", "handled", "done", "already", "consumed"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// topRoot reports whether s is a handler that reports its own effects: a
// root not merely dispatched to from another function of the package.
// unreported reports whether s is a handler called directly, but by a
// caller that is no handler (a loop over a source idemlint does not know,
// such as an instrumentation wrapper's ReadMessage): its callers do not
// report its effects, so it does.
func (a *pkgAnalysis) unreported(s *summary) bool {
	if !s.root || !s.param {
		return false
	}
	u := a.uses[s.fn]
	if u == nil {
		return false
	}
	for _, ci := range u.calls {
		if caller := ci.Parent(); caller != nil && caller != s.fn && !a.summary(caller).root {
			return true
		}
	}
	return false
}

func (a *pkgAnalysis) topRoot(s *summary) bool {
	if !s.root {
		return false
	}
	if s.handler || !s.param {
		return true
	}
	u := a.uses[s.fn]
	if u == nil || len(u.calls) == 0 || u.values > 0 {
		return true
	}
	// Started only as goroutines, one per message (go p.handle(ctx, msg)),
	// and acking the message itself: it handles the message on its own and
	// reports its own effects.
	if len(s.acks) == 0 {
		return false
	}
	for _, ci := range u.calls {
		if _, ok := ci.(*ssa.Go); !ok {
			// Called only directly: its callers report its effects.
			return false
		}
	}
	return true
}
