package analyzer

import (
	"go/token"

	"github.com/idemkit/idem/analyzer/knowledge"
	"golang.org/x/tools/go/ssa"
)

var doc002 = CodeDoc{
	Code:  IDEM002,
	Title: "ack before the effect",
	Text: `The message is acked (or a goroutine doing the effect is not waited for,
or the effect was only queued to a client's background workers, as a bulk
indexer's Add, and not flushed) before the effect: a crash in between loses
the message. Handing the message over a channel to a goroutine of the
program that does the effect, and acking, is the same: the channel a struct
field or a package variable (one per worker too, c.pushChan[i] <- m), the
send in the handler or in a function it calls (a provider's Submit that
queues for its worker loop), unless that function waits for a reply; an ack
deferred before the hand-off runs after it. Paths stop at the
loop's next message, so an ack in one iteration does not precede the next
iteration's effect, and at the failure of the ack itself (if err :=
cl.CommitRecords(ctx, r); err != nil { continue }): a loop that goes round
to the work again after a failed commit has acked nothing.
`,
	Bad: `d.Ack(false)
_, err := db.ExecContext(ctx, ` + "`" + `UPDATE users SET points = points + $1 WHERE id = $2` + "`" + `, n, user)
`,
	Good: `if _, err := h.Handle(ctx, d.Body); err != nil {
	return d.Nack(false, true)
}
return d.Ack(false)
`,
}

// checkAckOrder reports acks that can run before an effect (IDEM002), and
// goroutines with effects not waited for before an ack.
func (a *pkgAnalysis) checkAckOrder(s *summary, name string) {
	for _, ack := range s.acks {
		if _, ok := ack.(*ssa.Defer); ok {
			continue
		}
		var eff *occ
		var handoff ssa.Instruction
		var work string
		failed := ackFailedSide(ack)
		s.forwardUntil(ack, s.ackStops(ack), func(in ssa.Instruction) int {
			if in.Block() == failed {
				return 1 // the ack failed: the message is not acked (a loop that retries the work)
			}
			if eff = s.workAt(in); eff != nil {
				return 2
			}
			if work = a.handoffAt(s, in); work != "" {
				handoff = in
				return 2
			}
			return 0
		})
		switch {
		case eff != nil:
			a.report(IDEM002, ack.Pos(), name, eff.pos, "the effect", "ack %s in handler %s comes before effect %s: a crash in between loses the message", describeCall(ack.Common()), name, eff.desc)
		case handoff != nil:
			a.report(IDEM002, ack.Pos(), name, handoff.Pos(), "the hand-off", "ack %s in handler %s comes before the message is handed over a channel to a goroutine with effect %s: a crash in between loses the message", describeCall(ack.Common()), name, work)
		}
	}
	for _, b := range s.fn.Blocks {
		for _, instr := range b.Instrs {
			var work, what string
			switch in := instr.(type) {
			case *ssa.Go:
				work, what = a.goWork(s, in), "goroutine with effect %s"
			case *ssa.Send:
				work, what = a.handoffWork(s, in), "message handed over a channel to a goroutine with effect %s"
				if work == "" {
					work = a.handoffAt(s, in)
				}
			case *ssa.Select:
				work, what = a.handoffAt(s, in), "message handed over a channel to a goroutine with effect %s"
			case ssa.CallInstruction:
				if a.cat.Has(callee(in.Common()), knowledge.Background) {
					work, what = describeCall(in.Common()), "%s, done later by the client's background workers,"
				} else if w := a.handoffAt(s, in); w != "" {
					work, what = w, "message handed by "+describeCall(in.Common())+" over a channel to a goroutine with effect %s"
				}
			}
			if work == "" {
				continue
			}
			g := instr
			var ack ssa.Instruction
			deferred := s.deferredAck(g)
			s.forward(g, func(in ssa.Instruction) int {
				if s.waits[in] {
					return 1
				}
				if _, ok := in.(*ssa.Return); ok && deferred {
					ack = in // the deferred ack runs here
					return 2
				}
				for _, x := range s.acks {
					if x == in {
						ack = in
						return 2
					}
				}
				// A handler acked by its result: returning the acking
				// value acks the message.
				if r, ok := in.(*ssa.Return); ok && a.returnAcks(s, r) {
					ack = in
					return 2
				}
				return 0
			})
			if ack != nil {
				a.report(IDEM002, g.Pos(), name, ack.Pos(), "the ack", what+" in handler %s is not waited for before the ack: a crash loses the message", work, name)
			}
		}
	}
}

// ackFailedSide returns the block a test of ack's own error leads to when
// the ack failed (if err := cl.CommitRecords(…); err != nil {…}): there
// the message is not acked, and work reached from it (the loop going round
// to the handler again) does not come after an ack. nil when the ack's
// block ends in no such test.
func ackFailedSide(ack ssa.Instruction) *ssa.BasicBlock {
	c, ok := ack.(*ssa.Call)
	if !ok {
		return nil
	}
	b := c.Block()
	in, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If)
	if !ok {
		return nil
	}
	bin, ok := in.Cond.(*ssa.BinOp)
	if !ok || bin.Op != token.NEQ && bin.Op != token.EQL {
		return nil
	}
	x, y := bin.X, bin.Y
	if isNilConst(x) {
		x, y = y, x
	}
	if e, ok := x.(*ssa.Extract); ok {
		x = e.Tuple
	}
	if x != c || !isNilConst(y) {
		return nil
	}
	if bin.Op == token.NEQ {
		return b.Succs[0]
	}
	return b.Succs[1]
}

