package analyzer

import (
	"go/token"

	"golang.org/x/tools/go/ssa"
)

// Sweeps: a handler that takes the rows still in a state and moves each
// out of it, as a periodic task does (expire the payments still pending,
// send the mails not sent yet):
//
//	ps, err := repo.Expired(ctx) // WHERE status IN ('created', 'pending')
//	for _, p := range ps {
//		if err := svc.Expire(ctx, p.ID); err != nil { // SET status = 'expired'
//			log.Print(err)
//			continue
//		}
//	}
//	return nil
//
// A row whose step fails before its state is written is still in the
// state the sweep selects: the next sweep takes it again, so going on, and
// acking the message after the loop, loses nothing. A step that fails
// after the iteration wrote the row's state (marked done, then mailed) is
// lost: nothing will take that row again. A step that fails after an
// effect of the iteration (a promo's use given back, then the order's
// state written) leaves the row for the next sweep, which repeats the
// effect: reported too.

// sweepFailure reports whether the failure f is a step of a sweep's
// iteration that runs before the iteration writes its row's state.
func (s *summary) sweepFailure(f *decision) bool {
	var at ssa.Instruction
	if call := failingCall(f); call != nil {
		at = call
	} else {
		at = f.blk.Instrs[len(f.blk.Instrs)-1]
	}
	return s.sweepStep(at)
}

// sweepStep reports whether instr runs in an iteration over rows taken in
// a state (rowsLoop), before any call of that iteration writes the state
// or performs an effect: after an effect (a promo's use given back), the
// next sweep takes the row again and repeats it.
func (s *summary) sweepStep(instr ssa.Instruction) bool {
	b := instr.Block()
	if b == nil {
		return false
	}
	for h := b.Idom(); h != nil; h = h.Idom() {
		in, ok := h.Instrs[len(h.Instrs)-1].(*ssa.If)
		if !ok {
			continue
		}
		state := s.rowsLoop(in)
		if state == nil || !h.Succs[0].Dominates(b) {
			continue
		}
		// The calls that surely ran before instr in this iteration: those
		// of the blocks from the body's entry down to instr's, earlier
		// than instr in its own block.
		for x := b; ; x = x.Idom() {
			for _, y := range x.Instrs {
				if y == instr {
					break
				}
				if s.writesColumn(y, state) {
					return false
				}
			}
			if x == h.Succs[0] {
				break
			}
		}
		return !s.effectBefore(h, instr)
	}
	return false
}

// effectBefore reports whether an effect may run before instr in the
// iteration of the loop whose header is h: in a block of its body from
// which instr's block is reached without a new iteration, or earlier in
// instr's own block. The next sweep would repeat it.
func (s *summary) effectBefore(h *ssa.BasicBlock, instr ssa.Instruction) bool {
	b := instr.Block()
	for _, x := range s.fn.Blocks {
		if !h.Succs[0].Dominates(x) || x != b && !s.reaches(x, b, h) {
			continue
		}
		for _, y := range x.Instrs {
			if y == instr {
				break
			}
			if len(s.byInstr[y]) > 0 {
				return true
			}
		}
	}
	return false
}

// rowsLoop returns the state a loop's condition (i < len(rows)) iterates
// rows in: rows taken in a state the function writes (pendingRows); nil
// for any other condition.
func (s *summary) rowsLoop(in *ssa.If) *dval {
	c, ok := in.Cond.(*ssa.BinOp)
	if !ok || c.Op != token.LSS {
		return nil
	}
	n, ok := c.Y.(*ssa.Call)
	if !ok || len(n.Call.Args) != 1 {
		return nil
	}
	d := s.values[n.Call.Args[0]]
	if d == nil || d.kind != vState {
		return nil
	}
	return s.pendingRows(d, n)
}

// writesColumn reports whether the call instr writes (here or in a callee)
// the column of the table state names.
func (s *summary) writesColumn(instr ssa.Instruction, state *dval) bool {
	cols, ok := s.writesAt[instr][state.chk.table]
	return ok && setsField(cols, state.field)
}
