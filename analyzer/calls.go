package analyzer

import (
	"go/token"
	"go/types"
	"maps"
	"net/textproto"
	"path/filepath"
	"slices"
	"strings"

	"github.com/idemkit/idem/analyzer/internal/sqlclass"
	"github.com/idemkit/idem/analyzer/knowledge"

	"golang.org/x/tools/go/ssa"
)

// visitCall classifies one call instruction of s's function: an effect, an
// ack, a source of messages, a dedup check, a call to a function with facts.
func (a *pkgAnalysis) visitCall(s *summary, ci ssa.CallInstruction) {
	cc := ci.Common()
	fn := callee(cc)
	recv, args := splitArgs(cc)
	guardedArgs := map[int]bool{}
	handled := false
	before := s.nwrites
	if fn != nil {
		for _, r := range a.rulesOf(fn) {
			switch r.Role {
			case knowledge.Benign, knowledge.Decode, knowledge.NoReturn, knowledge.FreshValue, knowledge.RandRead,
				knowledge.ClockMethod, knowledge.HeaderSet:
				// read by other rules where they matter
			default:
				handled = true
				a.visitRule(s, ci, r, recv, args, guardedArgs)
			}
		}
	}
	if !handled && fn != nil && fn.Pkg() != nil && !stdPath(fn.Pkg().Path()) && hasContextParam(fn) &&
		!a.cat.Known(knowledge.NormPath(fn.Pkg().Path())) {
		if f := cc.StaticCallee(); cc.IsInvoke() && len(a.callees[ci]) == 0 || f != nil && !a.local(f.Pkg) {
			s.callsOut = true
		}
	}
	if !handled {
		a.noteUniqueTest(s, ci, fn, args)
		switch {
		case cc.IsInvoke():
			a.visitInvoke(s, ci, fn, recv, args, guardedArgs)
		case cc.StaticCallee() != nil:
			a.visitStatic(s, ci, cc.StaticCallee(), fn, args, guardedArgs)
		case a.callees != nil:
			a.visitDynamic(s, ci, nil, args, guardedArgs)
		}
	}
	a.visitFuncArgs(s, ci, args, guardedArgs)
	if s.nwrites > before {
		if s.wroteAt == nil {
			s.wroteAt = map[ssa.Instruction]bool{}
		}
		s.wroteAt[ci] = true
	}
}

// visitFuncArgs handles functions passed as arguments: a closure is judged
// where it is created, so its effects count at this call, unless the callee
// runs it only for a fresh key (guard Do/Run, an adapter) or it is a handler
// itself.
func (a *pkgAnalysis) visitFuncArgs(s *summary, ci ssa.CallInstruction, args []ssa.Value, guarded map[int]bool) {
	for i, v := range args {
		f := funcValue(v)
		if f == nil || f.Blocks == nil {
			continue
		}
		cs := a.summary(f)
		if cs.root {
			continue // a handler registered here: judged on its own
		}
		if guarded[i] {
			continue
		}
		for _, o := range cs.unguarded {
			a.addVia(s, ci, "func literal", o, nil)
		}
	}
}

// funcValue returns the function a value is, when it is a function or a
// closure.
func funcValue(v ssa.Value) *ssa.Function {
	switch x := peel(v).(type) {
	case *ssa.Function:
		return x
	case *ssa.MakeClosure:
		f, _ := x.Fn.(*ssa.Function)
		return f
	}
	return nil
}

// addEffect records a direct effect.
func (a *pkgAnalysis) addEffect(s *summary, ci ssa.CallInstruction, desc string, kind knowledge.Kind, recv ssa.Value) *occ {
	o := &occ{instr: ci, pos: ci.Pos(), desc: desc, kind: kind, recv: recv, direct: true, inner: ci.Pos(), param: -1}
	o.pooled = recv != nil && a.pool(a.txRoot(recv))
	o.innerFact = toFactEffect(a.fset, ci.Pos(), desc, kind)
	s.addOcc(o)
	return o
}

// addVia records an effect that happens inside a function called (or a
// closure created) at ci.
func (a *pkgAnalysis) addVia(s *summary, ci ssa.CallInstruction, via string, inner *occ, args []ssa.Value) {
	if len(s.byInstr[ci]) >= maxEffectsPerCall {
		return
	}
	o := &occ{instr: ci, pos: ci.Pos(), kind: inner.kind, inner: inner.inner, innerMsg: inner.innerMsg, innerFact: inner.innerFact, param: -1, pooled: inner.pooled}
	o.desc = chain(via, inner.desc)
	if p := inner.innerFact.QueryParam; p >= 0 {
		if !a.resolveParam(o, arg(args, p)) {
			return
		}
	}
	if !a.resolveKey(o, ci, args) {
		return
	}
	if !resolveMethod(o, ci, args) {
		return
	}
	if inner.insert && inner.errVal != nil {
		if k := returnedAs(inner.instr.Parent(), inner.errVal); k >= 0 {
			if call, ok := ci.(*ssa.Call); ok {
				o.insert, o.errVal = true, result(call, k)
			}
		}
	}
	if ip := inner.innerFact.QueryParam; ip < 0 && inner.param >= 0 {
		o.innerFact.QueryParam = inner.param
	}
	for _, x := range s.byInstr[ci] {
		if x.inner == o.inner && x.kind == o.kind && x.innerFact.QueryParam == o.innerFact.QueryParam {
			return // the same effect by another path
		}
	}
	s.addOcc(o)
}

// maxEffectsPerCall bounds the effects a call carries up from its callee:
// the first is what a finding names, a few more tell kinds and
// transactions apart, and a big program's call chains would otherwise
// multiply them.
const maxEffectsPerCall = 4

// chain describes an effect reached through via: "via → … → effect". A
// chain of more than five steps keeps its first two and last two.
func chain(via, desc string) string {
	steps := append([]string{via}, strings.Split(desc, " → ")...)
	if len(steps) > 5 {
		steps = append(append(steps[:2:2], "…"), steps[len(steps)-2:]...)
	}
	return strings.Join(steps, " → ")
}

// resolveParam classifies the SQL text a caller passes for a helper's query
// parameter; false when it is not an effect.
func (a *pkgAnalysis) resolveParam(o *occ, v ssa.Value) bool {
	texts, param, ok := a.texts(v, 0)
	if !ok {
		if param < 0 && o.innerFact.QueryRead {
			return false // a query of unknown text: taken as a read
		}
		o.param = param
		o.innerFact.QueryParam = param
		return true
	}
	cls := mergeTexts(texts)
	if !cls.Effect() {
		return false
	}
	o.desc += " " + snippet(texts[0])
	o.innerFact.QueryParam = -1
	o.insert = cls.Insert
	return true
}

// resolveKey decides an HTTP effect whose Idempotency-Key comes from a
// parameter (or is sent only when it is not empty) from the argument the
// caller passes: "" or a value new on every call (a random id) keeps the
// effect, the caller's own parameter defers to its callers, any other value
// is a key (false: not an effect).
func (a *pkgAnalysis) resolveKey(o *occ, ci ssa.CallInstruction, args []ssa.Value) bool {
	p := o.innerFact.HeaderParam
	if p < 0 {
		return true
	}
	o.innerFact.HeaderParam = -1
	v := arg(args, p)
	if v == nil {
		return true
	}
	if s, ok := constString(v); ok {
		return s == ""
	}
	if fresh, _ := a.keyIndependent(v); fresh {
		return true // a new key on every delivery
	}
	if x, ok := peel(v).(*ssa.Parameter); ok {
		o.innerFact.HeaderParam = paramIndex(ci.Parent(), x)
		return true
	}
	return false
}

func mergeTexts(texts []string) sqlclass.Class {
	var cls sqlclass.Class
	for i, t := range texts {
		c := sqlclass.Classify(t)
		if i == 0 {
			cls = c
		} else {
			cls = sqlclass.Merge(cls, c)
		}
	}
	return cls
}

// visitStatic handles a call to a function without a catalog rule: one of
// this package (its summary) or of another (its facts).
func (a *pkgAnalysis) visitStatic(s *summary, ci ssa.CallInstruction, f *ssa.Function, fn *types.Func, args []ssa.Value, guarded map[int]bool) {
	local := a.local(f.Pkg) || f.Parent() != nil || (f.Blocks != nil && f.Pkg == nil)
	if f.Origin() != nil && a.local(f.Origin().Pkg) {
		local = true
	}
	if local {
		via := "func literal"
		if fn != nil {
			via = shortFunc(fn)
		}
		a.visitLocal(s, ci, f, fn, args, guarded, via)
		return
	}
	if fn == nil {
		return
	}
	if a.rpcStub(fn) {
		if a.cat.RemoteEffect(fn.Name()) {
			a.addEffect(s, ci, shortFunc(fn)+" (remote call)", knowledge.RPC, nil)
		}
		return
	}
	a.importedFacts(s, ci, fn, args, guarded)
}

