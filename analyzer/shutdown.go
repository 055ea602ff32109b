package analyzer

import (
	"go/constant"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/ssa"
)

// shutdownCase reports whether b is the case of a select that receives
// from a context's Done channel (case <-ctx.Done(): return), or the side
// of a test of the context's error (if ctx.Err() != nil { return }): the
// consumer is stopping, and what it has not acked is redelivered to the
// next one. Leaving a failed message there loses nothing; taking the next
// one would — and a loop that tests its context before each message takes
// none.
func shutdownCase(b *ssa.BasicBlock) bool {
	if len(b.Preds) != 1 {
		return false
	}
	p := b.Preds[0]
	in, ok := p.Instrs[len(p.Instrs)-1].(*ssa.If)
	if !ok || p.Succs[0] != b {
		return false
	}
	bin, ok := in.Cond.(*ssa.BinOp)
	if ok && bin.Op == token.NEQ && isNilConst(bin.Y) {
		return contextErr(bin.X)
	}
	if !ok || bin.Op != token.EQL {
		return false
	}
	x, ok := bin.X.(*ssa.Extract)
	if !ok || x.Index != 0 {
		return false
	}
	sel, ok := x.Tuple.(*ssa.Select)
	k, isConst := bin.Y.(*ssa.Const)
	if !ok || !isConst || k.Value == nil || k.Value.Kind() != constant.Int {
		return false
	}
	i, exact := constant.Int64Val(k.Value)
	if !exact || i < 0 || int(i) >= len(sel.States) {
		return false
	}
	st := sel.States[i]
	return st.Dir == types.RecvOnly && contextDone(st.Chan)
}

// contextDone reports whether ch is a context's Done channel: the result
// of Done called on a context.Context (a concrete context type is never
// what a consumer holds).
func contextDone(ch ssa.Value) bool { return contextCall(ch, "Done") }

// contextErr reports whether v is the result of Err called on a
// context.Context.
func contextErr(v ssa.Value) bool { return contextCall(v, "Err") }

// contextCall reports whether v is the result of the method name called on
// a context.Context.
func contextCall(v ssa.Value, name string) bool {
	c, ok := v.(*ssa.Call)
	if !ok || !c.Common().IsInvoke() {
		return false
	}
	return c.Common().Method.Name() == name && isContext(c.Common().Value.Type())
}
