package analyzer

import (
	"go/types"

	"github.com/idemkit/idem/analyzer/knowledge"
	"golang.org/x/tools/go/ssa"
)

// An ack holder: a function of the program that receives a broker's
// message and returns its own struct whose func fields settle it,
//
//	return Delivery{
//		Event: ev,
//		Ack:   func() error { return d.Ack(false) },
//	}, nil
//
// is a fetch API of the program (whole-program mode): what its callers
// queue and hand on is a message, and calling the field acks it (the call
// graph resolves the field's call to the closure).

// returnedAckers returns the ack calls of the closures fn stores in func
// fields of its result, and that result's type, when the result is a
// struct type of the program and at least one such closure acks a
// message by a catalogued Ack (itself or through a function of the
// program it calls). A result that is a channel of such structs, filled
// by fn or a closure of fn (a Consume() (<-chan PostEvent, error) whose
// goroutine sends PostEvent{Post: p, Ack: func() error { return
// d.Ack(false) }} for each delivery), holds messages too.
func (a *pkgAnalysis) returnedAckers(fn *ssa.Function) ([]ssa.CallInstruction, types.Type) {
	t := valueResult(fn)
	elem := t
	if ch, ok := types.Unalias(t).(*types.Chan); ok {
		elem = ch.Elem()
	}
	own := a.ownStruct(elem)
	if own == nil {
		return nil, nil
	}
	var calls []ssa.CallInstruction
	var visit func(f *ssa.Function)
	visit = func(f *ssa.Function) {
		for st, fa := range fieldStores(f) {
			if mc, ok := st.Val.(*ssa.MakeClosure); ok && types.Identical(derefType(fa.X.Type()), own) {
				calls = append(calls, a.ackCalls(mc.Fn.(*ssa.Function), 0)...)
			}
		}
		if elem != t { // a channel: its values are made where they are sent
			for _, anon := range f.AnonFuncs {
				visit(anon)
			}
		}
	}
	visit(fn)
	if len(calls) == 0 {
		return nil, nil
	}
	return calls, t
}

// ackCalls returns fn's calls of a catalogued Ack, and those of the
// program's functions it calls, one call deep.
func (a *pkgAnalysis) ackCalls(fn *ssa.Function, depth int) []ssa.CallInstruction {
	var out []ssa.CallInstruction
	for ci := range callsIn(fn) {
		f := callee(ci.Common())
		if a.cat.Has(f, knowledge.Ack) {
			out = append(out, ci)
			continue
		}
		if sc := ci.Common().StaticCallee(); depth == 0 && sc != nil && a.local(sc.Pkg) {
			out = append(out, a.ackCalls(sc, depth+1)...)
		}
	}
	return out
}