// visitLocal handles a call that reaches f, a function whose summary is
// known here: its annotation, or its unguarded effects (described as
// reached through via), dedup result, guarded callbacks and acks. It
// reports whether f does anything a caller sees.
func (a *pkgAnalysis) visitLocal(s *summary, ci ssa.CallInstruction, f *ssa.Function, fn *types.Func, args []ssa.Value, guarded map[int]bool, via string) bool {
	if fn != nil {
		if kind := a.dirs.funcs[fn]; strings.HasPrefix(kind, "effect") {
			o := a.addEffect(s, ci, shortFunc(fn), knowledge.Custom, nil)
			if fn.Pkg() != nil && s.fn.Pkg != nil && fn.Pkg() != s.fn.Pkg.Pkg {
				o.inner, o.innerMsg = fn.Pos(), "marked //idem:effect"
			}
			return true
		} else if strings.HasPrefix(kind, "dedup") {
			a.addFuncCheck(s, ci, fn, annotatedDedup(fn, kind), args)
			return true
		}
	}
	cs := a.summary(f)
	did := false
	for t, cols := range cs.writes {
		s.addWrite(t, slices.Collect(maps.Keys(cols))...)
	}
	if len(cs.wroteAt) > 0 {
		s.nwrites++ // a Redis SET in f, or a call of a function that makes one
	}
	s.sends = s.sends || cs.sends
	s.callsOut = s.callsOut || cs.callsOut
	if cs.row != nil {
		a.addStateCheck(s, ci, cs.row, args, via)
	}
	if len(cs.sources) > 0 && a.returnsMessage(f) {
		// A helper that fetches the next message and returns it
		// (m, ev, ok, err := k.fetchPaid(ctx)): a receive for the loop
		// that calls it.
		s.addSource(ci)
		did = true
	}
	// A helper that returns what an auto-committing read returned
	// (func (c *Consumer) Fetch(ctx) kgo.Fetches { return c.cl.PollFetches(ctx) })
	// is such a read for its caller.
	for _, aa := range cs.autoAcks {
		if aa.kind == knowledge.AutoAckRead && returns(f, aa.call) {
			s.autoAcks = append(s.autoAcks, autoAck{call: ci, kind: aa.kind})
			did = true
		}
	}
	if !(cs.root && a.topRoot(cs)) {
		for _, o := range cs.unguarded {
			a.addVia(s, ci, via, o, args)
			did = true
		}
	}
	if cs.dedup != nil {
		a.addFuncCheck(s, ci, fn, cs.dedup, args)
		if ci.Common().IsInvoke() {
			s.checks[len(s.checks)-1].desc = via // the interface method, and its implementation
		}
		did = true
	}
	for i := range cs.guarded {
		guarded[i] = true
		did = true
	}
	if acks := a.ackHelper(cs, ci); len(acks) > 0 {
		s.acks = append(s.acks, acks...)
		did = true
	}
	return did
}

// visitDynamic handles a call through an interface or a func value in a
// whole program, where the call graph says which functions it reaches: a
// handler the message is dispatched to is work done here (for the order of
// acks) but judged on its own; any other callee is followed as a local
// call. It reports whether the program has a callee for it.
func (a *pkgAnalysis) visitDynamic(s *summary, ci ssa.CallInstruction, fn *types.Func, args []ssa.Value, guarded map[int]bool) bool {
	found := false
	// A func value the caller passed in (a retry helper's fn) is judged
	// where it is made: its effects count at the caller's call.
	_, param := peel(ci.Common().Value).(*ssa.Parameter)
	_, free := peel(ci.Common().Value).(*ssa.FreeVar)
	for _, f := range a.callees[ci] {
		if !a.local(f.Pkg) {
			continue // a client's code, described by the catalog
		}
		if a.dispatched[f] || a.registered[f] {
			if s.dispatch == nil {
				s.dispatch = map[ssa.Instruction]*occ{}
			}
			if s.dispatch[ci] == nil {
				s.dispatch[ci] = &occ{instr: ci, pos: ci.Pos(), desc: "handler " + handlerName(f), param: -1}
			}
			found = true
			continue
		}
		if !ci.Common().IsInvoke() && (param || free || f.Parent() != nil) {
			// A closure called through a func value (a callback handed to
			// a writer, a retry helper, a task queue) is judged where it is
			// made: its effects count at the call it is passed to.
			continue
		}
		via := handlerName(f)
		if fn != nil && ci.Common().IsInvoke() {
			via = shortFunc(fn) + " (implemented by " + implName(f) + ")"
		}
		a.visitLocal(s, ci, f, funcObject(f), args, guarded, via)
		// Found, even when the callee does nothing a handler cares about
		// (a metrics or logging wrapper): the program's implementations,
		// not a method's name, say what the call does.
		found = true
	}
	return found
}

// implName names the implementation of an interface method for messages.
func implName(f *ssa.Function) string {
	if obj := funcObject(f); obj != nil {
		return shortFunc(obj)
	}
	return f.Name()
}

// funcObject returns the declared function or method f is (or wraps), nil
// for a closure.
func funcObject(f *ssa.Function) *types.Func {
	if obj, ok := f.Object().(*types.Func); ok {
		return obj
	}
	if o := f.Origin(); o != nil {
		if obj, ok := o.Object().(*types.Func); ok {
			return obj
		}
	}
	return nil
}

// returnsMessage reports whether one of f's results is a message type.
func (a *pkgAnalysis) returnsMessage(f *ssa.Function) bool {
	res := f.Signature.Results()
	for i := 0; i < res.Len(); i++ {
		if a.cat.MessageClient(res.At(i).Type()) != "" {
			return true
		}
	}
	return false
}

// returns reports whether f returns a result of the call ci.
func returns(f *ssa.Function, ci ssa.CallInstruction) bool {
	call, ok := ci.(*ssa.Call)
	if !ok {
		return false
	}
	if returnedAs(f, call) >= 0 {
		return true
	}
	for _, r := range *call.Referrers() {
		if ex, ok := r.(*ssa.Extract); ok && returnedAs(f, ex) >= 0 {
			return true
		}
	}
	return false
}

// ackHelper: a call to a small local function that acks its message is an
// ack — also one that is a handler only by its message parameter
// (markDone(m) { if err := m.Done(); err != nil { log… } }), not one
// started as a goroutine.
func (a *pkgAnalysis) ackHelper(cs *summary, ci ssa.CallInstruction) []ssa.CallInstruction {
	if cs.root && !cs.param || len(cs.acks) == 0 || len(cs.fn.Blocks) > 3 {
		return nil
	}
	if _, ok := ci.(*ssa.Go); ok {
		return nil
	}
	return []ssa.CallInstruction{ci}
}

func (a *pkgAnalysis) importedFacts(s *summary, ci ssa.CallInstruction, fn *types.Func, args []ssa.Value, guarded map[int]bool) {
	obj := fn.Origin()
	var ef effectsFact
	if a.importFact(obj, &ef) && !ef.Root {
		for _, e := range ef.Effects {
			o := &occ{instr: ci, pos: ci.Pos(), kind: e.Kind, inner: a.posFor(e), innerFact: e, param: -1, pooled: e.Pooled}
			if !o.inner.IsValid() {
				// vet mode: the dependency's file is known only through its
				// export data; point at the function, name the line.
				o.inner, o.innerMsg = obj.Pos(), "the effect is at "+e.position()
			}
			if e.Desc == shortFunc(obj) {
				o.desc = e.Desc
			} else {
				o.desc = shortFunc(obj) + " → " + e.Desc
			}
			if e.QueryParam >= 0 && !a.resolveParam(o, arg(args, e.QueryParam)) {
				continue
			}
			if !a.resolveKey(o, ci, args) || !resolveMethod(o, ci, args) {
				continue
			}
			if e.ErrResult >= 0 {
				if call, ok := ci.(*ssa.Call); ok {
					o.insert, o.errVal = true, result(call, e.ErrResult)
				}
			}
			s.addOcc(o)
		}
	}
	var df dedupFact
	if a.importFact(obj, &df) {
		a.addFuncCheck(s, ci, fn, &df, args)
	}
	var gf guardedFact
	if a.importFact(obj, &gf) {
		guarded[gf.Param] = true
	}
}

