package analyzer

import (
	"go/ast"
	"go/token"
	"go/types"
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
	fed map[any][]ssa.CallInstruction
	// sites: the calls that can run each function (jobtables.go); built on
	// demand, in whole-program mode.
	sites    map[*ssa.Function][]ssa.CallInstruction
	handoffs map[*ssa.Function]string
	// dispatched: functions a message is dispatched to through a func value
	// or an interface (a handler registered with a helper), and registered:
	// those handed to a registration API; both are handlers.
	dispatched map[*ssa.Function]bool
	// dispatchSites: the calls of each dispatched function's dispatchers
	// (their guards guard it).
	dispatchSites map[*ssa.Function][]ssa.CallInstruction
	registered    map[*ssa.Function]bool
	// relays: functions of the program a handler hands the callback it
	// was given to (a retry helper, processWithRetry(msg.Body, handler)):
	// the callbacks they call are dispatched as the handler's would be.
	relays map[*ssa.Function]bool
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
	// listQueuePkgs: the packages that pop jobs off Redis lists and push
	// onto them (queues.go): their pushes publish.
	listQueuePkgs map[*ssa.Package]bool
	listPoppers   map[*ssa.Function]bool // the functions that pop them
	// claimTables: the program's own job tables, claimed by its workers
	// (jobtables.go); an insert into one enqueues a job.
	claimTables map[string]bool
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
	branches  map[*ssa.Function]map[ssa.CallInstruction]bool // kindBranches, per dispatcher
	globals   map[*ssa.Global][]ssa.Value
	uses      map[*ssa.Function]*funcUses
	files     map[string]*token.File
	seen      map[string]bool // reported diagnostics: pos + code
	impls     map[*types.Func][]implEffect
	fields    map[string][]ssa.Value
	stmts     map[string][]ssa.Value // prepared statements kept in fields (stmtFields)
	fresh     map[*types.Func]string // freshFunc's answers
	// modSQL: the unique keys and named queries declared by each
	// module's SQL files, by module root; moduleRoots: the module root of
	// each directory (schema.go).
	modSQL      map[string]*moduleSQL
	moduleRoots map[string]string
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
		sums: map[*ssa.Function]*summary{}, branches: map[*ssa.Function]map[ssa.CallInstruction]bool{}, uses: map[*ssa.Function]*funcUses{}, seen: map[string]bool{},
		fresh: map[*types.Func]string{}, dispatched: map[*ssa.Function]bool{}, dispatchSites: map[*ssa.Function][]ssa.CallInstruction{}, relays: map[*ssa.Function]bool{}, registered: map[*ssa.Function]bool{}, once: map[*ssa.Function]bool{}, redelivered: map[*ssa.Function]bool{}, feeders: map[*ssa.Function][]*ssa.Function{}, queued: map[*ssa.Function]bool{}, queuePkgs: map[*ssa.Package]bool{}, listQueuePkgs: map[*ssa.Package]bool{}, listPoppers: map[*ssa.Function]bool{}, claimTables: map[string]bool{},
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

	failures []*decision // error branches: fresh holds the failure side
	discards []discard   // calls whose error nothing reads, built lazily
	// swallow: the failing step the function reports as success
	// (swallowed), known once swallowState is 2.
	swallow      string
	swallowState uint8
	guardWork    map[ssa.Instruction]*occ // guard calls as work (workAt), built lazily
	dispatch     map[ssa.Instruction]*occ // calls that dispatch the message to a handler, as work
	benign       []benignSide
	excuses      map[*decision]bool                                // failures that lose nothing (excused), built lazily
	tick         bool                                              // a handler that reads nothing of its message (tick.go)
	recTests     map[*decision]map[*ssa.BasicBlock]*ssa.BasicBlock // the blocks testing what a failure counted (recordTests), built lazily
	writes       map[string]map[string]bool                        // table, collection or model → the columns written, here or in a callee
	drops        []ssa.CallInstruction                             // naks without requeue in a program that declares no dead-letter exchange
	nacked       map[*ssa.BasicBlock]bool                          // blocks that nak the message: the broker has it back (or drops it)
	row          *stateFact                                        // the function returns a looked-up row
	clears       []clearAt                                         // statements that remove rows an insert may write again
	deletes      []deleteAt                                        // statements that delete rows, whatever their WHERE (moves)
	redisMarks   int
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
	// visiting is the call being visited; writesAt holds, for each call
	// of the function, the tables and columns it writes (here or in a
	// callee): where in an iteration a row's state is written (sweeps).
	// republished holds the blocks that publish the message again (to a
	// retry or dead-letter queue): a failure handed on there is no loss.
	republished map[*ssa.BasicBlock]bool
	// publishes holds the calls that publish a message, here or in a
	// callee (an event sent after a state is written: markfirst.go).
	publishes map[ssa.Instruction]bool
	visiting  ssa.CallInstruction
	// accum: the parameters whose fields the function changes by
	// arithmetic on their own value (w.Balance += v), here or in a callee.
	accum    []accumParam
	writesAt map[ssa.Instruction]map[string]map[string]bool
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

// markSends records that the function publishes, at the call being
// visited (publishes) when there is one.
func (s *summary) markSends() {
	s.sends = true
	if s.visiting == nil {
		return
	}
	if s.publishes == nil {
		s.publishes = map[ssa.Instruction]bool{}
	}
	s.publishes[s.visiting] = true
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
	if s.visiting == nil {
		return
	}
	if s.writesAt == nil {
		s.writesAt = map[ssa.Instruction]map[string]map[string]bool{}
	}
	at := s.writesAt[s.visiting]
	if at == nil {
		at = map[string]map[string]bool{}
		s.writesAt[s.visiting] = at
	}
	if at[table] == nil {
		at[table] = map[string]bool{}
	}
	for _, c := range cols {
		at[table][c] = true
	}
}

// addDecision records a decision on its check's result.
func (s *summary) addDecision(d *decision) {
	d.chk.decided = true
	d.chk.decisions = append(d.chk.decisions, d)
	s.decisions = append(s.decisions, d)
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
	instr    ssa.Instruction
	pos      token.Pos
	desc     string
	kind     knowledge.Kind
	recv     ssa.Value // the client/transaction used, when direct
	direct   bool
	inner    token.Pos // where the effect really is (for Related)
	innerMsg string    // the Related message, when not "the effect"
	// bookkeeping: an insert into an audit or status-log table
	// (bookkeeping.go), kept only while it may still be a unique check.
	bookkeeping bool
	innerFact   factEffect
	param       int      // SQL text is this parameter
	table       string   // the table a direct SQL write changes
	cols        []string // the columns a direct SQL insert writes, when listed
	sources     []string // the tables a direct SQL insert … SELECT copies from
	errVal      ssa.Value
	insert      bool
	guardedBy   *check
	covered     *check        // an IDEM004 check before it
	fromCheck   *check        // a unique insert turned into a check
	freeText    int           // 1 + the index of the closure's free variable its SQL text is, 0 if none
	pooled      bool          // the effect runs on a pool: it commits on its own
	from        *ssa.Function // the callee whose effect this call carries up
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
	filter    []string           // ckLookup: the columns its WHERE holds to a fixed state (message_id IS NULL)
	constRow  bool               // ckLookup: it selects one literal (SELECT 1 FROM …)
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
	ckDone   // the job completed in the transaction of the writes (rollback.go)
)

// dval is a value that carries a check's decision.
type dval struct {
	chk      *check
	kind     vkind
	t, f, s  impl
	sentinel string // knowledge.NoRows or knowledge.DupKey: which sentinel errors compare to s
	field    string // vState: the field of the row, "" for the row itself
	// found: a vInt scanned from a row that selects one literal (SELECT 1
	// FROM …): equal to it when a row was found, zero when none was.
	found bool
}

// decision is an If deciding on a check's result.
type decision struct {
	chk   *check
	blk   *ssa.BasicBlock
	rows  bool    // a loop over rows taken in a state (pendingRows)
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
	ch   ssa.Value // deliveries channel (knowledge.AutoAckConsume; AutoAckRead of a wrapper returning one)
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
	a.readModifyWrite(s)
	a.capturedDecisions(s)
	a.remoteClaims(s)
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
	s.dropBookkeeping()
	// Decision values kept in variables that SSA leaves in memory (named
	// results of a function with a defer): their loads carry them too.
	s.followStores()
	// Decisions.
	for _, in := range ifs {
		if sd := s.stateCond(in.Cond); sd != nil {
			if d := s.stateDecision(in, sd); d != nil {
				d.rows = s.rowsLoop(in) != nil
				s.addDecision(d)
			}
			continue
		}
		if d := s.getOrCreate(in); d != nil {
			s.addDecision(d)
			continue
		}
		c, t, f := s.cond(in.Cond, 0)
		b := in.Block()
		if c != nil && (t != implNone || f != implNone) {
			d := &decision{chk: c, blk: b, succ: [2]impl{t, f}}
			switch {
			case t == implFresh:
				d.fresh, d.other = b.Succs[0], b.Succs[1]
			case f == implFresh:
				d.fresh, d.other = b.Succs[1], b.Succs[0]
			}
			s.addDecision(d)
		}
		if fail := a.failureSide(s, in); fail >= 0 && !a.afterPoison(b) {
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
		if o.fromCheck != nil && o.fromCheck.decided || s.replaced(o) || s.moved(o) || a.naturalInsert(o) {
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
		if c.kind == ckFunc && a.releasedLock(c) {
			c.invalid = "it is a lock: what it returns is released, deleting its key"
		}
		if c.kind == ckLookup && !s.marks(c) && !a.nestedMarks(s, c) {
			c.invalid = "nothing records the key after the lookup"
		}
		// A lookup of the rows in a state (WHERE next_run_at <= $1) takes
		// them by that state: its argument (the time now) is no key.
		if ind, gen := a.keyIndependent(c.key); ind && len(c.filter) == 0 {
			c.invalid = "its key is built from " + gen + ", which differs on every delivery"
		}
	}
	// Guardedness of every occurrence.
	for _, o := range s.occs {
		o.guardedBy = s.guardOf(o.instr.Block(), o.instr)
	}
	a.rollbackGuards(s)
	a.completionGuards(s)
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
		if o.guardedBy == nil && !a.queryOverHTTP(s.fn, o) {
			s.addUnguarded(o)
		}
	}
	a.inferGuardedParams(s)
	a.inferDedup(s)
	a.inferState(s)
}

// queryOverHTTP reports whether o is an HTTP call that fn, a function named
// as a read (GetBlock, FetchRates: knowledge.Catalog.ReadName) or as
// obtaining a credential (Login, RefreshAccessToken:
// knowledge.Catalog.CredentialName), makes: a query or a token request
// sent as a POST (JSON-RPC, GraphQL, a search API, an OAuth token
// endpoint) is no effect for fn's callers. fn's own handler findings still
// name it.
func (a *pkgAnalysis) queryOverHTTP(fn *ssa.Function, o *occ) bool {
	return o.kind == knowledge.HTTP && fn.Parent() == nil && (a.cat.ReadName(fn.Name()) || a.cat.CredentialName(fn.Name()))
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
	return pathTo([]*ssa.BasicBlock{from}, to, avoid, s.succsInMessage)
}

// reachable returns the blocks reaches finds from from, all at once.
func (s *summary) reachable(from, avoid *ssa.BasicBlock) map[*ssa.BasicBlock]bool {
	seen := map[*ssa.BasicBlock]bool{}
	if from == nil || from == avoid {
		return seen
	}
	stack := []*ssa.BasicBlock{from}
	for len(stack) > 0 {
		b := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[b] || b == avoid {
			continue
		}
		seen[b] = true
		stack = append(stack, s.succsInMessage(b)...)
	}
	return seen
}

// succsInMessage returns the successors of b that handle the same
// message: none when b receives the next one.
func (s *summary) succsInMessage(b *ssa.BasicBlock) []*ssa.BasicBlock {
	if s.hasSource(b) {
		return nil
	}
	return feasibleSuccs(b)
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
	// Acking the message itself, whether started as a goroutine per
	// message (go p.handle(ctx, msg)) or called by a loop that hands it
	// each message (for d := range msgs { c.handle(d) }): it handles the
	// message on its own and reports its own effects; a dedup check of its
	// callers in front of every call still guards them (dispatchGuarded).
	// Otherwise its callers report its effects.
	return len(s.acks) > 0
}

// loopReported reports whether s is the per-message function of a consume
// loop (for { m := fetch(); if err := c.process(m); … }): a function handed
// the message by loops only. The loops judge its effects, as work done
// before they settle the message, but an unguarded one is reported in it,
// where the message is handled (see attributed).
func (a *pkgAnalysis) loopReported(s *summary) bool {
	if !s.root || !s.param || a.topRoot(s) {
		return false
	}
	for _, ci := range a.uses[s.fn].calls {
		caller := ci.Parent()
		if caller == nil || caller == s.fn {
			return false
		}
		if cs := a.summary(caller); !cs.root || cs.param {
			return false
		}
	}
	return true
}
