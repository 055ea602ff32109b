package analyzer

import (
	"go/token"

	"golang.org/x/tools/go/ssa"
)

// capturedDecisions carries a decision out of a closure through a
// variable it captures: a store method runs its compare-and-set in a
// transaction's closure and returns what the closure set,
//
//	err := s.WithTx(ctx, func(q *db.Queries) error {
//		row, ok, err = s.claimTx(ctx, q, attempt)
//		return err
//	})
//	…
//	return row, ok, nil
//
// The call that runs the closure becomes a check of fn, and the loads of
// the variable after it carry the closure's decision.
func (a *pkgAnalysis) capturedDecisions(s *summary) {
	for _, b := range s.fn.Blocks {
		for _, instr := range b.Instrs {
			mc, ok := instr.(*ssa.MakeClosure)
			if !ok {
				continue
			}
			cl, ok := mc.Fn.(*ssa.Function)
			run := closureRun(mc)
			if !ok || run == nil {
				continue
			}
			var cs *summary
			for i, bound := range mc.Bindings {
				al, ok := bound.(*ssa.Alloc)
				if !ok || i >= len(cl.FreeVars) {
					continue
				}
				if cs == nil {
					cs = a.summary(cl)
				}
				d := onlyStored(cs, cl.FreeVars[i])
				if d == nil || d.chk == nil {
					continue
				}
				c := &check{call: run, pos: run.Pos(), desc: d.chk.desc, kind: ckFunc, store: d.chk.store, pooled: d.chk.pooled}
				loads := 0
				for _, r := range *al.Referrers() {
					if ld, ok := r.(*ssa.UnOp); ok && ld.Op == token.MUL && runsBefore(run, ld) {
						s.values[ld] = &dval{chk: c, kind: d.kind, t: d.t, f: d.f, s: d.s, sentinel: d.sentinel}
						loads++
					}
				}
				if loads > 0 {
					s.checks = append(s.checks, c)
				}
			}
		}
	}
}

// closureRun returns the call that runs the closure mc at once: the call
// of mc itself, or the one call mc is passed to (a transaction helper).
func closureRun(mc *ssa.MakeClosure) *ssa.Call {
	var run *ssa.Call
	for _, r := range *mc.Referrers() {
		call, ok := r.(*ssa.Call)
		if !ok || run != nil {
			return nil // stored, deferred, run in a goroutine, or passed twice
		}
		run = call
	}
	return run
}

// onlyStored returns the decision value the closure stores into its free
// variable fv, when that is the only store into it.
func onlyStored(cs *summary, fv *ssa.FreeVar) *dval {
	if v := onlyStore(fv); v != nil {
		return cs.values[v]
	}
	return nil
}

// freeVarIndex returns 1 + the index of v among fn's free variables, 0
// when v is none of them.
func freeVarIndex(fn *ssa.Function, v ssa.Value) int {
	if ld, ok := v.(*ssa.UnOp); ok && ld.Op == token.MUL {
		v = ld.X // captured by reference, as closures capture
	}
	for i, fv := range fn.FreeVars {
		if fv == v {
			return i + 1
		}
	}
	return 0
}

// boundTo returns the value the closure cl captured as its free variable
// i, when ci is given the closure made at its call site (an argument, or
// the function called), nil otherwise.
func boundTo(ci ssa.CallInstruction, cl *ssa.Function, i int) ssa.Value {
	cc := ci.Common()
	for _, v := range append([]ssa.Value{cc.Value}, cc.Args...) {
		mc, ok := peel(v).(*ssa.MakeClosure)
		if !ok || mc.Fn != cl || i >= len(mc.Bindings) {
			continue
		}
		b := mc.Bindings[i]
		if al, ok := b.(*ssa.Alloc); ok {
			return onlyStore(al) // the variable's value, when it is set once
		}
		return b
	}
	return nil
}

// onlyStore returns the value stored into addr (a local, or a closure's
// free variable) when one store sets it, nil otherwise.
func onlyStore(addr ssa.Value) ssa.Value {
	var v ssa.Value
	for _, r := range *addr.Referrers() {
		if st, ok := r.(*ssa.Store); ok && st.Addr == addr {
			if v != nil {
				return nil
			}
			v = st.Val
		}
	}
	return v
}