// posFor finds a position for a fact's file and line in this pass's file
// set (in vet mode the dependency's file is there as export data's fake
// file; standalone, as the real file).
func (a *pkgAnalysis) posFor(e factEffect) token.Pos {
	if e.File == "" {
		return token.NoPos
	}
	if a.files == nil {
		a.files = map[string]*token.File{}
		a.fset.Iterate(func(f *token.File) bool {
			if _, ok := a.files[f.Name()]; !ok {
				a.files[f.Name()] = f
			}
			return true
		})
	}
	f := a.files[e.File]
	if f == nil {
		// In vet mode a dependency's files appear under the names its
		// export data records (which may be trimmed): match the tail.
		tail := filepath.Join(filepath.Base(filepath.Dir(e.File)), filepath.Base(e.File))
		for name, ff := range a.files {
			if strings.HasSuffix(name, string(filepath.Separator)+tail) || name == tail {
				f = ff
				break
			}
		}
	}
	if f == nil || e.Line < 1 || e.Line > f.LineCount() {
		return token.NoPos
	}
	p := f.LineStart(e.Line)
	if e.Col > 1 && f.Offset(p)+e.Col-1 < f.Size() {
		p += token.Pos(e.Col - 1)
	}
	return p
}

// visitInvoke handles a call through an interface outside the catalog:
// DBTX-shaped SQL, annotations and facts on the interface method, -effects,
// and the verbs heuristic when -iface=verbs.
func (a *pkgAnalysis) visitInvoke(s *summary, ci ssa.CallInstruction, fn *types.Func, recv ssa.Value, args []ssa.Value, guarded map[int]bool) {
	if fn == nil {
		return
	}
	if kind := a.dirs.funcs[fn]; strings.HasPrefix(kind, "effect") {
		a.addEffect(s, ci, shortFunc(fn), knowledge.Custom, recv)
		return
	} else if strings.HasPrefix(kind, "dedup") {
		a.addFuncCheck(s, ci, fn, annotatedDedup(fn, kind), args)
		return
	}
	if a.callees != nil {
		if a.visitDynamic(s, ci, fn, args, guarded) {
			return
		}
		// A dependency's method promoted to the program's type (a DB
		// wrapper embedding *sqlx.DB): what the catalog says it does.
		applied := false
		for _, m := range a.promoted[ci] {
			for _, r := range a.rulesOf(m) {
				a.visitRule(s, ci, r, recv, args, guarded)
				applied = true
			}
		}
		if applied {
			return
		}
		// No implementation in the program: a client's, when the
		// program converts a client value to the interface.
		if impl, rules := a.clientImpl(fn); impl != nil {
			for _, r := range rules {
				a.visitRule(s, ci, r, recv, args, guarded)
			}
			return
		}
	} else {
		before := len(s.occs)
		a.importedFacts(s, ci, fn, args, map[int]bool{})
		if len(s.occs) > before {
			return
		}
	}
	if m, ok := sqlShaped(a.cat, fn); ok {
		a.effectRule(s, ci, bound{Rule: &knowledge.Rule{Name: fn.FullName(), Role: knowledge.Effect, Mode: m, Kind: knowledge.SQL}, arg: 1, key: -1}, recv, args)
		return
	}
	if a.callees == nil {
		if impls := a.implEffects(fn); len(impls) > 0 {
			for _, e := range impls {
				o := &occ{instr: ci, pos: ci.Pos(), kind: e.fact.Kind, inner: e.pos, innerFact: e.fact, param: -1}
				o.desc = shortFunc(fn) + " (implemented by " + e.impl + ") → " + e.fact.Desc
				if e.fact.QueryParam >= 0 && !a.resolveParam(o, arg(args, e.fact.QueryParam)) {
					continue
				}
				if !a.resolveKey(o, ci, args) {
					continue
				}
				s.addOcc(o)
			}
			return
		}
	}
	if a.rpcStub(fn) {
		if a.cat.RemoteEffect(fn.Name()) {
			a.addEffect(s, ci, shortFunc(fn)+" (remote call)", knowledge.RPC, recv)
		}
		return
	}
	if a.cfg.verbs && writeVerb(fn.Name()) && fn.Pkg() != nil && !stdPath(fn.Pkg().Path()) {
		a.addEffect(s, ci, shortFunc(fn)+" (interface method named like a write)", knowledge.Custom, recv)
	}
}

// rpcStub reports whether fn is a method of a generated RPC client: its
// last parameter is variadic of the catalog's call options
// (...grpc.CallOption, an AWS service's ...func(*Options) or
// ...request.Option), or it is the plain form of such a method (aws-sdk-go's
// SendEmail beside SendEmailWithContext).
func (a *pkgAnalysis) rpcStub(fn *types.Func) bool {
	sig, ok := fn.Type().(*types.Signature)
	if !ok || sig.Recv() == nil {
		return false // a constructor (NewFromConfig) calls nothing remote
	}
	if !sig.Variadic() {
		// aws-sdk-go's SendEmail(input), the plain form of
		// SendEmailWithContext(ctx, input, ...request.Option).
		if strings.HasSuffix(fn.Name(), "WithContext") {
			return false
		}
		obj, _, _ := types.LookupFieldOrMethod(sig.Recv().Type(), true, fn.Pkg(), fn.Name()+"WithContext")
		twin, ok := obj.(*types.Func)
		return ok && a.rpcStub(twin)
	}
	last, ok := sig.Params().At(sig.Params().Len() - 1).Type().(*types.Slice)
	return ok && a.cat.RPCOption(last.Elem())
}

// noteUniqueTest notices tests of an error for a unique violation.
func (a *pkgAnalysis) noteUniqueTest(s *summary, ci ssa.CallInstruction, fn *types.Func, args []ssa.Value) {
	if fn == nil {
		return
	}
	switch fn.FullName() {
	case "errors.Is":
		if len(args) == 2 && sentinelMatches(a.cat, globalName(args[1]), knowledge.DupKey) {
			s.unique = true
		}
		return
	case "strings.Contains":
		if len(args) == 2 {
			if t, ok := constString(args[1]); ok {
				t = strings.ToLower(t)
				if strings.Contains(t, "duplicate") || strings.Contains(t, "unique") || strings.Contains(t, "23505") {
					s.unique = true
				}
			}
		}
		return
	}
	n := strings.ToLower(fn.Name())
	if strings.Contains(n, "unique") || strings.Contains(n, "duplicate") || strings.Contains(n, knowledge.DupKey) || strings.Contains(n, "dupentry") {
		sig := fn.Type().(*types.Signature)
		for i := 0; i < sig.Params().Len(); i++ {
			if isError(sig.Params().At(i).Type()) {
				s.unique = true
			}
		}
	}
}

// uniqueCode reports whether v is the error code of a unique violation
// (PostgreSQL 23505, MySQL 1062, SQLite 2067 …: the catalog's).
func uniqueCode(cat *knowledge.Catalog, v ssa.Value) bool {
	if s, ok := constString(v); ok {
		return cat.UniqueString(s)
	}
	if n, ok := constInt(v); ok {
		return cat.UniqueInt(n)
	}
	return false
}

