package analyzer

import (
	"go/token"

	"golang.org/x/tools/go/ssa"
)

// feasibleSuccs returns the successors of b a path can take, leaving out
// the exit of a loop that no path through b reaches:
//
//   - a retry loop that returns on its last attempt
//     (for i := 0; i <= max; i++ { …; if i == max { return err }; … })
//     never leaves by its condition after an attempt: the attempt that
//     would make it false has returned;
//   - a loop over a slice the function returned on when it was empty
//     (if len(batch) == 0 { return }; …; for _, m := range batch { … })
//     runs at least once: its first test never leaves.
//
// A path-insensitive reading would take either exit for a way out after
// a failure (the return nil after a retry loop, the return after a
// fallback loop of no iterations) and report a failure as swallowed.
func feasibleSuccs(b *ssa.BasicBlock) []*ssa.BasicBlock {
	if len(b.Succs) != 1 {
		return b.Succs
	}
	h := b.Succs[0]
	p, bound, ok := countedLoop(h)
	if !ok {
		return b.Succs
	}
	back := loopBody(h).Dominates(b)
	if back && lastAttemptLeaves(h, b, p, bound) || !back && nonEmptyRange(h, b, p, bound) {
		return h.Succs[:1] // the loop's body
	}
	return b.Succs
}

// countedLoop reports whether h is the head of a counted loop: it ends in
// `if p < bound` or `if p <= bound` (p+1 < len(x) for a range over a
// slice), where p is a φ of h.
func countedLoop(h *ssa.BasicBlock) (p *ssa.Phi, bound *ssa.BinOp, ok bool) {
	if len(h.Instrs) == 0 || len(h.Succs) != 2 {
		return nil, nil, false
	}
	iff, ok := h.Instrs[len(h.Instrs)-1].(*ssa.If)
	if !ok {
		return nil, nil, false
	}
	cond, ok := iff.Cond.(*ssa.BinOp)
	if !ok || cond.Op != token.LSS && cond.Op != token.LEQ || cond.Block() != h {
		return nil, nil, false
	}
	x := cond.X
	if inc, isInc := x.(*ssa.BinOp); isInc && inc.Op == token.ADD && isIntConst(inc.Y, 1) {
		x = inc.X // a range over a slice tests the next index
	}
	p, ok = x.(*ssa.Phi)
	if !ok || p.Block() != h {
		return nil, nil, false
	}
	return p, cond, true
}

// loopBody returns the block a counted loop's head enters when its test
// holds.
func loopBody(h *ssa.BasicBlock) *ssa.BasicBlock { return h.Succs[0] }

// lastAttemptLeaves reports whether every path of the loop headed by h to
// its back edge from latch passes the false side of a test `p == bound`
// (`p == bound-1` for a loop on p < bound) whose true side leaves the loop.
func lastAttemptLeaves(h, latch *ssa.BasicBlock, p *ssa.Phi, cond *ssa.BinOp) bool {
	if cond.X != ssa.Value(p) {
		return false // a range loop: its index is never tested so
	}
	for _, b := range h.Parent().Blocks {
		if b == h || !h.Dominates(b) || !b.Dominates(latch) || len(b.Succs) != 2 {
			continue
		}
		iff, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If)
		if !ok {
			continue
		}
		eq, ok := iff.Cond.(*ssa.BinOp)
		if !ok || eq.Op != token.EQL {
			continue
		}
		other := eq.Y
		if eq.Y == ssa.Value(p) {
			other = eq.X
		} else if eq.X != ssa.Value(p) {
			continue
		}
		last := sameValue(other, cond.Y) && cond.Op == token.LEQ ||
			cond.Op == token.LSS && minusOne(other, cond.Y)
		if last && b.Succs[1].Dominates(latch) && !reaches(b.Succs[0], latch, h) {
			return true
		}
	}
	return false
}

// nonEmptyRange reports whether the range loop headed by h, entered from
// pre, goes over a slice its function returned on when empty: a test
// len(x) == 0 (or len(x) < 1) whose false side dominates pre and whose
// true side returns.
func nonEmptyRange(h, pre *ssa.BasicBlock, p *ssa.Phi, cond *ssa.BinOp) bool {
	if cond.X == ssa.Value(p) || cond.Op != token.LSS {
		return false
	}
	n, ok := lenOf(cond.Y)
	if !ok {
		return false
	}
	for _, b := range h.Parent().Blocks {
		if len(b.Succs) != 2 || !b.Succs[1].Dominates(pre) || b.Succs[1] == b.Succs[0] {
			continue
		}
		iff, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If)
		if !ok {
			continue
		}
		t, ok := iff.Cond.(*ssa.BinOp)
		if !ok {
			continue
		}
		m, ok := lenOf(t.X)
		empty := t.Op == token.EQL && isIntConst(t.Y, 0) || t.Op == token.LSS && isIntConst(t.Y, 1) || t.Op == token.LEQ && isIntConst(t.Y, 0)
		if ok && empty && sameValue(m, n) && onlyReturns(b.Succs[0]) {
			return true
		}
	}
	return false
}

// lenOf returns x of a call len(x).
func lenOf(v ssa.Value) (ssa.Value, bool) {
	c, ok := v.(*ssa.Call)
	if !ok || !isBuiltin(c, "len") || len(c.Call.Args) != 1 {
		return nil, false
	}
	return c.Call.Args[0], true
}

// onlyReturns reports whether b returns without a branch.
func onlyReturns(b *ssa.BasicBlock) bool {
	_, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
	return ok
}

// reaches reports whether a path from b gets to to without passing avoid.
func reaches(b, to, avoid *ssa.BasicBlock) bool {
	return pathTo([]*ssa.BasicBlock{b}, to, avoid, func(x *ssa.BasicBlock) []*ssa.BasicBlock { return x.Succs })
}

// minusOne reports whether v is bound-1.
func minusOne(v, bound ssa.Value) bool {
	sub, ok := v.(*ssa.BinOp)
	return ok && sub.Op == token.SUB && isIntConst(sub.Y, 1) && sameValue(sub.X, bound)
}

// isIntConst reports whether v is the integer constant n.
func isIntConst(v ssa.Value, n int64) bool {
	k, ok := constInt(v)
	return ok && k == n
}
