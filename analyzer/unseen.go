package analyzer

import (
	"go/token"
	"go/types"
	"slices"

	"github.com/idemkit/idem/analyzer/knowledge"
	"golang.org/x/tools/go/ssa"
)

// Failures a handler cannot see: a working step whose error nothing reads,
// and a function of the program that fails a step and reports success.

// discard is a call whose error result nothing reads: when the step fails,
// the handler goes on as if it had succeeded.
type discard struct {
	call *ssa.Call
	what string
}

// collectDiscards finds the calls of s whose error result is never read
// and whose failure matters: an effect, a write, a publish, or a step of
// the program (or of an API client) that does one. A discarded error of
// decoding, of telemetry or of closing a body is none. A call of a
// function of the program that swallows a failure of its own (see
// swallowed) is one too, whatever its caller does with its result.
func (a *pkgAnalysis) collectDiscards(s *summary) {
	if s.discards != nil {
		return
	}
	s.discards = []discard{}
	for _, b := range s.fn.Blocks {
		for _, instr := range b.Instrs {
			c, ok := instr.(*ssa.Call)
			if !ok {
				continue
			}
			if discardsError(c) && a.failingCall(c, 0) && a.stepWorks(s, c) || a.discardsORMError(s, c) {
				s.discards = append(s.discards, discard{c, describeCall(c.Common())})
			} else if w := a.swallowedBy(c); w != "" {
				s.discards = append(s.discards, discard{c, w})
			}
		}
	}
}

// discardsError reports whether c returns an error that nothing reads
// (`_ = f()`, `f()`, `v, _ := f()`).
func discardsError(c *ssa.Call) bool {
	res := c.Call.Signature().Results()
	if res.Len() == 1 {
		return isError(res.At(0).Type()) && len(*c.Referrers()) == 0
	}
	for i := 0; i < res.Len(); i++ {
		if !isError(res.At(i).Type()) {
			continue
		}
		used := false
		for _, r := range *c.Referrers() {
			if x, ok := r.(*ssa.Extract); ok && x.Index == i && len(*x.Referrers()) > 0 {
				used = true
			}
		}
		if !used {
			return true
		}
	}
	return false
}

// discardsORMError reports whether c ends an ORM chain that writes and
// nothing reads the chain's result, so its error field goes unread
// (gorm's db.Save(&balance), db.Model(…).Update(…) as a statement).
func (a *pkgAnalysis) discardsORMError(s *summary, c *ssa.Call) bool {
	if len(*c.Referrers()) > 0 || !(len(s.byInstr[c]) > 0 || s.wroteAt[c]) {
		return false
	}
	orm := a.ormOf(c)
	return orm != nil && orm.ErrorField != ""
}

// stepWorks reports whether the call c of s performs an effect, a write
// or a publish, here or in what it calls, or is an API client's request: a
// step whose failure loses something a redelivery would do again (a task
// enqueued for the next step, an event for another service).
func (a *pkgAnalysis) stepWorks(s *summary, c *ssa.Call) bool {
	if rc := a.replied(c); rc != nil {
		c = rc // rdb.ZRem(…).Err(): the command's
	}
	if len(s.byInstr[c]) > 0 || s.wroteAt[c] || s.publishes[c] || a.writesRule(c) {
		return true
	}
	for _, f := range a.calleesOf(c) {
		if f == nil || f.Blocks == nil {
			continue
		}
		if !a.local(f.Pkg) {
			if fn, ok := f.Object().(*types.Func); ok && a.apiRequest(fn) {
				return true
			}
			continue
		}
		if cs := a.summary(f); len(cs.occs) > 0 || cs.nwrites > 0 || cs.callsOut || cs.sends {
			return true
		}
	}
	return false
}

// discardBefore returns a discarded failure that runs before instr on some
// path from it: instr goes on after the step failed unseen. Not on a side
// that handles an error or a duplicate on purpose.
func (s *summary) discardBefore(instr ssa.Instruction) *discard {
	b := instr.Block()
	if s.onDuplicateSide(b) {
		return nil
	}
	for i := range s.discards {
		d := &s.discards[i]
		if s.sweepStep(d.call) || s.tick && !inLoop(d.call.Block()) {
			continue // the next sweep, or the next tick, takes it up
		}
		db := d.call.Block()
		if db == b {
			if slices.Index(b.Instrs, ssa.Instruction(d.call)) < slices.Index(b.Instrs, instr) {
				return d
			}
			continue
		}
		for _, succ := range db.Succs {
			if s.reaches(succ, b, db) {
				return d
			}
		}
	}
	return nil
}