// visitRule applies one catalog rule to a call.
func (a *pkgAnalysis) visitRule(s *summary, ci ssa.CallInstruction, r bound, recv ssa.Value, args []ssa.Value, guarded map[int]bool) {
	call, _ := ci.(*ssa.Call)
	switch r.Role {
	case knowledge.Effect:
		a.effectRule(s, ci, r, recv, args)
	case knowledge.Publish:
		s.sends = true
		if a.cfg.publish {
			a.addEffect(s, ci, describeCall(ci.Common()), knowledge.PublishKind, recv)
		}
	case knowledge.Ack:
		s.acks = append(s.acks, ci)
	case knowledge.Nack:
		if requeue, ok := constBool(arg(args, r.arg)); ok && !requeue && a.callees != nil && !a.deadLettered() {
			s.drops = append(s.drops, ci)
		}
	case knowledge.Fetch:
		if call != nil {
			if _, ok := call.Type().Underlying().(*types.Chan); ok {
				break // its receives are the sources
			}
			s.addSource(ci)
		}
	case knowledge.AutoAckConsume:
		if b, ok := constBool(arg(args, r.arg)); ok && b && call != nil {
			s.autoAcks = append(s.autoAcks, autoAck{call: ci, kind: r.Role, ch: result(call, 0)})
		}
	case knowledge.AutoAckRead:
		if call != nil && a.autoCommits(r.AutoCommit, recv) {
			s.autoAcks = append(s.autoAcks, autoAck{call: ci, kind: r.Role})
		}
	case knowledge.Subscribe:
		manual := false
		for _, f := range reachedCalls(arg(args, len(args)-1)) {
			if r.ManualOption != "" && f.Name() == r.ManualOption {
				manual = true
			}
		}
		if !manual {
			s.autoAcks = append(s.autoAcks, autoAck{call: ci, kind: r.Role, cb: arg(args, r.arg)})
		}
	case knowledge.GuardInside:
		c := &check{call: ci, pos: ci.Pos(), desc: describeCall(ci.Common()), kind: ckGuardDo, key: arg(args, r.key), decided: true}
		s.checks = append(s.checks, c)
		if ind, gen := a.keyIndependent(c.key); ind {
			c.invalid = "its key is built from " + gen + ", which differs on every delivery"
		} else {
			guarded[r.arg] = true
		}
		if r.Func() == "Do" {
			if f := funcValue(arg(args, r.arg)); f != nil {
				s.doTx[f] = c
			}
		}
	case knowledge.Claim:
		c := &check{call: ci, pos: ci.Pos(), desc: describeCall(ci.Common()), kind: ckClaim, key: arg(args, r.key)}
		s.checks = append(s.checks, c)
		if call != nil {
			if lease := result(call, 0); lease != nil {
				for _, oc := range a.roleCalls(lease, knowledge.Outcome) {
					s.values[oc] = &dval{chk: c, kind: vOutcome}
				}
			}
		}
	case knowledge.SetNX:
		c := &check{call: ci, pos: ci.Pos(), desc: describeCall(ci.Common()), kind: ckSetNX, key: arg(args, r.key), recv: recv, store: knowledge.Redis}
		s.checks = append(s.checks, c)
		a.cmdValues(s, c, call, vBool, implFresh, implDup)
	case knowledge.SetArgs:
		nx := false
		for _, str := range reachedStrings(arg(args, r.arg)) {
			if strings.EqualFold(str, "NX") {
				nx = true
			}
		}
		if nx {
			c := &check{call: ci, pos: ci.Pos(), desc: describeCall(ci.Common()) + " NX", kind: ckSetNX, key: arg(args, r.key), recv: recv, store: knowledge.Redis}
			s.checks = append(s.checks, c)
			a.cmdValues(s, c, call, vErr, implFresh, implDup)
		}
		s.redisMarks++
	case knowledge.RedisDel:
		s.dels = append(s.dels, ci)
	case knowledge.RowLookup:
		a.rowLookup(s, ci, call, r, recv, args)
	case knowledge.RowWrite:
		a.rowWrite(s, recv, arg(args, r.arg))
	case knowledge.RedisLookup:
		c := &check{call: ci, pos: ci.Pos(), desc: describeCall(ci.Common()), kind: ckLookup, key: arg(args, r.key), recv: recv, store: knowledge.Redis}
		s.checks = append(s.checks, c)
		a.cmdValues(s, c, call, a.replyKind(call), implDup, implFresh)
	case knowledge.RedisMark:
		s.redisMarks++
		s.nwrites++
	case knowledge.Dedup:
		fn := callee(ci.Common())
		f := annotatedDedup(fn, "")
		if f.Kind == vBool {
			switch r.Fresh {
			case "duplicate":
				f.T, f.F = implDup, implFresh
			case "fresh":
				f.T, f.F = implFresh, implDup
			}
		}
		if r.key >= 0 {
			f.KeyParam = r.key
		}
		a.addFuncCheck(s, ci, fn, f, args)
	case knowledge.Wait:
		s.waits[ci] = true
	case knowledge.UniqueTest:
		s.unique = true
	}
}

// cmdValues registers the decision values of a go-redis command, read by
// its reply methods (Val, Result, Err). For vErr, t is what nil implies and
// f what redis.Nil implies.
func (a *pkgAnalysis) cmdValues(s *summary, c *check, call *ssa.Call, kind vkind, t, f impl) {
	if call == nil {
		return
	}
	for _, m := range a.roleCalls(call, knowledge.Reply) {
		val, err := replyParts(m)
		if kind == vErr {
			if err != nil {
				s.values[err] = &dval{chk: c, kind: vErr, t: t, s: f, sentinel: knowledge.NoRows}
			}
		} else if val != nil {
			s.values[val] = &dval{chk: c, kind: kind, t: t, f: f}
		}
	}
}

// replyKind says what decides a lookup command's reply, by the value its
// reply methods (the catalog's Reply) return: a count (EXISTS), a bool
// (SISMEMBER), or else its error (GET's redis.Nil).
func (a *pkgAnalysis) replyKind(call *ssa.Call) vkind {
	if call == nil {
		return vErr
	}
	ms := types.NewMethodSet(call.Type())
	for i := 0; i < ms.Len(); i++ {
		fn, ok := ms.At(i).Obj().(*types.Func)
		if !ok || !a.cat.Has(fn, knowledge.Reply) {
			continue
		}
		res := fn.Type().(*types.Signature).Results()
		if res.Len() == 0 {
			continue
		}
		if b, ok := res.At(0).Type().Underlying().(*types.Basic); ok {
			switch {
			case b.Info()&types.IsBoolean != 0:
				return vBool
			case b.Info()&types.IsInteger != 0:
				return vInt
			}
		}
	}
	return vErr
}

// replyParts returns the value and the error a reply method returns, by
// its signature: (T) a value, (error) an error, (T, error) both.
func replyParts(m *ssa.Call) (val, err ssa.Value) {
	res := m.Call.Signature().Results()
	for i := 0; i < res.Len(); i++ {
		v := ssa.Value(m)
		if res.Len() > 1 {
			v = result(m, i)
		}
		if isError(res.At(i).Type()) {
			err = v
		} else if val == nil {
			val = v
		}
	}
	return val, err
}

// addFuncCheck records a call to a function that returns a dedup decision.
func (a *pkgAnalysis) addFuncCheck(s *summary, ci ssa.CallInstruction, fn *types.Func, f *dedupFact, args []ssa.Value) {
	name := "func literal"
	if fn != nil {
		name = shortFunc(fn)
	}
	c := &check{call: ci, pos: ci.Pos(), desc: name, kind: ckFunc, store: f.Store, pooled: f.Pooled}
	c.recv, _ = splitArgs(ci.Common())
	if f.KeyParam >= 0 {
		c.key = arg(args, f.KeyParam)
	}
	s.checks = append(s.checks, c)
	call, ok := ci.(*ssa.Call)
	if !ok {
		return
	}
	v := result(call, f.Result)
	if v == nil {
		return
	}
	d := &dval{chk: c, kind: f.Kind, t: f.T, f: f.F, s: f.S, sentinel: f.Sentinel}
	s.values[v] = d
}

