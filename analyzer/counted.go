package analyzer

import (
	"go/constant"
	"go/token"

	"golang.org/x/tools/go/ssa"
)

// Failures counted or collected: a loop that logs an item's failure, counts
// it (failed++) or collects its error (errs = append(errs, err)) and goes
// on to the next item, then returns an error when the count or the
// collection is not empty (if failed > 0 { return fmt.Errorf(…) }), reports
// the failure: the path from the failure to a return of success passes the
// test of what it recorded on the side that says "none failed", which that
// failure cannot take. A test whose "some failed" side only logs and
// returns success as well (if failed > 0 { log.Warn(…) }; return nil)
// reports nothing: the path goes on through that side.

// recordTests returns the blocks that test what d's failure side records:
// blocks ending in an If whose condition compares a counter the failure
// side increments, or the length of a slice it appends to, with a
// constant; each with the successor a path from the failure takes: the
// side that says "some failed" when the constant is zero, nil (the path
// stops) for another constant. Decided once per failure.
func (s *summary) recordTests(d *decision) map[*ssa.BasicBlock]*ssa.BasicBlock {
	if t, ok := s.recTests[d]; ok {
		return t
	}
	if s.recTests == nil {
		s.recTests = map[*decision]map[*ssa.BasicBlock]*ssa.BasicBlock{}
	}
	t := s.findRecordTests(d)
	s.recTests[d] = t
	return t
}

// findRecordTests computes recordTests.
func (s *summary) findRecordTests(d *decision) map[*ssa.BasicBlock]*ssa.BasicBlock {
	if d.fresh == nil {
		return nil
	}
	recorded := map[ssa.Value]bool{}
	var note func(v ssa.Value, depth int)
	note = func(v ssa.Value, depth int) {
		if recorded[v] || depth > 4 {
			return
		}
		recorded[v] = true
		for _, r := range *v.Referrers() {
			if phi, ok := r.(*ssa.Phi); ok {
				note(phi, depth+1)
			}
		}
	}
	for _, b := range s.fn.Blocks {
		if !d.fresh.Dominates(b) {
			continue
		}
		for _, instr := range b.Instrs {
			switch x := instr.(type) {
			case *ssa.BinOp:
				if counts(x) {
					note(x, 0)
				}
			case *ssa.Call:
				if isBuiltin(x, "append") {
					note(x, 0)
				}
			}
		}
	}
	if len(recorded) == 0 {
		return nil
	}
	tested := func(v ssa.Value) bool {
		if c, ok := v.(*ssa.Call); ok && isBuiltin(c, "len") && len(c.Call.Args) == 1 {
			v = c.Call.Args[0]
		}
		return recorded[v]
	}
	out := map[*ssa.BasicBlock]*ssa.BasicBlock{}
	for _, b := range s.fn.Blocks {
		in, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If)
		if !ok {
			continue
		}
		cond, ok := in.Cond.(*ssa.BinOp)
		if !ok {
			continue
		}
		xk, xc := cond.X.(*ssa.Const)
		yk, yc := cond.Y.(*ssa.Const)
		switch {
		case yc && tested(cond.X):
			out[b] = failedSide(b, cond.Op, yk, false)
		case xc && tested(cond.Y):
			out[b] = failedSide(b, cond.Op, xk, true)
		}
	}
	return out
}

// failedSide returns the successor of b, which tests a count (or a
// length) with op against the constant k (k op count when flipped), that
// a path takes after one failure was recorded; nil unless k is zero.
func failedSide(b *ssa.BasicBlock, op token.Token, k *ssa.Const, flipped bool) *ssa.BasicBlock {
	if n, ok := constInt(k); !ok || n != 0 {
		return nil
	}
	x, y := constant.MakeInt64(1), constant.MakeInt64(0)
	if flipped {
		x, y = y, x
	}
	switch op {
	case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ:
	default:
		return nil
	}
	if constant.Compare(x, op, y) {
		return b.Succs[0]
	}
	return b.Succs[1]
}

// counts reports whether x adds a constant to a loop's running value
// (failed++ is failed = φ + 1).
func counts(x *ssa.BinOp) bool {
	if x.Op != token.ADD {
		return false
	}
	_, xp := x.X.(*ssa.Phi)
	_, yc := x.Y.(*ssa.Const)
	return xp && yc
}

// nonNil returns b as the one block a path goes on to, none when b is nil.
func nonNil(b *ssa.BasicBlock) []*ssa.BasicBlock {
	if b == nil {
		return nil
	}
	return []*ssa.BasicBlock{b}
}
