package analyzer

import (
	"go/constant"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// Dispatch by kind. A consumer that takes every message of a topic often
// hands each to the function for its kind: a switch on the event's type
// (case "payment.create": s.HandleCreatePayment(ctx, cmd)), or a handler
// looked up by it (h, ok := p.handlers[evt.Status]; h.Handle(ctx, evt)).
// When that dispatcher is a router the consumer calls (not the consumer's
// handler itself, which takes and settles the message), each function it
// dispatches to is where a message of its kind is handled, so an
// unguarded effect it reaches is reported there, at its own step towards
// the effect, rather than at the consumer's call of the router: the
// finding names the handler of the kind whose effect it is. Whether the
// effect is guarded is still decided where the message is taken (a dedup
// check in front of the dispatch guards every kind).

// attributed returns where an unguarded effect o of a root is reported,
// with the handler named: for each way down o's chain of calls, the
// deepest function that the message is dispatched to by its kind, or that
// a consume loop hands the message to (loopReported); o and name when
// there is none. Two kinds that reach the same effect are both named.
func (a *pkgAnalysis) attributed(o *occ, name string) []attribution {
	var out []attribution
	var walk func(cur *occ, at attribution, depth int)
	walk = func(cur *occ, at attribution, depth int) {
		if cur.from == nil || depth >= 8 || len(out) >= maxEffectsPerCall {
			out = append(out, at)
			return
		}
		ci, isCall := cur.instr.(ssa.CallInstruction)
		d := a.summary(cur.from)
		inner := d.occsOf(cur)
		if len(inner) == 0 {
			out = append(out, at)
			return
		}
		// A root that dispatches by kind itself (a switch in ConsumeClaim)
		// is the handler of the message: only a router below it hands the
		// message to handlers of kinds.
		here := isCall && (depth > 0 && a.branchTarget(ci, cur.from) || a.loopReported(d))
		for _, x := range inner {
			next := at
			if here {
				next = attribution{x, handlerName(cur.from)}
			}
			walk(x, next, depth+1)
		}
	}
	walk(o, attribution{o, name}, 0)
	return out
}

// attribution is where an effect is reported, and the handler named.
type attribution struct {
	at   *occ
	name string
}

// occsOf returns the occurrences of s that o, an occurrence of a caller
// of s, carries up: the same effect, of the same kind, by any path.
func (s *summary) occsOf(o *occ) []*occ {
	var out []*occ
	for _, x := range s.occs {
		if x.inner == o.inner && x.kind == o.kind && x.guardedBy == nil {
			out = append(out, x)
		}
	}
	return out
}

// branchTarget reports whether ci hands the message to fn by its kind: a
// static call under the true side of a comparison with a constant (a case
// of a switch on the event's type), in a function that calls at least two
// functions so; or a call through an interface or a func value looked up
// in a map.
func (a *pkgAnalysis) branchTarget(ci ssa.CallInstruction, fn *ssa.Function) bool {
	if _, ok := ci.(*ssa.Go); ok {
		return false
	}
	c := ci.Common()
	if c.StaticCallee() != nil {
		return a.kindBranches(ci.Parent())[ci]
	}
	v := c.Value
	if !c.IsInvoke() {
		if _, ok := v.(*ssa.Function); ok {
			return false
		}
	}
	return lookedUp(v, 0)
}

// kindBranches returns the static calls of fn that run under the true side
// of a comparison with a constant, when there are at least two, to
// different functions, and fn hands the message off: it returns nothing
// but errors. A function that switches on a kind to compute a value its
// caller goes on with (buildResult(kind) returning the text to store) is
// a step of the caller's handling, not a router. nil otherwise. Memoized
// per function.
func (a *pkgAnalysis) kindBranches(fn *ssa.Function) map[ssa.CallInstruction]bool {
	if m, ok := a.branches[fn]; ok {
		return m
	}
	if !handsOff(fn.Signature) {
		a.branches[fn] = nil
		return nil
	}
	var cases []*ssa.BasicBlock
	for _, b := range fn.Blocks {
		if len(b.Instrs) == 0 || len(b.Succs) != 2 {
			continue
		}
		if iff, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If); ok && kindTest(iff.Cond) && len(b.Succs[0].Preds) == 1 {
			cases = append(cases, b.Succs[0])
		}
	}
	m := map[ssa.CallInstruction]bool{}
	targets := map[*ssa.Function]bool{}
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			ci, ok := instr.(ssa.CallInstruction)
			if !ok {
				continue
			}
			g := ci.Common().StaticCallee()
			if g == nil || g.Blocks == nil || g == fn || !a.local(g.Pkg) {
				continue
			}
			for _, cb := range cases {
				if cb.Dominates(b) {
					m[ci] = true
					targets[g] = true
					break
				}
			}
		}
	}
	if len(targets) < 2 {
		m = nil
	}
	a.branches[fn] = m
	return m
}

// handsOff reports whether a function of signature sig returns nothing
// but errors.
func handsOff(sig *types.Signature) bool {
	r := sig.Results()
	for i := 0; i < r.Len(); i++ {
		if !isError(r.At(i).Type()) {
			return false
		}
	}
	return true
}

// kindTest reports whether cond compares a value with a string or an
// integer constant (x == "created", a case of a switch), or is the ok of a
// type assertion (a case of a type switch).
func kindTest(cond ssa.Value) bool {
	switch c := cond.(type) {
	case *ssa.BinOp:
		if c.Op != token.EQL || selectIndex(c.X) || selectIndex(c.Y) {
			return false
		}
		return kindConst(c.X) || kindConst(c.Y)
	case *ssa.Extract:
		ta, ok := c.Tuple.(*ssa.TypeAssert)
		return ok && ta.CommaOk && c.Index == 1
	}
	return false
}

// selectIndex reports whether v is the index of a select's chosen case:
// its cases are no kinds of message.
func selectIndex(v ssa.Value) bool {
	x, ok := v.(*ssa.Extract)
	if !ok {
		return false
	}
	_, ok = x.Tuple.(*ssa.Select)
	return ok
}

// kindConst reports whether v is a string constant or a non-zero integer
// constant (zero is how a count or an error code says "none").
func kindConst(v ssa.Value) bool {
	k, ok := v.(*ssa.Const)
	if !ok || k.Value == nil {
		return false
	}
	switch k.Value.Kind() {
	case constant.String:
		return true
	case constant.Int:
		return constant.Sign(k.Value) != 0
	}
	return false
}

// lookedUp reports whether v, the receiver or func value of a dynamic
// call, is a value looked up in a map: directly (h := handlers[kind]), or
// returned by a function that looks it up (h, ok := f.Handler(kind)).
func lookedUp(v ssa.Value, depth int) bool {
	v = peel(v)
	if x, ok := v.(*ssa.Extract); ok {
		v = x.Tuple
	}
	switch x := v.(type) {
	case *ssa.Lookup:
		_, isMap := x.X.Type().Underlying().(*types.Map)
		return isMap
	case *ssa.Call:
		g := x.Call.StaticCallee()
		if g == nil || g.Blocks == nil || depth > 0 {
			return false
		}
		for _, b := range g.Blocks {
			if r, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok && len(r.Results) > 0 && lookedUp(r.Results[0], depth+1) {
				return true
			}
		}
	}
	return false
}