// effectRule classifies a catalogued effect call.
func (a *pkgAnalysis) effectRule(s *summary, ci ssa.CallInstruction, r bound, recv ssa.Value, args []ssa.Value) {
	cc := ci.Common()
	if a.queuePkgs[pkgOf(s.fn)] {
		// The program's own queue storing an item: publishing.
		s.sends = true
		if a.cfg.publish {
			a.addEffect(s, ci, describeCall(cc), knowledge.PublishKind, recv)
		}
		return
	}
	call, _ := ci.(*ssa.Call)
	if r.Kind == knowledge.Mongo {
		a.mongoWrite(s, recv, r, args)
	}
	switch r.Mode {
	case knowledge.Always, knowledge.Insert:
		if r.Kind == knowledge.SQL {
			if t := modelTable(peelVariadic(arg(args, max(r.arg, 0)))); t != "" {
				s.addWrite(t) // an ORM insert of a model (xorm's Insert(&bean))
			}
		}
		desc := describeCall(cc)
		if r.Kind == knowledge.Custom {
			desc = shortFunc(callee(cc)) // a team's own function, named as declared
		}
		o := a.addEffect(s, ci, desc, r.Kind, recv)
		if r.Mode == knowledge.Insert {
			o.insert, o.errVal = true, errResult(call) // a duplicate key error tells a repeat
		}
	case knowledge.SQLExec, knowledge.SQLQuery, knowledge.SQLStmt:
		var q ssa.Value
		if r.Mode == knowledge.SQLStmt {
			q = a.stmtQuery(recv, 0)
		} else {
			q = arg(args, r.arg)
		}
		texts, param, ok := a.texts(q, 0)
		if !ok {
			if r.Mode == knowledge.SQLQuery && param < 0 {
				return // a query of unknown text: taken as a read
			}
			o := a.addEffect(s, ci, describeCall(cc)+" (query text not constant)", knowledge.SQL, recv)
			o.param = param
			if param >= 0 {
				// The caller's text decides; a query's is a read
				// unless it writes (INSERT … RETURNING through a
				// wrapper's QueryRowContext).
				o.innerFact.QueryParam = param
				o.innerFact.QueryRead = r.Mode == knowledge.SQLQuery
			}
			o.errVal = errResult(call)
			return
		}
		cls := mergeTexts(texts)
		if r.Mode == knowledge.SQLExec && cls.Function != "" && !cls.Write {
			// A SELECT executed, its rows thrown away: it runs a stored
			// function for what the function does.
			cls.Write, cls.Idempotent, cls.Reason = true, false, "runs stored function "+cls.Function
		}
		var keyArgs ssa.Value
		if r.arg >= 0 && r.arg+1 < len(args) {
			keyArgs = args[len(args)-1]
		}
		a.sqlStatement(s, ci, r, recv, cls, describeCall(cc)+" "+snippet(texts[0]), keyArgs, call, r.Mode == knowledge.SQLQuery, texts[0])
	case knowledge.GormCreate:
		if t := modelTable(arg(args, r.arg)); t != "" {
			s.addWrite(t)
		}
		cls, model := a.gormCreateClass(recv)
		if model == nil {
			model = arg(args, 0)
		}
		a.sqlStatement(s, ci, r, recv, cls, describeCall(cc), model, call, false, "")
	case knowledge.GormUpdate:
		a.ormWrite(s, recv, args, r)
		cls := a.gormUpdateClass(recv, args, r)
		if cls.Write {
			a.sqlStatement(s, ci, r, recv, cls, describeCall(cc), arg(args, len(args)-1), call, false, "")
		}
	case knowledge.MongoUpdate:
		acc, set := false, false
		for _, str := range reachedStrings(arg(args, r.arg)) {
			switch str {
			case "$inc", "$push", "$mul", "$pushAll", "$bit", "$currentDate":
				acc = true
			case "$set", "$unset", "$addToSet", "$pull", "$pullAll", "$max", "$min", "$setOnInsert", "$rename":
				set = true
			}
		}
		if acc || !set {
			a.addEffect(s, ci, describeCall(cc), knowledge.Mongo, recv)
		}
	case knowledge.HTTPDo:
		req := arg(args, r.arg)
		method, known := a.httpMethod(req)
		if known && method != "POST" && method != "PATCH" {
			return
		}
		keyed, keyParam := a.idempotencyKey(ci)
		if keyed {
			return
		}
		d := describeCall(cc)
		if known {
			d += " " + method
		}
		o := a.addEffect(s, ci, d, knowledge.HTTP, recv)
		o.innerFact.HeaderParam = keyParam
		if !known {
			o.innerFact.MethodParam = a.methodParam(s.fn, req)
		}
	case knowledge.HTTPPost:
		a.addEffect(s, ci, describeCall(cc), knowledge.HTTP, recv)
	case knowledge.RPCMethod:
		full, ok := constString(arg(args, r.arg))
		if !ok {
			a.addEffect(s, ci, describeCall(cc)+" (method not constant)", knowledge.RPC, recv)
			return
		}
		if method := full[strings.LastIndex(full, "/")+1:]; a.cat.RemoteEffect(method) {
			a.addEffect(s, ci, describeCall(cc)+" "+full, knowledge.RPC, recv)
		}
	case knowledge.RedisCommand:
		name, ok := constString(arg(args, r.arg))
		if !ok {
			return // a command not known here: not taken for a write
		}
		desc := describeCall(cc) + " " + strings.ToUpper(name)
		switch effect, publish := a.cat.RedisCommand(name); {
		case effect:
			a.addEffect(s, ci, desc, knowledge.Redis, recv)
		case publish:
			s.sends = true
			if a.cfg.publish {
				a.addEffect(s, ci, desc, knowledge.PublishKind, recv)
			}
		}
	}
}

// sqlStatement records what a classified SQL statement is: an effect, a
// dedup check (with its rows-affected or RETURNING decision values), or a
// lookup.
func (a *pkgAnalysis) sqlStatement(s *summary, ci ssa.CallInstruction, r bound, recv ssa.Value, cls sqlclass.Class, desc string, keyArgs ssa.Value, call *ssa.Call, query bool, text string) {
	if cls.Write && cls.Table != "" {
		s.addWrite(cls.Table, cls.Sets...)
	}
	if cls.Effect() && cls.Insert && a.cat.PublishTable(cls.Table) {
		// An insert into an outbox or a queue table publishes a message, as
		// a broker's producer does: an effect only with -publish.
		s.sends = true
		if a.cfg.publish {
			a.addEffect(s, ci, desc, knowledge.PublishKind, recv)
		}
	} else if cls.Effect() {
		o := a.addEffect(s, ci, desc, knowledge.SQL, recv)
		o.insert = cls.Insert
		o.errVal = a.errOf(call)
		o.table = cls.Table
	}
	if cls.Dedup != sqlclass.DedupNone {
		c := &check{call: ci, pos: ci.Pos(), desc: desc, kind: ckSQL, recv: recv, store: knowledge.SQL, key: keyArgs, table: cls.Table, sqlDedup: cls.Dedup}
		c.pooled = recv != nil && a.pool(a.txRoot(recv))
		s.checks = append(s.checks, c)
		a.rowsValues(s, c, call, vInt, implFresh, implDup, cls.Returning)
	}
	if query && cls.Lookup && !cls.Write {
		c := &check{call: ci, pos: ci.Pos(), desc: desc, kind: ckLookup, recv: recv, store: knowledge.SQL, key: keyArgs, table: sqlclass.FromTable(text)}
		s.checks = append(s.checks, c)
		a.rowsValues(s, c, call, vInt, implDup, implFresh, true)
	}
}

// errOf returns the error value of a call: its error result, or the Error
// field of a gorm result.
func (a *pkgAnalysis) errOf(call *ssa.Call) ssa.Value {
	if call == nil {
		return nil
	}
	if e := errResult(call); e != nil {
		return e
	}
	if orm := a.ormOf(call); orm != nil && orm.ErrorField != "" {
		if l := fieldLoads(call, orm.ErrorField); len(l) > 0 {
			return l[0]
		}
	}
	return nil
}

// rowsValues registers the decision values of a statement: rows affected
// (sql.Result, pgconn.CommandTag, gorm's RowsAffected), the error of the
// Scan of a RETURNING or SELECT row, and (for lookups) the scanned values.
// pos is what "> 0 rows" implies, zero what "no row" implies.
func (a *pkgAnalysis) rowsValues(s *summary, c *check, call *ssa.Call, _ vkind, pos, zero impl, rows bool) {
	if call == nil {
		return
	}
	set := func(v ssa.Value, d *dval) {
		if v != nil {
			s.values[v] = d
		}
	}
	// database/sql: Result.RowsAffected(); pgx: CommandTag.RowsAffected().
	for _, res := range []ssa.Value{result(call, 0), call} {
		if res == nil {
			continue
		}
		for _, m := range a.roleCalls(res, knowledge.RowsAffected) {
			set(result(m, 0), &dval{chk: c, kind: vInt, t: pos, f: zero})
		}
		if orm := a.ormOf(res); orm != nil && orm.RowsField != "" {
			for _, l := range fieldLoads(res, orm.RowsField) {
				set(l, &dval{chk: c, kind: vInt, t: pos, f: zero})
			}
		}
		if !rows {
			continue
		}
		for _, sc := range a.roleCalls(res, knowledge.Scan) {
			set(errResult(sc), &dval{chk: c, kind: vErr, t: pos, s: zero, sentinel: knowledge.NoRows})
			if c.kind == ckLookup {
				a.stateScans(s, c, sc)
			}
			// Scanned values of a lookup: a bool or a count.
			_, sargs := splitArgs(sc.Common())
			for _, sa := range sargs {
				for _, dst := range scanTargets(sa) {
					for _, r := range *dst.Referrers() {
						ld, ok := r.(*ssa.UnOp)
						if !ok || ld.Op != token.MUL || ld.X != dst {
							continue
						}
						switch t := ld.Type().Underlying().(type) {
						case *types.Basic:
							if t.Info()&types.IsBoolean != 0 {
								set(ld, &dval{chk: c, kind: vBool, t: pos, f: zero})
							} else if t.Info()&types.IsInteger != 0 && c.kind == ckLookup {
								set(ld, &dval{chk: c, kind: vInt, t: pos, f: zero})
							}
						}
					}
				}
			}
		}
	}
}