// swallowedBy returns what fails unseen inside the function a call runs:
// every function it can be swallows a failure (see swallowed). "" when
// none does.
func (a *pkgAnalysis) swallowedBy(c *ssa.Call) string {
	what := ""
	for _, f := range a.calleesOf(c) {
		w := a.swallowed(f)
		if w == "" {
			return ""
		}
		what = w
	}
	return what
}

// swallowed returns the failing step a function of the program reports as
// success: a working step's failure (or a discarded error), or a failure
// that makes the function skip work its success would do, reaches a
// return of a nil error, or in a function without an error result a
// return of what it returns on success (returnsAsOnSuccess), on a
// path that does not settle the message (an ack, a nak, a dead-letter
// publish, an exit). A handler, a function that acks or takes messages, is
// judged on its own and swallows nothing here; not one that takes the
// message from a caller that acks it (handleMessage(ctx, msg) in a fetch
// loop that commits after it), whose callers report what it does.
func (a *pkgAnalysis) swallowed(f *ssa.Function) string {
	f = built(f)
	if f == nil || f.Blocks == nil || !a.local(f.Pkg) {
		return ""
	}
	s := a.summary(f)
	switch s.swallowState {
	case 1:
		return "" // recursion
	case 2:
		return s.swallow
	}
	s.swallowState = 1
	defer func() { s.swallowState = 2 }()
	if s.root && a.topRoot(s) || len(s.acks) > 0 || len(s.drops) > 0 || len(s.autoAcks) > 0 || len(s.sources) > 0 {
		return ""
	}
	a.collectBenign(s)
	a.collectDiscards(s)
	res := f.Signature.Results()
	errIdx := -1
	if res.Len() > 0 && isError(res.At(res.Len()-1).Type()) {
		errIdx = res.Len() - 1
	}
	for _, b := range f.Blocks {
		r, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok || a.settles(s, b) {
			continue
		}
		if errIdx >= 0 && !isNilConst(returned(r, errIdx)) {
			// return c.manager.StartStream(ctx, id): what the callee
			// reports as success, this function reports too.
			if c := untestedCall(returned(r, errIdx)); c != nil {
				if w := a.swallowedBy(c); w != "" {
					s.swallow = w
					return s.swallow
				}
			}
			continue
		}
		// Every failure that reaches the return counts, not only the
		// first: a read that fails and degrades on purpose (a check
		// skipped) does not hide a write, later, whose failure is logged
		// and dropped.
		what := ""
		for _, d := range s.failuresBefore(b) {
			if s.reportsToCaller(d) {
				continue // the failure is written where the caller reads it (res.Error = …)
			}
			if a.unsettledPath(s, d, b) && (a.failedWork(s, d) || a.skipsWork(s, d)) && (errIdx >= 0 || s.returnsAsOnSuccess(d, r)) {
				what = d.what
				break
			}
		}
		if what == "" {
			if d := s.discardBefore(r); d != nil {
				what = d.what
			}
		}
		if what != "" {
			s.swallow = what + " (inside " + implName(f) + ", which reports success)"
			return s.swallow
		}
	}
	return ""
}

// skipsWork reports whether a failure's side leaves out work its success
// side does, and does none of its own: a call that does work (see
// stepWorks) reached from the success side and not from the failure side. A read that fails and makes
// the function return before the writes it was for (the ids to re-index,
// the row to update) loses them, where one that goes on without the row
// degrades.
func (a *pkgAnalysis) skipsWork(s *summary, d *decision) bool {
	onSuccess, onFailure := s.reachable(d.other, d.blk), s.reachable(d.fresh, d.blk)
	// A failure side that does work takes another way, not none: get or
	// create (the lookup fails, the row is created, and that create's
	// failure is the function's).
	return a.worksOnlyIn(s, onSuccess, onFailure) && !a.worksOnlyIn(s, onFailure, nil)
}

// worksOnlyIn reports whether a call that does work (see stepWorks) sits in
// a block of in that is not in out (nil: in any block of in).
func (a *pkgAnalysis) worksOnlyIn(s *summary, in, out map[*ssa.BasicBlock]bool) bool {
	for b := range in {
		if out[b] {
			continue
		}
		for _, instr := range b.Instrs {
			if c, ok := instr.(*ssa.Call); ok && a.stepWorks(s, c) {
				return true
			}
		}
	}
	return false
}

