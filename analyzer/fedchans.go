package analyzer

import (
	"go/token"
	"go/types"
	"slices"

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
		calls := a.fetchCalls(fn)
		if len(calls) == 0 {
			continue
		}
		for _, ch := range a.submits(fn, 0) {
			if !itemChan(ch.Type()) || a.cat.Message(ch.Type()) != nil {
				continue
			}
			for _, k := range a.chanOrigins(ch, 0) {
				a.fed[k] = append(a.fed[k], calls...)
			}
		}
	}
	return a.fed
}

// submits returns the channels fn sends on, itself or through a function of
// the program it calls that only queues (a pool's Submit(job) doing
// p.jobs <- job, receiving nothing), up to two calls deep; calls in go
// statements and of fn's own closures are not followed.
func (a *pkgAnalysis) submits(fn *ssa.Function, depth int) []ssa.Value {
	out := sends(fn)
	if depth >= 2 {
		return out
	}
	for ci := range callsIn(fn) {
		if _, isGo := ci.(*ssa.Go); isGo {
			continue
		}
		for _, f := range a.calleesOf(ci) {
			if f.Blocks == nil || !a.local(f.Pkg) || f.Parent() == fn || waitsForReply(f) {
				continue
			}
			out = append(out, a.submits(f, depth+1)...)
		}
	}
	return out
}

// waitsForReply reports whether fn receives from a channel other than a
// context's Done channel (a reply to what it sent): a function that only
// queues (select { case p.jobs <- job: case <-ctx.Done(): }) does not.
func waitsForReply(fn *ssa.Function) bool {
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			switch in := instr.(type) {
			case *ssa.UnOp:
				if in.Op == token.ARROW && !contextDone(in.X) {
					return true
				}
			case *ssa.Select:
				for _, st := range in.States {
					if st.Dir == types.RecvOnly && !contextDone(st.Chan) {
						return true
					}
				}
			}
		}
	}
	return false
}

// fedReceive reports whether instr receives from a channel a fetching
// function feeds (whole-program mode only).
func (a *pkgAnalysis) fedReceive(instr ssa.Instruction) bool {
	if a.callees == nil {
		return false
	}
	if len(a.fedChannels()) == 0 {
		return false
	}
	switch in := instr.(type) {
	case *ssa.UnOp:
		return in.Op == token.ARROW && len(a.fedCalls(in.X)) > 0
	case *ssa.Select:
		for _, st := range in.States {
			if st.Dir == types.RecvOnly && len(a.fedCalls(st.Chan)) > 0 {
				return true
			}
		}
	}
	return false
}

// fedCalls returns the fetch calls feeding the channels ch may be.
func (a *pkgAnalysis) fedCalls(ch ssa.Value) []ssa.CallInstruction {
	fed := a.fedChannels()
	var out []ssa.CallInstruction
	for _, k := range a.chanOrigins(ch, 0) {
		out = append(out, fed[k]...)
	}
	return out
}

// chanOrigins returns the keys of the channels ch may be: chanKey's field
// or variable, or the make of a channel a function hands to the function
// ch is a parameter of (go w.feed(sub, ch)), or returns to the caller ch
// is a result of (a worker's Start() (chan Email, error), through an
// interface too), up to three calls away.
func (a *pkgAnalysis) chanOrigins(ch ssa.Value, depth int) []any {
	ch = peel(ch)
	if k := chanKey(ch); k != nil {
		out := []any{k}
		if depth < 2 && a.callees != nil {
			for _, v := range a.storedIn(ch) {
				out = append(out, a.chanOrigins(v, depth+1)...)
			}
		}
		return out
	}
	if _, ok := ch.Type().Underlying().(*types.Chan); !ok || depth > 2 || a.callees == nil {
		return nil
	}
	var out []any
	switch x := ch.(type) {
	case *ssa.MakeChan:
		out = append(out, x)
	case *ssa.Parameter:
		fn := x.Parent()
		i := slices.Index(fn.Params, x)
		for _, site := range a.callSites()[fn] {
			cc := site.Common()
			j := i
			if cc.IsInvoke() {
				j-- // the receiver is not among an invoke's arguments
			}
			if j >= 0 && j < len(cc.Args) {
				out = append(out, a.chanOrigins(cc.Args[j], depth+1)...)
			}
		}
	case *ssa.Extract:
		if call, ok := x.Tuple.(*ssa.Call); ok {
			out = a.returnedChans(call, x.Index, depth)
		}
	case *ssa.Call:
		out = a.returnedChans(x, 0, depth)
	}
	return out
}

// storedIn returns the channels the program stores in the struct field or
// package variable ch is loaded from (a constructor's &Pool{in: in}), so
// that a channel a worker loads from its field and the channel its caller
// made and handed to a reader as a parameter are known as one.
func (a *pkgAnalysis) storedIn(ch ssa.Value) []ssa.Value {
	ld, ok := peel(ch).(*ssa.UnOp)
	if !ok {
		return nil
	}
	var vals []ssa.Value
	switch addr := ld.X.(type) {
	case *ssa.FieldAddr:
		vals = a.fieldInits()[fieldKey(addr)]
	case *ssa.Global:
		vals = a.globalInits()[addr]
	}
	var out []ssa.Value
	for _, v := range vals {
		if _, isChan := v.Type().Underlying().(*types.Chan); isChan {
			out = append(out, v)
		}
	}
	return out
}

// returnedChans returns the origins of the channels call's functions
// return as their result i.
func (a *pkgAnalysis) returnedChans(call *ssa.Call, i, depth int) []any {
	var out []any
	for _, f := range a.calleesOf(call) {
		for _, b := range f.Blocks {
			if r, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok && i < len(r.Results) {
				out = append(out, a.chanOrigins(r.Results[i], depth+1)...)
			}
		}
	}
	return out
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