// scanTargets returns the variables (Allocs) a Scan writes, from its
// variadic argument slice.
func scanTargets(v ssa.Value) []ssa.Value {
	var out []ssa.Value
	vals, _ := variadicValues(v)
	for _, x := range vals {
		if al, ok := x.(*ssa.Alloc); ok {
			out = append(out, al)
		}
	}
	return out
}

// stmtQuery returns the query a prepared statement was prepared with.
func (a *pkgAnalysis) stmtQuery(v ssa.Value, depth int) ssa.Value {
	if depth > 4 || v == nil {
		return nil
	}
	v = peel(v)
	if ex, ok := v.(*ssa.Extract); ok {
		v = ex.Tuple
	}
	// A statement kept in a struct field, prepared where the struct was
	// built: the query the program prepared into that field.
	if ld, ok := v.(*ssa.UnOp); ok && ld.Op == token.MUL {
		if fa, ok := ld.X.(*ssa.FieldAddr); ok {
			if qs := a.stmtFields()[fieldKey(fa)]; len(qs) > 0 {
				return qs[0]
			}
		}
		return nil
	}
	call, ok := v.(*ssa.Call)
	if !ok {
		return nil
	}
	fn := callee(call.Common())
	if fn == nil {
		return nil
	}
	_, args := splitArgs(call.Common())
	r, ok := a.find(fn, knowledge.Prepare)
	if !ok {
		// A helper of the program that hands a statement back, maybe bound
		// to a transaction (sqlutil.TxStmt(tx, stmt)): its statement.
		if f := call.Call.StaticCallee(); f != nil && f.Blocks != nil && a.local(f.Pkg) {
			if i := stmtParam(f); i >= 0 {
				return a.stmtQuery(arg(call.Call.Args, i), depth+1)
			}
		}
		return nil
	}
	if r.arg < 0 { // Tx.Stmt(stmt)
		return a.stmtQuery(arg(args, 0), depth+1)
	}
	return arg(args, r.arg)
}

// stmtParam returns the index (in the call's arguments) of the only
// parameter of f whose type is f's result type — a statement handed back —
// or -1.
func stmtParam(f *ssa.Function) int {
	res := f.Signature.Results()
	if res.Len() != 1 {
		return -1
	}
	found := -1
	for i, p := range f.Params {
		if types.Identical(p.Type(), res.At(0).Type()) {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	return found
}

// stmtFields maps struct fields holding prepared statements to the queries
// the program prepares into them: `s.insertStmt, err = db.Prepare(q)`, and
// statement tables such as `StatementList{{&s.insertStmt, q}, …}` (a
// literal pairing a pointer to a statement field with a query string).
func (a *pkgAnalysis) stmtFields() map[string][]ssa.Value {
	if a.stmts != nil {
		return a.stmts
	}
	a.stmts = map[string][]ssa.Value{}
	type pair struct {
		field *ssa.FieldAddr
		query ssa.Value
		n, q  int
	}
	for _, fn := range a.funcs {
		lits := map[ssa.Value]*pair{} // struct being filled -> its stores
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				st, ok := instr.(*ssa.Store)
				if !ok {
					continue
				}
				fa, ok := st.Addr.(*ssa.FieldAddr)
				if !ok {
					continue
				}
				val := peel(st.Val)
				if ex, ok := val.(*ssa.Extract); ok {
					val = ex.Tuple
				}
				if c, ok := val.(*ssa.Call); ok {
					if r, ok := a.find(callee(c.Common()), knowledge.Prepare); ok && r.arg >= 0 {
						_, args := splitArgs(c.Common())
						if q := arg(args, r.arg); q != nil {
							k := fieldKey(fa)
							a.stmts[k] = append(a.stmts[k], q)
						}
					}
					continue
				}
				p := lits[fa.X]
				if p == nil {
					p = &pair{}
					lits[fa.X] = p
				}
				if ptr, ok := st.Val.(*ssa.FieldAddr); ok && a.cat.TypeRole(derefType(ptr.Type())) == knowledge.StmtType {
					p.field = ptr
					p.n++
				} else if _, ok := constString(st.Val); ok || isStringGlobal(st.Val) {
					p.query = st.Val
					p.q++
				}
			}
		}
		for _, p := range lits {
			if p.n == 1 && p.q == 1 {
				k := fieldKey(p.field)
				a.stmts[k] = append(a.stmts[k], p.query)
			}
		}
	}
	return a.stmts
}

// isStringGlobal reports whether v is a load of a package-level string.
func isStringGlobal(v ssa.Value) bool {
	ld, ok := v.(*ssa.UnOp)
	if !ok || ld.Op != token.MUL {
		return false
	}
	_, ok = ld.X.(*ssa.Global)
	b, isBasic := ld.Type().Underlying().(*types.Basic)
	return ok && isBasic && b.Kind() == types.String
}

// autoCommits reports whether the consumer a read is made on commits by
// itself, as ac describes: a kafka-go Reader with a GroupID (one it cannot
// trace counts as grouped, the usual case for consumers), a franz-go client
// made without DisableAutoCommit (or AutoCommitMarks), a confluent consumer
// whose config does not set enable.auto.commit. A consumer with options or
// config keys that cannot be traced to its constructor counts as committing
// explicitly. A consumer kept in a struct field is traced to the
// constructions stored in that field; it auto-commits when every one does.
func (a *pkgAnalysis) autoCommits(ac *knowledge.AutoCommit, recv ssa.Value) bool {
	if ac == nil {
		return false
	}
	calls := a.constructors(recv, ac.Ctor)
	if len(calls) == 0 {
		return constructionCommits(ac, nil)
	}
	for _, c := range calls {
		if !constructionCommits(ac, c) {
			return false
		}
	}
	return true
}

// constructionCommits reports whether the consumer made by call (nil: not
// traced) commits by itself.
func constructionCommits(ac *knowledge.AutoCommit, call *ssa.Call) bool {
	switch {
	case ac.GroupField != "":
		if call == nil || len(call.Call.Args) == 0 {
			return true
		}
		vals, found := storedField(call.Call.Args[0], ac.GroupField)
		if !found {
			return true
		}
		for _, x := range vals {
			if s, ok := constString(x); !ok || s != "" {
				return true
			}
		}
		return false
	case len(ac.ManualOptions)+len(ac.GroupOptions) > 0:
		if call == nil || len(call.Call.Args) == 0 {
			return false
		}
		group := len(ac.GroupOptions) == 0
		for _, f := range reachedCalls(arg(call.Call.Args, len(call.Call.Args)-1)) {
			if slices.Contains(ac.ManualOptions, f.Name()) {
				return false
			}
			if slices.Contains(ac.GroupOptions, f.Name()) {
				group = true
			}
		}
		return group
	case len(ac.ManualKeys) > 0:
		if call == nil || len(call.Call.Args) == 0 {
			return false
		}
		for _, str := range reachedStrings(call.Call.Args[0]) {
			if slices.Contains(ac.ManualKeys, str) {
				return false
			}
		}
		return true
	}
	return false
}

// constructors returns the calls to a function named name that made v: the
// call itself; for a client loaded from a struct field, the calls whose
// results the analysed code stores in that field; for a parameter, the
// calls made for it by the function's callers (New(log, db, kc) given
// kgo.NewClient's client in main). Nil when one of them cannot be traced.
func (a *pkgAnalysis) constructors(v ssa.Value, name string) []*ssa.Call {
	return a.constructorsDepth(v, name, 0)
}

func (a *pkgAnalysis) constructorsDepth(v ssa.Value, name string, depth int) []*ssa.Call {
	if c := constructor(v, name); c != nil {
		return []*ssa.Call{c}
	}
	if depth > 3 {
		return nil
	}
	var from []ssa.Value
	switch x := peel(v).(type) {
	case *ssa.UnOp:
		if x.Op != token.MUL {
			return nil
		}
		if fv, ok := x.X.(*ssa.FreeVar); ok {
			from = storedTo(closureBindings(fv)) // a captured variable
			break
		}
		if al, ok := x.X.(*ssa.Alloc); ok {
			from = storedTo([]ssa.Value{al}) // a variable a closure captures
			break
		}
		fa, ok := x.X.(*ssa.FieldAddr)
		if !ok {
			return nil
		}
		from = a.fieldInits()[fieldKey(fa)]
	case *ssa.Parameter:
		from = a.argsFor(x)
	case *ssa.FreeVar:
		from = closureBindings(x) // a read loop a helper returns
	case *ssa.Extract:
		from = localResults(x.Tuple, x.Index) // c, err := newConsumer()
	case *ssa.Call:
		from = localResults(x, 0)
	}
	var out []*ssa.Call
	for _, x := range from {
		cs := a.constructorsDepth(x, name, depth+1)
		if len(cs) == 0 {
			return nil
		}
		out = append(out, cs...)
	}
	return out
}