// returnsAsOnSuccess reports whether r, reached from a failure's side in
// a function with no error result, returns what the function returns when
// the step succeeds: r is reached from the success side too, or a return
// reached from it gives the same constants. A function whose bool says
// "retry" (true) after a failure and "done" (false) otherwise reports the
// failure; one that returns the same false either way swallows it. A
// function without results reports nothing, so every return is alike.
func (s *summary) returnsAsOnSuccess(d *decision, r *ssa.Return) bool {
	if len(r.Results) == 0 {
		return true
	}
	for b := range s.reachable(d.other, d.blk) {
		rr, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok {
			continue
		}
		if rr == r || sameConsts(rr.Results, r.Results) {
			return true
		}
	}
	return false
}

// sameConsts reports whether two result lists are the same constants.
func sameConsts(x, y []ssa.Value) bool {
	if len(x) != len(y) {
		return false
	}
	for i := range x {
		kx, ok1 := x[i].(*ssa.Const)
		ky, ok2 := y[i].(*ssa.Const)
		if !ok1 || !ok2 || kx.String() != ky.String() {
			return false
		}
	}
	return true
}

// failedWork reports whether the step a failure tests does work (see
// stepWorks): a function that goes on without a row it failed to read
// (a sender looked up, a cache) degrades on purpose, and loses nothing a
// redelivery would do again.
func (a *pkgAnalysis) failedWork(s *summary, d *decision) bool {
	call := failingCall(d)
	return call != nil && a.stepWorks(s, call)
}

// unsettledPath reports whether b is reached from d's failure side on a
// path that neither settles the message, nor takes another one, nor tests
// what the failure side counted or collected (see recordTests).
func (a *pkgAnalysis) unsettledPath(s *summary, d *decision, b *ssa.BasicBlock) bool {
	tests := s.recordTests(d)
	return pathTo([]*ssa.BasicBlock{d.fresh}, b, d.blk, func(x *ssa.BasicBlock) []*ssa.BasicBlock {
		if s.hasSource(x) || a.settles(s, x) {
			return nil
		}
		if side, ok := tests[x]; ok {
			return nonNil(side)
		}
		return feasibleSuccs(x)
	})
}

// settles reports whether block b settles the message or the failure on
// purpose: an ack of s, a nak, a dead-letter publish, an exit, a benign
// side (a duplicate), or the shutdown case of a select (see shutdownCase).
func (a *pkgAnalysis) settles(s *summary, b *ssa.BasicBlock) bool {
	if shutdownCase(b) {
		return true
	}
	for _, bb := range s.benign {
		if bb.side == b {
			return true
		}
	}
	for _, instr := range b.Instrs {
		ci, ok := instr.(ssa.CallInstruction)
		if !ok {
			continue
		}
		if slices.Contains(s.acks, ci) {
			return true
		}
		f := callee(ci.Common())
		if a.cat.Has(f, knowledge.Nack) || a.cat.Has(f, knowledge.Publish) || a.cat.Has(f, knowledge.NoReturn) {
			return true
		}
		if a.handsToAcker(ci) {
			return true
		}
	}
	return false
}

// handsToAcker reports whether ci hands a message to a handler of the
// program that acks it itself (a batch's fallback loop calling
// c.handleMessage(ctx, msg) for each message): that handler settles the
// message and is judged on its own.
func (a *pkgAnalysis) handsToAcker(ci ssa.CallInstruction) bool {
	if _, ok := ci.(*ssa.Go); ok {
		return false
	}
	g := ci.Common().StaticCallee()
	if g == nil {
		return false
	}
	if g = built(g); g.Blocks == nil || !a.local(g.Pkg) || g == ci.Parent() {
		return false
	}
	gs := a.summary(g)
	return gs.root && gs.param && len(gs.acks) > 0
}

// reportsToCaller reports whether a failure's side stores into what a
// parameter points to (res.Error = &KeyError{…} on a response the caller
// passed in): the function hands the failure to its caller, which may
// test it, rather than swallowing it.
func (s *summary) reportsToCaller(d *decision) bool {
	for b := range s.reachable(d.fresh, d.blk) {
		for _, instr := range b.Instrs {
			st, ok := instr.(*ssa.Store)
			if !ok {
				continue
			}
			addr := st.Addr
			for {
				switch x := addr.(type) {
				case *ssa.FieldAddr:
					addr = x.X
					continue
				case *ssa.IndexAddr:
					addr = x.X
					continue
				case *ssa.UnOp:
					if x.Op == token.MUL {
						addr = x.X
						continue
					}
				}
				break
			}
			if p, ok := addr.(*ssa.Parameter); ok && !(s.fn.Signature.Recv() != nil && p == s.fn.Params[0]) {
				return true
			}
		}
	}
	return false
}