// deferredAck reports whether an ack deferred before instr (its block
// dominates instr's) runs when the function returns after instr.
func (s *summary) deferredAck(instr ssa.Instruction) bool {
	for _, ack := range s.acks {
		if d, ok := ack.(*ssa.Defer); ok && d.Block().Dominates(instr.Block()) && d != instr {
			return true
		}
	}
	return false
}

// returnAcks reports whether the return r acks the message: s's function
// is a handler whose dispatcher acks by its result (or one acked by
// returning nil, as asynq's and watermill's) and r returns the acking value.
func (a *pkgAnalysis) returnAcks(s *summary, r *ssa.Return) bool {
	if !s.param || !r.Pos().IsValid() || len(r.Results) == 0 {
		return false
	}
	if ra, ok := a.resultAck[s.fn]; ok {
		return ra.acks(returned(r, ra.index))
	}
	return a.returnAcked(s.fn) && isNilConst(returned(r, len(r.Results)-1))
}

// handoffWork describes the effect of the workers a channel send hands a
// value to: goroutines started in the same function whose closure captures
// the channel (a worker pool); "" when there are none or they do nothing.
func (a *pkgAnalysis) handoffWork(s *summary, send *ssa.Send) string {
	for _, g := range workers(s.fn, send.Chan) {
		if w := a.goWork(s, g); w != "" {
			return w
		}
	}
	return ""
}

// workers returns the goroutines fn starts whose closure captures the
// channel ch: a worker pool fed by a send on it.
func workers(fn *ssa.Function, ch ssa.Value) []*ssa.Go {
	ch = peel(ch)
	if ld, ok := ch.(*ssa.UnOp); ok && ld.Op == token.MUL {
		ch = ld.X // a captured variable: the closure binds its address
	}
	var out []*ssa.Go
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			g, ok := instr.(*ssa.Go)
			if !ok {
				continue
			}
			mc, ok := g.Call.Value.(*ssa.MakeClosure)
			if !ok {
				continue
			}
			for _, v := range mc.Bindings {
				if v == ch || peel(v) == ch {
					out = append(out, g)
					break
				}
			}
		}
	}
	return out
}

// ackStops returns where the paths after an ack end: at the next message,
// except that an ack outside the loop over a fetched batch (XAck of every
// id of the batch, before handling them) acks the whole batch, so the
// batch's elements do not end its paths.
func (s *summary) ackStops(ack ssa.Instruction) map[ssa.Instruction]bool {
	for in := range s.elems {
		if in.Block().Dominates(ack.Block()) {
			return s.otherElems(ack) // an ack of one element
		}
	}
	if len(s.elems) == 0 {
		return s.srcSet
	}
	stop := map[ssa.Instruction]bool{}
	for in := range s.srcSet {
		if !s.elems[in] {
			stop[in] = true
		}
	}
	return stop
}

// otherElems returns the sources without the reads of the element an ack
// acks (msgs[i].Ack(), then json.Unmarshal(msgs[i].Data, …): the same
// message again, read through the same slice and index, not the next).
func (s *summary) otherElems(ack ssa.Instruction) map[ssa.Instruction]bool {
	ci, ok := ack.(ssa.CallInstruction)
	if !ok {
		return s.srcSet
	}
	recv, _ := splitArgs(ci.Common())
	var acked *ssa.IndexAddr
	walk(recv, 3, func(v ssa.Value) bool {
		if ia, ok := v.(*ssa.IndexAddr); ok && s.elems[ia] {
			acked = ia
			return false
		}
		return acked == nil
	})
	if acked == nil {
		return s.srcSet
	}
	stop := map[ssa.Instruction]bool{}
	for in := range s.srcSet {
		if ia, ok := in.(*ssa.IndexAddr); ok && ia.X == acked.X && ia.Index == acked.Index {
			continue
		}
		stop[in] = true
	}
	return stop
}

// goWork describes the effect a go statement starts: an unguarded one, or
// one a dedup check guards inside the goroutine (guard's Do, a generated
// Handle) — guarded or not, it is lost if the process dies after the ack.
// "" when the goroutine has no effect.
func (a *pkgAnalysis) goWork(s *summary, g *ssa.Go) string {
	if os := s.byInstr[g]; len(os) > 0 {
		return os[0].desc
	}
	f := funcValue(g.Call.Value)
	if f == nil {
		f = g.Call.StaticCallee()
	}
	if f == nil || f.Blocks == nil {
		return ""
	}
	gs := a.summary(f)
	w := gs.firstWork()
	switch {
	case w == nil:
		return ""
	case len(gs.occs) > 0:
		return w.desc + " (guarded)" // an effect guarded inside the goroutine
	}
	return w.desc // a guard call, "(guarded)" already
}
