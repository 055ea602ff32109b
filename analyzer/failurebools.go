package analyzer

import (
	"go/constant"
	"go/token"

	"golang.org/x/tools/go/ssa"
)

// Failure bools: a function of the program that reports its steps'
// failures by a bool rather than an error (`func (h *Handler) Handle(ctx,
// msg) bool`, whose caller commits when it is true). A test of that bool
// is a failure test like `err != nil`.

// boolFailureSide returns which successor of in (0 or 1) is the failure
// side of a test of a failure bool (see failureBool), -1 when in is no
// such test.
func (a *pkgAnalysis) boolFailureSide(in *ssa.If) int {
	c, negated := boolCall(in.Cond)
	if c == nil {
		return -1
	}
	fail, known := false, false
	for _, f := range a.calleesOf(c) {
		v, ok := a.failureBool(f)
		if !ok || known && v != fail {
			return -1
		}
		fail, known = v, true
	}
	if !known {
		return -1
	}
	side := 1 // the false successor
	if fail {
		side = 0
	}
	if negated {
		side = 1 - side
	}
	return side
}

// boolCall returns the call whose only result a branch condition is, and
// whether the condition negates it.
func boolCall(cond ssa.Value) (*ssa.Call, bool) {
	negated := false
	if u, ok := cond.(*ssa.UnOp); ok && u.Op == token.NOT {
		cond, negated = u.X, true
	}
	c, ok := cond.(*ssa.Call)
	if !ok || !isBool(c.Type()) {
		return nil, false
	}
	return c, negated
}

// failureBool reports the constant a function of the program with a
// single bool result returns after a working step of its own failed, when
// it returns that constant after every such failure and the other one
// when it succeeds: the bool reports the failure to its caller. A bool
// returned alike after failure and success (a "done" that swallows) or
// computed (a lookup's "found") reports nothing.
func (a *pkgAnalysis) failureBool(f *ssa.Function) (fail bool, ok bool) {
	f = built(f)
	if f == nil || f.Blocks == nil || !a.local(f.Pkg) {
		return false, false
	}
	res := f.Signature.Results()
	if res.Len() != 1 || !isBool(res.At(0).Type()) {
		return false, false
	}
	s := a.summary(f)
	var onFailure, onSuccess [2]bool // indexed by the constant returned
	for _, b := range f.Blocks {
		r, isRet := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !isRet || b == f.Recover {
			continue
		}
		k, isConst := returned(r, 0).(*ssa.Const)
		failed := false
		for _, d := range s.failuresBefore(b) {
			if a.failedWork(s, d) {
				failed = true
				break
			}
		}
		switch {
		case failed && !isConst:
			return false, false
		case !isConst:
			continue
		}
		v := 0
		if constant.BoolVal(k.Value) {
			v = 1
		}
		if failed {
			onFailure[v] = true
		} else {
			onSuccess[v] = true
		}
	}
	for v := range 2 {
		if onFailure[v] && !onFailure[1-v] && onSuccess[1-v] {
			return v == 1, true
		}
	}
	return false, false
}
