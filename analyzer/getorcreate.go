package analyzer

import (
	"go/token"

	"golang.org/x/tools/go/ssa"
)

// Get or create: a lookup whose failure the handler takes for "not there
// yet" and answers with an insert into the looked-up table:
//
//	s, err := store.LatestSession(ctx, user) // SELECT … FROM sync_sessions WHERE user_id = $1
//	if err != nil {
//		s, err = store.CreateSession(ctx, user) // INSERT INTO sync_sessions …
//	}
//
// A repeat finds the row and inserts nothing: the error side is the fresh
// one, the other the duplicate's. The error is no swallowed failure. What
// runs after the two sides join is not guarded by the lookup.

// getOrCreate makes the decision of a branch on a lookup's error compared
// with nil when the error side makes a write of the looked-up table that
// the other side does not.
// nil for any other branch.
func (s *summary) getOrCreate(in *ssa.If) *decision {
	bin, ok := in.Cond.(*ssa.BinOp)
	if !ok || (bin.Op != token.EQL && bin.Op != token.NEQ) {
		return nil
	}
	d, other := s.values[bin.X], bin.Y
	if d == nil {
		d, other = s.values[bin.Y], bin.X
	}
	if d == nil || d.kind != vErr || d.chk.kind != ckLookup || d.chk.table == "" || !isNilConst(other) {
		return nil
	}
	if d.t != implNone || d.f != implNone {
		return nil // nil already says found or not found
	}
	b := in.Block()
	errSide := 1 // err == nil: the false successor
	if bin.Op == token.NEQ {
		errSide = 0
	}
	if !s.writesOnlyFrom(b.Succs[errSide], b.Succs[1-errSide], b, d.chk.table) {
		return nil
	}
	dec := &decision{chk: d.chk, blk: b, fresh: b.Succs[errSide], other: b.Succs[1-errSide]}
	dec.succ[errSide], dec.succ[1-errSide] = implFresh, implDup
	return dec
}

// writesOnlyFrom reports whether a call that writes table is reached from
// block from and not from other, without passing through avoid: a write
// only that side makes (the status updates after the join do not count).
func (s *summary) writesOnlyFrom(from, other, avoid *ssa.BasicBlock, table string) bool {
	for instr, at := range s.writesAt {
		if _, ok := at[table]; ok && s.reaches(from, instr.Block(), avoid) && !s.reaches(other, instr.Block(), avoid) {
			return true
		}
	}
	return false
}