// closureBindings returns the values bound to the free variable v where
// its closure is made in the enclosing function.
func closureBindings(v *ssa.FreeVar) []ssa.Value {
	fn := v.Parent()
	i := slices.Index(fn.FreeVars, v)
	if i < 0 || fn.Parent() == nil {
		return nil
	}
	var out []ssa.Value
	for _, b := range fn.Parent().Blocks {
		for _, in := range b.Instrs {
			if mc, ok := in.(*ssa.MakeClosure); ok && mc.Fn == fn && i < len(mc.Bindings) {
				out = append(out, mc.Bindings[i])
			}
		}
	}
	return out
}

// storedTo returns the values stored into the variables addrs (the Allocs
// a closure captures).
func storedTo(addrs []ssa.Value) []ssa.Value {
	var out []ssa.Value
	for _, v := range addrs {
		al, ok := v.(*ssa.Alloc)
		if !ok {
			return nil
		}
		for _, r := range *al.Referrers() {
			if st, ok := r.(*ssa.Store); ok && st.Addr == al {
				out = append(out, st.Val)
			}
		}
	}
	return out
}

// localResults returns the values a static call of a function with a body
// (a constructor helper of the program) returns as its result index, but
// the nils its error returns give.
func localResults(v ssa.Value, index int) []ssa.Value {
	call, ok := v.(*ssa.Call)
	if !ok {
		return nil
	}
	f := call.Common().StaticCallee()
	if f == nil || f.Blocks == nil {
		return nil
	}
	var out []ssa.Value
	for _, b := range f.Blocks {
		if r, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok && index < len(r.Results) && !isNilConst(r.Results[index]) {
			out = append(out, r.Results[index]) // not the nil of an error return
		}
	}
	return out
}

// argsFor returns the values the analysed code passes for parameter p at
// the static calls of its function (countUses' index).
func (a *pkgAnalysis) argsFor(p *ssa.Parameter) []ssa.Value {
	fn := p.Parent()
	i := slices.Index(fn.Params, p)
	u := a.uses[fn]
	if i < 0 || fn.Parent() != nil || u == nil {
		return nil
	}
	var out []ssa.Value
	for _, ci := range u.calls {
		if args := ci.Common().Args; i < len(args) {
			out = append(out, args[i])
		}
	}
	return out
}

// constructor returns the call to a function named name that made v.
func constructor(v ssa.Value, name string) *ssa.Call {
	v = peel(v)
	if ex, ok := v.(*ssa.Extract); ok {
		v = ex.Tuple
	}
	call, ok := v.(*ssa.Call)
	if !ok {
		return nil
	}
	if fn := callee(call.Common()); fn != nil && fn.Name() == name {
		return call
	}
	return nil
}

// resolveMethod decides o, an HTTP call whose method its function's caller
// names, at the call ci: a constant PUT, DELETE … is no effect (false); a
// parameter of the caller passes the decision on.
func resolveMethod(o *occ, ci ssa.CallInstruction, args []ssa.Value) bool {
	p := o.innerFact.MethodParam
	if p < 0 {
		return true
	}
	v := arg(args, p)
	if m, ok := constString(v); ok {
		if m = strings.ToUpper(m); m != "POST" && m != "PATCH" {
			return false
		}
		o.desc += " " + m
		o.innerFact.MethodParam = -1
		return true
	}
	o.innerFact.MethodParam = paramIndex(ci.Parent(), v)
	return true
}

// methodParam returns the parameter of fn that the method of req, an HTTP
// request built by a catalogued constructor, comes from; -1 when none.
func (a *pkgAnalysis) methodParam(fn *ssa.Function, req ssa.Value) int {
	v := peel(req)
	if ex, ok := v.(*ssa.Extract); ok {
		v = ex.Tuple
	}
	call, ok := v.(*ssa.Call)
	if !ok {
		return -1
	}
	r, ok := a.find(callee(call.Common()), knowledge.NewRequest)
	if !ok {
		return -1
	}
	_, args := splitArgs(call.Common())
	m := arg(args, r.arg)
	if _, ok := peel(m).(*ssa.Parameter); !ok {
		return -1
	}
	return paramIndex(fn, m)
}

// httpMethod returns the method of a request built by a request
// constructor of the catalog (http.NewRequest(WithContext)).
func (a *pkgAnalysis) httpMethod(req ssa.Value) (string, bool) {
	v := peel(req)
	if phi, ok := v.(*ssa.Phi); ok {
		// A request made on either branch (with a context or without):
		// the method both give.
		method := ""
		for _, e := range phi.Edges {
			if isNilConst(e) {
				continue
			}
			if _, ok := peel(e).(*ssa.Phi); ok {
				return "", false
			}
			m, ok := a.httpMethod(e)
			if !ok || method != "" && m != method {
				return "", false
			}
			method = m
		}
		return method, method != ""
	}
	if ex, ok := v.(*ssa.Extract); ok {
		v = ex.Tuple
	}
	call, ok := v.(*ssa.Call)
	if !ok {
		return "", false
	}
	fn := callee(call.Common())
	r, ok := a.find(fn, knowledge.NewRequest)
	if !ok {
		return "", false
	}
	_, args := splitArgs(call.Common())
	m, ok := constString(arg(args, r.arg))
	return strings.ToUpper(m), ok
}

// idempotencyKey reports whether the request sent at ci carries an
// Idempotency-Key header (the provider then drops a repeat): set on every
// path to the call, or only when a parameter of the function is not empty
// (`if key != "" { req.Header.Set("Idempotency-Key", key) }`), in which case
// param is that parameter and callers decide. A header set under any other
// condition does not count.
func (a *pkgAnalysis) idempotencyKey(ci ssa.CallInstruction) (keyed bool, param int) {
	fn := ci.Parent()
	param = -1
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			var key, val ssa.Value
			switch in := instr.(type) {
			case *ssa.Call:
				f := callee(in.Common())
				if r, ok := a.find(f, knowledge.HeaderSet); ok {
					_, hargs := splitArgs(in.Common())
					key, val = arg(hargs, r.arg), arg(hargs, r.key)
				}
			case *ssa.MapUpdate:
				if a.cat.TypeRole(in.Map.Type()) == knowledge.HeaderType {
					key, val = in.Key, in.Value
				}
			}
			k, ok := constString(key)
			if !ok {
				continue
			}
			k = textproto.CanonicalMIMEHeaderKey(k)
			if k != "Idempotency-Key" && k != "X-Idempotency-Key" {
				continue
			}
			if fresh, _ := a.keyIndependent(val); fresh {
				continue // a new key per attempt: the provider sees every repeat as new
			}
			if b.Dominates(ci.Block()) {
				if p, ok := peel(val).(*ssa.Parameter); ok {
					return false, paramIndex(fn, p) // the caller's key decides
				}
				return true, -1
			}
			if p := nonEmptyParam(fn, b); p >= 0 {
				param = p
			}
		}
	}
	return false, param
}

// nonEmptyParam returns the parameter whose test `p != ""` (or `len(p) > 0`)
// guards block b: b is dominated by the true side of that test; -1 if none.
func nonEmptyParam(fn *ssa.Function, b *ssa.BasicBlock) int {
	for d := b.Idom(); d != nil; d = d.Idom() {
		ifi, ok := d.Instrs[len(d.Instrs)-1].(*ssa.If)
		if !ok || !d.Succs[0].Dominates(b) {
			continue
		}
		bin, ok := ifi.Cond.(*ssa.BinOp)
		if !ok {
			continue
		}
		x, y := bin.X, bin.Y
		if _, ok := x.(*ssa.Const); ok {
			x, y = y, x
		}
		var v ssa.Value
		switch {
		case bin.Op == token.NEQ:
			if s, ok := constString(y); ok && s == "" {
				v = x
			}
		case bin.Op == token.GTR:
			if n, ok := constInt(y); ok && n == 0 {
				if c, ok := x.(*ssa.Call); ok {
					if bi, ok := c.Call.Value.(*ssa.Builtin); ok && bi.Name() == "len" && len(c.Call.Args) == 1 {
						v = c.Call.Args[0]
					}
				}
			}
		}
		if p, ok := v.(*ssa.Parameter); ok {
			return paramIndex(fn, p)
		}
	}
	return -1
}

