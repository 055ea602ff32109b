package analyzer

import (
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// Hand-offs: a handler that sends the message, or work made of it, on a
// channel another goroutine of the program receives from, and acks, has
// acked before the effect the receiver does: a crash in between loses
// the message, as an ack before a goroutine's effect does. The channel is
// known by where it lives — a struct field (w.jobs <- job) or a package
// variable — and its receivers are the program's functions that receive
// from that field or variable (a plain receive, a range over it, a select
// case). The send may sit in a function the handler calls (a provider's
// Submit that queues the event for its worker): such a function hands
// off when it sends and receives nothing back (no reply channel).

// chanKey returns what identifies the channel v denotes across the
// program: the struct field or the package variable it is loaded from;
// nil for any other channel (a local, a parameter).
func chanKey(v ssa.Value) any {
	v = peel(v)
	ld, ok := v.(*ssa.UnOp)
	if !ok || ld.Op != token.MUL {
		return nil
	}
	return addrKey(ld.X, 0)
}

// addrKey is chanKey for the address a channel is loaded from: a field, a
// package variable, or an element of a slice or array one holds (one
// channel per worker: c.pushChan[i] <- arg).
func addrKey(addr ssa.Value, depth int) any {
	switch x := addr.(type) {
	case *ssa.FieldAddr:
		if st, ok := deref(x.X.Type()).Underlying().(*types.Struct); ok {
			return st.Field(x.Field)
		}
	case *ssa.Global:
		return x
	case *ssa.IndexAddr:
		if depth > 0 {
			return nil
		}
		if ld, ok := x.X.(*ssa.UnOp); ok && ld.Op == token.MUL {
			return addrKey(ld.X, depth+1) // a slice loaded from a field
		}
		return addrKey(x.X, depth+1) // an array field's address
	}
	return nil
}

// deref returns the element type of a pointer type, or t.
func deref(t types.Type) types.Type {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		return p.Elem()
	}
	return t
}

// chanReceivers returns, by channel, the functions of the program that
// receive from it (built once).
func (a *pkgAnalysis) chanReceivers() map[any][]*ssa.Function {
	if a.receivers != nil {
		return a.receivers
	}
	a.receivers = map[any][]*ssa.Function{}
	add := func(ch ssa.Value, fn *ssa.Function) {
		for _, k := range a.chanOrigins(ch, 0) {
			if !containsFunc(a.receivers[k], fn) {
				a.receivers[k] = append(a.receivers[k], fn)
			}
		}
	}
	for _, fn := range a.funcs {
		for _, b := range fn.Blocks {
			for _, instr := range b.Instrs {
				switch in := instr.(type) {
				case *ssa.UnOp:
					if in.Op == token.ARROW {
						add(in.X, fn)
					}
				case *ssa.Select:
					for _, st := range in.States {
						if st.Dir == types.RecvOnly {
							add(st.Chan, fn)
						}
					}
				case *ssa.Go:
					// go w.process(w.jobs[i]): the worker receives from
					// its parameter, which is that channel.
					f := in.Call.StaticCallee()
					if f == nil || f.Blocks == nil {
						continue
					}
					params := f.Params // a method's receiver is its first argument and parameter
					for i, arg := range in.Call.Args {
						if i < len(params) && chanKey(arg) != nil && receivesFrom(f, params[i]) {
							add(arg, f)
						}
					}
				}
			}
		}
	}
	return a.receivers
}

// receivesFrom reports whether fn receives from the channel parameter p.
func receivesFrom(fn *ssa.Function, p *ssa.Parameter) bool {
	for _, r := range *p.Referrers() {
		switch x := r.(type) {
		case *ssa.UnOp:
			if x.Op == token.ARROW {
				return true
			}
		case *ssa.Select:
			for _, st := range x.States {
				if st.Dir == types.RecvOnly && st.Chan == p {
					return true
				}
			}
		}
	}
	return false
}

// receiverWork describes the work of the goroutines that receive from the
// channel ch of a send in fn: the first effect of a receiving function
// other than fn; "" when ch is not known or its receivers do nothing.
func (a *pkgAnalysis) receiverWork(fn *ssa.Function, ch ssa.Value) string {
	for _, k := range a.chanOrigins(ch, 0) {
		for _, r := range a.chanReceivers()[k] {
			if r == fn {
				continue
			}
			if w := a.summary(r).firstWork(); w != nil {
				return w.desc
			}
		}
	}
	return ""
}

// sends returns the channels fn sends on: its send statements and the
// send cases of its selects.
func sends(fn *ssa.Function) []ssa.Value {
	var out []ssa.Value
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			switch in := instr.(type) {
			case *ssa.Send:
				out = append(out, in.Chan)
			case *ssa.Select:
				for _, st := range in.States {
					if st.Dir == types.SendOnly {
						out = append(out, st.Chan)
					}
				}
			}
		}
	}
	return out
}

// handoffOf describes the work a call of fn hands to another goroutine
// over a channel: fn, or a function of the program it calls (at most
// three calls deep), sends on a channel whose receivers have an effect,
// and receives nothing itself. "" when it hands nothing off.
func (a *pkgAnalysis) handoffOf(fn *ssa.Function, depth int) string {
	if d, ok := a.handoffs[fn]; ok {
		return d
	}
	a.handoffs[fn] = "" // a cycle hands nothing off
	d := a.handoffIn(fn, depth)
	a.handoffs[fn] = d
	return d
}

func (a *pkgAnalysis) handoffIn(fn *ssa.Function, depth int) string {
	if fn == nil || fn.Blocks == nil || !a.local(fn.Pkg) || depth > 3 {
		return ""
	}
	if waitsForReply(fn) {
		return ""
	}
	for _, ch := range sends(fn) {
		if w := a.receiverWork(fn, ch); w != "" {
			return w
		}
	}
	for ci := range callsIn(fn) {
		if _, isGo := ci.(*ssa.Go); isGo {
			continue
		}
		for _, f := range a.calleesOf(ci) {
			if w := a.handoffOf(f, depth+1); w != "" {
				return w
			}
		}
	}
	return ""
}

// calleesOf returns the program's functions a call may run: its static
// callee, or the call graph's callees of a dynamic call.
func (a *pkgAnalysis) calleesOf(ci ssa.CallInstruction) []*ssa.Function {
	if f := ci.Common().StaticCallee(); f != nil {
		return []*ssa.Function{f}
	}
	return a.callees[ci]
}

// handoffAt describes the work the instruction in of s's function hands
// to another goroutine over a channel: a send, a select's send case, or
// a call of a function that hands off; "" for anything else.
func (a *pkgAnalysis) handoffAt(s *summary, in ssa.Instruction) string {
	switch x := in.(type) {
	case *ssa.Send:
		return a.receiverWork(s.fn, x.Chan)
	case *ssa.Select:
		for _, st := range x.States {
			if st.Dir == types.SendOnly {
				if w := a.receiverWork(s.fn, st.Chan); w != "" {
					return w
				}
			}
		}
	case *ssa.Go, *ssa.Defer:
		return ""
	case ssa.CallInstruction:
		for _, f := range a.calleesOf(x) {
			if f.Parent() == s.fn {
				continue // a closure of the handler: its sends are the handler's
			}
			if w := a.handoffOf(f, 1); w != "" {
				return w
			}
		}
	}
	return ""
}
