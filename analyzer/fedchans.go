package analyzer

import (
	"go/types"

	"github.com/idemkit/idem/analyzer/knowledge"
	"golang.org/x/tools/go/ssa"
)

// A service's own consumer in front of a broker: a reader fetches messages
// with a client's fetch API (XREADGROUP, a poll) and queues what it fetched
// on a channel of the program's own type; workers receive from that
// channel, call the handler registered for the message and ack. Nothing
// the workers receive is a catalogued message, so the channel is known by
// where it lives (a struct field or a package variable, as for hand-offs)
// and by who sends on it: a function that fetches. Its receivers handle
// messages: a receive from it is a message source, and the func values and
// interface methods they call with what they received are handlers.

// fedChannels returns the channels (by chanKey) that a function of the
// program calling a fetch API sends items on, each with the fetch calls of
// the functions feeding it, built once.
func (a *pkgAnalysis) fedChannels() map[any][]ssa.CallInstruction {
	if a.fed != nil {
		return a.fed
	}
	a.fed = map[any][]ssa.CallInstruction{}
	for _, fn := range a.funcs {
		calls := a.fetches(fn)
		if len(calls) == 0 {
			continue
		}
		for _, ch := range sends(fn) {
			if k := chanKey(ch); k != nil && itemChan(ch.Type()) && a.cat.Message(ch.Type()) == nil {
				a.fed[k] = append(a.fed[k], calls...)
			}
		}
	}
	return a.fed
}

// fetches returns fn's own calls of a client's fetch API.
func (a *pkgAnalysis) fetches(fn *ssa.Function) []ssa.CallInstruction {
	var out []ssa.CallInstruction
	for ci := range callsIn(fn) {
		if a.cat.Has(callee(ci.Common()), knowledge.Fetch) {
			out = append(out, ci)
		}
	}
	return out
}

// fedReceive reports whether instr receives from a channel a fetching
// function feeds (whole-program mode only).
func (a *pkgAnalysis) fedReceive(instr ssa.Instruction) bool {
	if a.callees == nil {
		return false
	}
	fed := a.fedChannels()
	if len(fed) == 0 {
		return false
	}
	switch in := instr.(type) {
	case *ssa.UnOp:
		return len(fed[chanKey(in.X)]) > 0
	case *ssa.Select:
		for _, st := range in.States {
			if st.Dir == types.RecvOnly && len(fed[chanKey(st.Chan)]) > 0 {
				return true
			}
		}
	}
	return false
}

// receivesFed reports whether fn receives from a channel a fetching
// function feeds.
func (a *pkgAnalysis) receivesFed(fn *ssa.Function) bool {
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			if a.fedReceive(instr) {
				return true
			}
		}
	}
	return false
}

// calledOnly reports whether fn, an anonymous function, is only called
// where it is made (func() { … }()), never passed or stored.
func calledOnly(fn *ssa.Function) bool {
	parent := fn.Parent()
	if parent == nil {
		return false
	}
	found := false
	for _, b := range parent.Blocks {
		for _, instr := range b.Instrs {
			var v ssa.Value
			switch x := instr.(type) {
			case *ssa.MakeClosure:
				if x.Fn == fn {
					v = x
				}
			case ssa.CallInstruction:
				if x.Common().Value == fn {
					found = true
					continue
				}
			}
			if v == nil {
				for _, op := range instr.Operands(nil) {
					if op != nil && *op == fn {
						return false // the bare function as a value
					}
				}
				continue
			}
			for _, r := range *v.Referrers() {
				ci, ok := r.(ssa.CallInstruction)
				if !ok || ci.Common().Value != v {
					return false
				}
			}
			found = true
		}
	}
	return found
}

// outermost returns the named function an anonymous function is nested in.
func outermost(fn *ssa.Function) *ssa.Function {
	for fn.Parent() != nil {
		fn = fn.Parent()
	}
	return fn
}
