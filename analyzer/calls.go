package analyzer

import (
	"go/token"
	"go/types"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
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
	s.visiting = ci
	defer func() { s.visiting = nil }()
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
	if !handled && a.generatedLookup(s, ci, fn, recv) {
		handled = true
	}
	if !handled && fn != nil && a.apiRequest(fn) {
		if f := cc.StaticCallee(); cc.IsInvoke() && len(a.callees[ci]) == 0 && !a.describedIface(fn) || f != nil && !a.local(f.Pkg) {
			s.callsOut = true
			if a.cat.OverwriteName(fn.Name()) {
				s.nwrites++ // an SDK's Delete, PutObject: idempotent, but work a lost message loses
			}
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
	if s.publishes[ci] {
		a.noteRepublish(s, ci, recv, args)
	}
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
		if guarded[i] {
			continue
		}
		for _, f := range a.funcValues(v, 0) {
			if f.Blocks == nil {
				continue
			}
			cs := a.summary(f)
			if cs.root {
				continue // a handler registered here: judged on its own
			}
			for _, o := range cs.unguarded {
				a.addVia(s, ci, "func literal", o, nil)
			}
			a.addWrites(s, cs) // a transaction's callback: its writes are the call's
		}
	}
}

// funcValues returns the functions a value can be: a function or a
// closure, either side of a phi, or a closure that a function of the
// program returns (a builder: op = c.buildPostInsert(ctx, ev), then
// backoff.Retry(op, …)), which its builder does not run and so does not
// count.
func (a *pkgAnalysis) funcValues(v ssa.Value, depth int) []*ssa.Function {
	if f := funcValue(v); f != nil {
		return []*ssa.Function{f}
	}
	if depth > 3 {
		return nil
	}
	var out []*ssa.Function
	switch x := peel(v).(type) {
	case *ssa.Phi:
		for _, e := range x.Edges {
			for _, f := range a.funcValues(e, depth+1) {
				if !slices.Contains(out, f) {
					out = append(out, f)
				}
			}
		}
	case *ssa.Call:
		g := x.Call.StaticCallee()
		if g == nil || g.Blocks == nil || !a.local(pkgOf(g)) {
			break
		}
		if _, ok := x.Type().Underlying().(*types.Signature); !ok {
			break
		}
		for _, b := range g.Blocks {
			if r, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok && len(r.Results) == 1 {
				for _, f := range a.funcValues(r.Results[0], depth+1) {
					if !slices.Contains(out, f) {
						out = append(out, f)
					}
				}
			}
		}
	}
	return out
}

// addWrites records, for the call being visited, the writes of a function
// it calls or a closure it is given: the tables written, and a write for
// a lost message to lose when the callee writes, or does work even though
// guarded (a dedup insert and its effect in one transaction).
func (a *pkgAnalysis) addWrites(s *summary, cs *summary) {
	for t, cols := range cs.writes {
		s.addWrite(t, slices.Collect(maps.Keys(cols))...)
	}
	if len(cs.wroteAt) > 0 || len(cs.occs) > 0 {
		s.nwrites++ // a Redis SET in f, a guarded effect, or a call of a function that makes one
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

// addPublish records a call that publishes a message: an effect only with
// -publish.
func (a *pkgAnalysis) addPublish(s *summary, ci ssa.CallInstruction, desc string, recv ssa.Value) {
	s.markSends()
	if a.cfg.publish {
		a.addEffect(s, ci, desc, knowledge.PublishKind, recv)
	}
}

// mongoUpdate decides a MongoDB update document: an effect when it adds
// to what is stored ($inc, $push …) or names no operator idemlint knows,
// none when only $set-like operators replace. A document that is a
// parameter of its function and reaches no string (a wrapper's
// mongodb.Save(ctx, c, filter, update)) is left to the callers: param is
// its index, -1 otherwise.
func mongoUpdate(doc ssa.Value) (param int, effect bool) {
	strs := reachedStrings(doc)
	if p, ok := peel(doc).(*ssa.Parameter); ok && len(strs) == 0 {
		return paramIndex(p.Parent(), p), true
	}
	acc, set := false, false
	for _, str := range strs {
		switch str {
		case "$inc", "$push", "$mul", "$pushAll", "$bit", "$currentDate":
			acc = true
		case "$set", "$unset", "$addToSet", "$pull", "$pullAll", "$max", "$min", "$setOnInsert", "$rename":
			set = true
		}
	}
	return -1, acc || !set
}

// addVia records an effect that happens inside a function called (or a
// closure created) at ci.
func (a *pkgAnalysis) addVia(s *summary, ci ssa.CallInstruction, via string, inner *occ, args []ssa.Value) {
	if len(s.byInstr[ci]) >= maxEffectsPerCall {
		return
	}
	o := &occ{instr: ci, pos: ci.Pos(), kind: inner.kind, inner: inner.inner, innerMsg: inner.innerMsg, innerFact: inner.innerFact, param: -1, pooled: inner.pooled, from: inner.instr.Parent()}
	o.desc = chain(via, inner.desc)
	if p := inner.innerFact.QueryParam; p >= 0 {
		if !a.resolveParam(o, arg(args, p)) {
			return
		}
	}
	if inner.freeText > 0 {
		// The text of a closure made here and run by the call (a retry
		// helper's): the value it captured decides.
		if b := boundTo(ci, inner.instr.Parent(), inner.freeText-1); b != nil && !a.resolveParam(o, b) {
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
		a.rpcCall(s, ci, fn, nil, args)
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
	cs := a.asCalled(s, a.summary(f), f, args)
	did := false
	a.addWrites(s, cs)
	if cs.sends {
		s.markSends()
	}
	s.callsOut = s.callsOut || cs.callsOut
	if cs.row != nil {
		a.addStateCheck(s, ci, cs.row, args, via)
	}
	if len(cs.sources) > 0 && (a.returnsMessage(f) || returnsFetched(f, cs.sources)) {
		// A helper that fetches the next message and returns it
		// (m, ev, ok, err := k.fetchPaid(ctx)), or its payload (raw, err
		// := c.cache.DequeueJob(ctx, symbol) over a BRPOPLPUSH): a
		// receive for the loop that calls it.
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
		if c := a.addFuncCheck(s, ci, fn, cs.dedup, args); c != nil && ci.Common().IsInvoke() {
			c.desc = via // the interface method, and its implementation
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
	// A func field of a message of the program that settles it (ev.Ack(),
	// ackholders.go): the closures stored in that field ack here.
	for _, f := range a.messageFieldFuncs(ci.Common().Value) {
		if acks := a.ackHelper(a.summary(f), ci); len(acks) > 0 {
			s.acks = append(s.acks, acks...)
			return true
		}
	}
	for _, f := range a.callees[ci] {
		if !a.local(pkgOf(f)) {
			continue // a client's code, described by the catalog
		}
		if a.dispatched[f] && !a.registered[f] {
			// A small method of the program's queue that acks the message
			// it is given (Delete(ctx, msg) through the worker's Queue
			// interface) is an ack, not a handler the message is
			// dispatched to.
			if acks := a.ackHelper(a.summary(f), ci); len(acks) > 0 {
				s.acks = append(s.acks, acks...)
				found = true
				continue
			}
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

// messageFieldFuncs returns the closures the program stores in the func
// field v is loaded from, when that field belongs to a message the catalog
// knows (the program's own struct whose func fields settle the broker's
// message); nil otherwise.
func (a *pkgAnalysis) messageFieldFuncs(v ssa.Value) []*ssa.Function {
	x, i := loadedField(v)
	if x == nil || a.cat.Message(derefType(x.Type())) == nil {
		return nil
	}
	var out []*ssa.Function
	for _, st := range a.fieldInits()[fieldKeyOf(x, i)] {
		if mc, ok := st.(*ssa.MakeClosure); ok {
			out = append(out, mc.Fn.(*ssa.Function))
		}
	}
	return out
}

// describedIface reports whether fn, a method of the program's interface
// that no type of the program implements, is described all the same: by
// the client the program converts to the interface (a *pgxpool.Pool behind
// sqlc's DBTX), or by its SQL shape (Exec, Query, QueryRow of a statement).
// Its calls are what those rules say (visitInvoke), no API request.
func (a *pkgAnalysis) describedIface(fn *types.Func) bool {
	if _, ok := sqlShaped(a.cat, fn); ok {
		return true
	}
	impl, _ := a.clientImpl(fn)
	return impl != nil
}

// apiRequest reports whether fn, a function of a dependency outside the
// standard library and the catalog that takes a context, is an API
// client's request: I/O whose failure is no poison message.
func (a *pkgAnalysis) apiRequest(fn *types.Func) bool {
	return fn.Pkg() != nil && !stdPath(fn.Pkg().Path()) && hasContextParam(fn) && !a.clientPkg(fn)
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

// returns reports whether f returns a result of the call ci other than
// its error (passing a read's error on does not make f a read).
func returns(f *ssa.Function, ci ssa.CallInstruction) bool {
	call, ok := ci.(*ssa.Call)
	if !ok {
		return false
	}
	if returnedAs(f, call) >= 0 {
		return true
	}
	for _, r := range *call.Referrers() {
		if ex, ok := r.(*ssa.Extract); ok && !isError(ex.Type()) && (returnedAs(f, ex) >= 0 || returnsCollected(f, ex)) {
			return true
		}
	}
	return returnsCollected(f, call)
}

// returnsFetched reports whether f returns what one of its fetches
// returned, or what a method of that made of it (cmd.Bytes() of a
// BRPOPLPUSH's reply).
func returnsFetched(f *ssa.Function, fetches []ssa.Instruction) bool {
	var vals []ssa.Value
	for _, in := range fetches {
		if call, ok := in.(*ssa.Call); ok && call.Parent() == f {
			vals = append(vals, call)
		}
	}
	for range 3 {
		var next []ssa.Value
		for _, v := range vals {
			if returnedAs(f, v) >= 0 {
				return true
			}
			for _, r := range *v.Referrers() {
				switch x := r.(type) {
				case *ssa.Extract:
					if !isError(x.Type()) {
						next = append(next, x)
					}
				case *ssa.Call:
					if recv, _ := splitArgs(x.Common()); recv == v {
						next = append(next, x)
					}
				}
			}
		}
		vals = next
	}
	return false
}

// writeSubject reports whether a word of a request's subject (split at
// dots, dashes, underscores, colons and slashes) is a write verb:
// warehouse.7.reservation.create, orders.place-order.
func writeSubject(subject string) bool {
	for _, w := range strings.FieldsFunc(subject, func(r rune) bool { return strings.ContainsRune("._-:/ ", r) }) {
		if w != "" && writeVerb(strings.ToUpper(w[:1])+w[1:]) {
			return true
		}
	}
	return false
}

// returnsCollected reports whether f returns a slice v (or what v points
// to) is appended to: a helper that reads messages one by one and returns
// them as a batch (msgs = append(msgs, *msg); … return msgs).
func returnsCollected(f *ssa.Function, v ssa.Value) bool {
	var elems []ssa.Value
	add := func(x ssa.Value) {
		if x.Referrers() != nil {
			elems = append(elems, x)
		}
	}
	add(v)
	for _, r := range *v.Referrers() {
		if ld, ok := r.(*ssa.UnOp); ok && ld.Op == token.MUL {
			add(ld)
		}
	}
	for _, e := range elems {
		for _, r := range *e.Referrers() {
			st, ok := r.(*ssa.Store)
			if !ok || st.Val != e {
				continue
			}
			ia, ok := st.Addr.(*ssa.IndexAddr)
			if !ok || ia.X.Referrers() == nil {
				continue
			}
			for _, rr := range *ia.X.Referrers() {
				sl, ok := rr.(*ssa.Slice)
				if !ok || sl.Referrers() == nil {
					continue
				}
				for _, u := range *sl.Referrers() {
					if c, ok := u.(*ssa.Call); ok && isBuiltin(c, "append") && returnedThrough(f, c, 0) {
						return true
					}
				}
			}
		}
	}
	return false
}

// isBuiltin reports whether c calls the builtin name (append, len).
func isBuiltin(c *ssa.Call, name string) bool {
	b, ok := c.Call.Value.(*ssa.Builtin)
	return ok && b.Name() == name
}

// returnedThrough reports whether v, or a phi that merges it, is a result
// of f.
func returnedThrough(f *ssa.Function, v ssa.Value, depth int) bool {
	if depth > 3 || v.Referrers() == nil {
		return false
	}
	if returnedAs(f, v) >= 0 {
		return true
	}
	for _, r := range *v.Referrers() {
		if phi, ok := r.(*ssa.Phi); ok && returnedThrough(f, phi, depth+1) {
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
		for _, t := range ef.Tables {
			s.addWrite(t)
		}
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
		// A remote-service SDK's client behind the program's interface
		// (an emails.Sender that ses.New's client fills, or a type of the
		// program embedding it): its method's remote call, whatever else
		// (a mock) implements the interface.
		sdk := a.sdkImpl(fn)
		if sdk != nil {
			a.rpcCall(s, ci, sdk, recv, args)
		}
		if a.visitDynamic(s, ci, fn, args, guarded) || sdk != nil {
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
		a.rpcCall(s, ci, fn, recv, args)
		return
	}
	if a.cfg.verbs && writeVerb(fn.Name()) && fn.Pkg() != nil && !stdPath(fn.Pkg().Path()) {
		a.addEffect(s, ci, shortFunc(fn)+" (interface method named like a write)", knowledge.Custom, recv)
	}
}

// rpcCall records a call of a generated RPC client's method (see rpcStub):
// an effect unless its name reads as a read or an overwrite; an overwrite
// (PutItem, DeleteObject) is idempotent, but work a lost message loses.
func (a *pkgAnalysis) rpcCall(s *summary, ci ssa.CallInstruction, fn *types.Func, recv ssa.Value, args []ssa.Value) {
	if a.cat.RemoteEffect(fn.Name()) {
		a.addRemote(s, ci, shortFunc(fn)+" (remote call)", recv, arg(args, 1))
	} else if a.cat.OverwriteName(fn.Name()) {
		s.nwrites++
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
		a.addPublish(s, ci, describeCall(ci.Common()), recv)
	case knowledge.Ack:
		s.acks = append(s.acks, ci)
	case knowledge.Nack:
		if s.nacked == nil {
			s.nacked = map[*ssa.BasicBlock]bool{}
		}
		s.nacked[ci.Block()] = true
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
			aa := autoAck{call: ci, kind: r.Role}
			if ch := result(call, 0); ch != nil && itemChan(ch.Type()) {
				aa.ch = ch // a wrapper's ConsumeChan: each receive is committed
			}
			s.autoAcks = append(s.autoAcks, aa)
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
	case knowledge.KVWrite:
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
	if kind == vBool {
		// A client that returns the reply itself (go-zero's Setnx:
		// (bool, error)).
		if v := result(call, 0); v != nil && isBool(v.Type()) {
			s.values[v] = &dval{chk: c, kind: kind, t: t, f: f}
		}
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
// A helper that only maps a check's error to a bool (errverdicts.go)
// passes that check's decision on instead: it returns nil then.
func (a *pkgAnalysis) addFuncCheck(s *summary, ci ssa.CallInstruction, fn *types.Func, f *dedupFact, args []ssa.Value) *check {
	if f.FromErr > 0 {
		s.addErrVerdict(ci, f, args)
		return nil
	}
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
	if call, ok := ci.(*ssa.Call); ok {
		if v := result(call, f.Result); v != nil {
			s.values[v] = &dval{chk: c, kind: f.Kind, t: f.T, f: f.F, s: f.S, sentinel: f.Sentinel}
		}
	}
	return c
}

// effectRule classifies a catalogued effect call.
func (a *pkgAnalysis) effectRule(s *summary, ci ssa.CallInstruction, r bound, recv ssa.Value, args []ssa.Value) {
	cc := ci.Common()
	if a.queuePkgs[pkgOf(s.fn)] || a.listPush(s, cc, r) {
		// The program's own queue storing an item: publishing.
		a.addPublish(s, ci, describeCall(cc), recv)
		return
	}
	call, _ := ci.(*ssa.Call)
	if r.Kind == knowledge.Mongo {
		a.mongoWrite(s, recv, r, args)
	}
	switch r.Mode {
	case knowledge.Always, knowledge.Insert:
		if r.Kind == knowledge.SQL {
			if t := a.insertTable(peelVariadic(arg(args, max(r.arg, 0)))); t != "" {
				s.addWrite(t) // an ORM insert of a model (xorm's Insert(&bean)), a generated create spec
			}
		}
		desc := describeCall(cc)
		if r.Kind == knowledge.Custom {
			desc = shortFunc(callee(cc)) // a team's own function, named as declared
		}
		o := a.addEffect(s, ci, desc, r.Kind, recv)
		copyTarget(o, cc, r, args)
		if r.Mode == knowledge.Insert {
			o.insert, o.errVal = true, errResult(call) // a duplicate key error tells a repeat
		}
	case knowledge.SQLExec, knowledge.SQLQuery, knowledge.SQLStmt, knowledge.SQLBuilt:
		texts, param, ok := a.ruleTexts(ci, r)
		if !ok {
			if r.Mode == knowledge.SQLQuery && param < 0 {
				return // a query of unknown text: taken as a read
			}
			o := a.addEffect(s, ci, describeCall(cc)+" (query text not constant)", knowledge.SQL, recv)
			o.param = param
			_, cargs := splitArgs(cc)
			o.freeText = freeVarIndex(s.fn, peel(arg(cargs, r.arg)))
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
		book := a.bookkeepingModel(arg(args, r.arg)) // an audit or status-log row
		if t := modelTable(arg(args, r.arg)); t != "" && !book {
			s.addWrite(t)
		}
		cls, model := a.gormCreateClass(recv)
		if model == nil {
			model = arg(args, 0)
		}
		a.sqlStatement(s, ci, r, recv, cls, describeCall(cc), model, call, false, "")
		for _, o := range s.byInstr[ci] {
			o.bookkeeping = o.bookkeeping || book // dropped unless a unique test makes it a check
		}
	case knowledge.GormUpdate:
		a.ormWrite(s, recv, args, r)
		cls := a.gormUpdateClass(recv, args, r)
		if cls.Write {
			a.sqlStatement(s, ci, r, recv, cls, describeCall(cc), arg(args, len(args)-1), call, false, "")
		}
	case knowledge.MongoUpdate:
		if param, effect := mongoUpdate(arg(args, r.arg)); effect {
			o := a.addEffect(s, ci, describeCall(cc), knowledge.Mongo, recv)
			o.innerFact.QueryParam = param // a wrapper's document: its callers decide (resolveParam)
		}
	case knowledge.HTTPDo:
		req := arg(args, r.arg)
		method, known := a.httpMethod(req)
		if known && method != "POST" || a.computeRequest(req) {
			return // PUT, DELETE … set state; a model inference request computes
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
			a.addRemote(s, ci, describeCall(cc)+" "+full, recv, arg(args, r.arg+1))
		}
	case knowledge.RequestSubject:
		subjects, _, ok := a.texts(arg(args, r.arg), 0)
		if i := slices.IndexFunc(subjects, writeSubject); ok && i >= 0 {
			// A verb of a Sprintf format is a token of the subject: "*".
			a.addRemote(s, ci, describeCall(cc)+" "+strconv.Quote(strings.ReplaceAll(subjects[i], sqlclass.Unknown, "*")), recv, nil)
		} else {
			a.addPublish(s, ci, describeCall(cc), recv)
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
			a.addPublish(s, ci, desc, recv)
		}
	}
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