// gormCreateClass classifies an ORM's create by the clauses on its receiver
// chain: gorm's OnConflict{DoNothing: true} and INSERT IGNORE, bun's
// On("CONFLICT … DO NOTHING") and Ignore() are dedup inserts,
// OnConflict{UpdateAll or DoUpdates} an idempotent upsert. model is the row
// the chain names (bun's Model(&row)), nil when it names none.
func (a *pkgAnalysis) gormCreateClass(recv ssa.Value) (cls sqlclass.Class, model ssa.Value) {
	cls = sqlclass.Class{Known: true, Write: true, Insert: true, Reason: "the insert adds a row on every delivery"}
	dedup := sqlclass.Class{Known: true, Write: true, Idempotent: true, Dedup: sqlclass.DedupInsertNothing}
	v := recv
	for range 12 {
		call, ok := peel(v).(*ssa.Call)
		if !ok {
			break
		}
		fn := callee(call.Common())
		if fn == nil || fn.Pkg() == nil {
			break
		}
		orm := a.cat.ORM(fn.Pkg().Path())
		if orm == nil {
			break
		}
		r, args := splitArgs(call.Common())
		switch fn.Name() {
		case orm.OnText:
			if t, ok := constString(arg(args, 0)); ok && strings.Contains(strings.Join(strings.Fields(strings.ToUpper(t)), " "), "DO NOTHING") {
				cls = dedup
			}
		case orm.Ignore:
			cls = dedup
		case orm.Model:
			if model == nil {
				model = arg(args, 0)
			}
		}
		if fn.Name() == orm.Clauses {
			for _, x := range args {
				walk(x, 8, func(y ssa.Value) bool {
					n, ok := types.Unalias(derefType(y.Type())).(*types.Named)
					if !ok || n.Obj().Pkg() == nil || knowledge.NormPath(n.Obj().Pkg().Path()) != orm.ClausePkg {
						return true
					}
					switch n.Obj().Name() {
					case orm.Conflict:
						if vals, _ := storedField(y, orm.DoNothing); anyTrue(vals) {
							cls = dedup
							return true
						}
						for _, u := range orm.Upsert {
							if vals, _ := storedField(y, u); len(vals) > 0 && (anyTrue(vals) || !allBool(vals)) {
								cls = sqlclass.Class{Known: true, Write: true, Idempotent: true}
							}
						}
					case orm.Insert:
						if vals, _ := storedField(y, orm.Modifier); len(vals) > 0 {
							if m, _ := constString(vals[0]); strings.Contains(strings.ToUpper(m), "IGNORE") {
								cls = dedup
							}
						}
					}
					return true
				})
			}
		}
		v = r
	}
	return cls, model
}

func derefType(t types.Type) types.Type {
	if p, ok := types.Unalias(t).(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

// allBool reports whether every value is a boolean constant.
func allBool(vals []ssa.Value) bool {
	for _, v := range vals {
		if _, ok := constBool(v); !ok {
			return false
		}
	}
	return true
}

func anyTrue(vals []ssa.Value) bool {
	for _, v := range vals {
		if b, ok := constBool(v); ok && b {
			return true
		}
	}
	return false
}

// gormUpdateClass classifies a gorm Update/Updates by rebuilding its SQL:
// the gorm.Expr values it sets and the Where conditions of its receiver
// chain ("UPDATE t SET col = col - ? WHERE status = ?").
func (a *pkgAnalysis) gormUpdateClass(recv ssa.Value, args []ssa.Value, r bound) sqlclass.Class {
	var sets []string
	col := ""
	if r.arg == 1 {
		col, _ = constString(arg(args, 0))
	}
	for _, f := range []ssa.Value{arg(args, r.arg)} {
		walk(f, 10, func(y ssa.Value) bool {
			call, ok := y.(*ssa.Call)
			if !ok {
				return true
			}
			fn := callee(call.Common())
			if fn != nil && fn.Pkg() != nil && a.cat.ORM(fn.Pkg().Path()) != nil && fn.Name() == a.cat.ORM(fn.Pkg().Path()).Expr {
				if e, ok := constString(call.Call.Args[0]); ok {
					c := col
					if c == "" {
						c = sqlclass.FirstIdent(e)
					}
					sets = append(sets, c+" = "+e)
				}
			}
			return true
		})
	}
	var wheres []string
	v := recv
	for range 12 {
		call, ok := peel(v).(*ssa.Call)
		if !ok {
			break
		}
		fn := callee(call.Common())
		if fn == nil || fn.Pkg() == nil || a.cat.ORM(fn.Pkg().Path()) == nil {
			break
		}
		rv, cargs := splitArgs(call.Common())
		if fn.Name() == a.cat.ORM(fn.Pkg().Path()).Where {
			if w, ok := constString(arg(cargs, 0)); ok {
				wheres = append(wheres, "("+w+")")
			}
		}
		v = rv
	}
	if col != "" && len(sets) == 0 {
		sets = append(sets, col+" = ?")
	}
	if len(sets) == 0 {
		sets = append(sets, "_fmt_ = ?")
	}
	q := "UPDATE t SET " + strings.Join(sets, ", ")
	if len(wheres) > 0 {
		q += " WHERE " + strings.Join(wheres, " AND ")
	}
	return sqlclass.Classify(q)
}

var stdRoots = map[string]bool{}

func init() {
	for _, r := range strings.Fields(`archive bufio bytes cmp compress container context crypto database debug embed
		encoding errors expvar flag fmt go hash html image index internal io iter log maps math mime net os path
		plugin reflect regexp runtime slices sort strconv strings sync syscall testing text time unicode unique
		unsafe vendor weak`) {
		stdRoots[r] = true
	}
}

// stdPath reports whether an import path is in the standard library.
func stdPath(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return !strings.Contains(first, ".") && stdRoots[first]
}

// implEffect is an effect of an implementation of an interface method.
type implEffect struct {
	impl string
	fact factEffect
	pos  token.Pos
}

// implEffects returns the effects of the implementations of interface
// method m that this package can see: named types declared in this package
// or in the packages it imports (outside std and the catalog) whose method
// performs unguarded effects. A repository interface implemented in the
// same package, or in an imported one, is so followed to its SQL.
func (a *pkgAnalysis) implEffects(m *types.Func) []implEffect {
	if a.impls == nil {
		a.impls = map[*types.Func][]implEffect{}
	}
	if r, ok := a.impls[m]; ok {
		return r
	}
	a.impls[m] = nil // recursion guard
	sig, _ := m.Type().(*types.Signature)
	if sig == nil || sig.Recv() == nil {
		return nil
	}
	iface, ok := sig.Recv().Type().Underlying().(*types.Interface)
	if !ok || iface.NumMethods() == 0 {
		return nil
	}
	var out []implEffect
	scopes := []*types.Package{a.pass.Pkg}
	for _, imp := range a.pass.Pkg.Imports() {
		if !stdPath(imp.Path()) && !a.cat.Known(knowledge.NormPath(imp.Path())) {
			scopes = append(scopes, imp)
		}
	}
	for _, pkg := range scopes {
		for _, name := range pkg.Scope().Names() {
			tn, ok := pkg.Scope().Lookup(name).(*types.TypeName)
			if !ok || tn.IsAlias() {
				continue
			}
			named, ok := tn.Type().(*types.Named)
			if !ok || named.TypeParams().Len() > 0 || types.IsInterface(named) {
				continue
			}
			for _, t := range []types.Type{named, types.NewPointer(named)} {
				impl := implementation(t, iface, m)
				if impl == nil {
					continue
				}
				label := shortFunc(impl)
				if impl.Pkg() == a.pass.Pkg {
					if f := a.prog.FuncValue(impl); f != nil {
						for _, o := range a.summary(f).unguarded {
							out = append(out, implEffect{label, o.innerFact, o.inner})
						}
					}
				} else {
					var ef effectsFact
					if a.importFact(impl, &ef) && !ef.Root {
						for _, e := range ef.Effects {
							out = append(out, implEffect{label, e, a.posFor(e)})
						}
					}
				}
				break
			}
		}
	}
	a.impls[m] = out
	return out
}
