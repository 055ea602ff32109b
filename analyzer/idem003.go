package analyzer

import (
	"go/token"
	"go/types"
	"slices"
	"strings"

	"github.com/idemkit/idem/analyzer/knowledge"
	"golang.org/x/tools/go/ssa"
)

var doc003 = CodeDoc{
	Code:  IDEM003,
	Title: "ack on a failure path",
	Text: `The message is acked on a failure path — after the effect or a processing
step failed (its error tested, a gorm chain's Error among them), in a deferred ack, or by returning success from a handler
acked by its return (asynq, watermill, RocketMQ), or by returning at all
from a handler whose consumer commits whatever it returns (dp-kafka's
registered handlers, go-zero's kq): the error is swallowed and the message
lost. A branch that classifies the error as permanent or a duplicate on
purpose (IsPermanent, errors.Is, a comparison with a sentinel error such as
asynq.ErrTaskIDConflict, also through a helper's (T, bool), or a field of
the failed call's reply compared with a constant: resp.Status ==
"CANCELLED", the work already done) may ack, and
so may the handler that goes on from that side to its next step. A step
whose error nothing reads (` + "`_ = repo.AddPoints(ctx, …)`" + `, a gorm chain that
writes as a statement, its Error field unread: ` + "`db.Save(&balance)`" + `; a call of a function
that writes, performs an effect, publishes (a task enqueued for the next
step is work the message is for) or calls an API, its error dropped) fails
unseen the same way, and so does a call of a function of the program that
logs a step's failure and returns success (no error, or a nil one; where
the function returns no error, a "retry" bool, what it returns when the
step succeeds) without settling the message, or that on a failed read
returns before the work the read was for (the ids to re-index); a read
in it that fails and degrades on purpose (a check skipped) does not hide
a later write whose failure is logged and dropped; a function that
writes the failure where its caller reads it (res.Error = … on a response
the caller passed in) reports it, and swallows nothing; a handler that
returns such a call's result untested (return p.handle(ctx, ev)) returns
nil after that failure too; a step
that works includes an idempotent write (a Redis SET, a NATS KV Put); a dropped error of decoding, reading, telemetry or
closing a body loses nothing and is not reported, nor does the failure of
a dependency's function that takes no context (an id split, a parse: the
message is poison; in vet mode, "dependency" means outside the module); nor
does a failure on the side where the message failed to decode (a
dead-letter copy of an undecodable message that fails before its ack: no
redelivery could decode it). Where acks are offsets (Kafka), going on to the next
message after a failure without a nak, a dead-letter publish or a return
(a failure reported as an error, or by a bool: a function of the program
that returns false after a failed step and true when it succeeded,
` + "`if h.Handle(ctx, m) { commit(m) }`" + `) loses the failed message too: the next message's ack commits its offset
(whole-program mode: reported in each handler such a loop is handed
through a func value, where it returns the failure the loop goes past,
and at the loop only when a function it calls there is no such handler);
so does a handler of one such message that returns nothing (its caller
cannot stop) and returns after a failure without committing. A return in
the shutdown case of a select (case <-ctx.Done()), or on a test of the
context's error (if ctx.Err() != nil { return }), loses nothing: the
consumer stops, and the next one is given the message again. Nor does a
sweep over rows taken in a state (WHERE status IN ('created', 'pending'))
that logs a row's failure and goes on, when the step failed before the
iteration wrote that row's state: the next sweep takes the row again
(a state is a constant the WHERE holds a column to, or a due time,
next_run_at <= $1, that the iteration moves on). Nor does a loop that
counts a failure (failed++) or collects its error (errs = append(errs,
err)) and goes on, when a test of that count or collection after the
loop returns an error: the failure is reported, later (a test whose
"some failed" side only logs does not report it). Nor does an ack after a
nak on the same path (the broker has the message back: the first of
Pub/Sub's Nack and Ack wins, an ack after a nak is refused). Nor does a
handler that reads nothing of its message beyond decoding it (a periodic
task's tick: no field of its payload or arguments is read) when the step
failed outside a loop: the message carried nothing, and the next tick
takes up what the store still holds; a loop's steps are judged as a
sweep's.
Nor does an ack retried until it succeeds (for { if err := commit(m);
err == nil { break } … }): the ack's own failure is no failure of the
handling. Nor does an ack after the failed message was published again — its body
or its decoded event, to a retry or dead-letter queue — once that
publish succeeded (its error tested); an ack after a publish whose error is
logged or dropped, or before it, is reported. A RabbitMQ
reject or nak without requeue after a failure drops the message when the
program declares no dead-letter exchange (whole-program mode). Acking a
message that cannot be decoded, or a duplicate, is not a failure; nor is
acking one whose error was handed on to a handler of failures (an error
reporter, a function that marks the job failed; whole-program mode). A
logger is no such handler, whether the catalog knows it or not: a method
named like logging (Errorf, Warn) of an interface the program does not
implement only logs.
`,
	Bad: `defer m.Ack()
if err := apply(ctx, m); err != nil {
	log.Print(err)
}
`,
	Good: `if err := apply(ctx, m); err != nil {
	m.Nack()
	return
}
m.Ack()
`,
}

// checkFailureAcks reports acks on failure paths (IDEM003): a deferred ack,
// an ack that runs after an effect or a processing step failed, and a
// handler acked by its return that returns success after a failure.
func (a *pkgAnalysis) checkFailureAcks(s *summary, name string) {
	a.collectBenign(s)
	if a.atMostOnce(s.fn) {
		return // its messages are never redelivered: an ack loses nothing a nak would keep
	}
	a.collectDiscards(s)
	hasFailure := len(s.failures) > 0 || len(s.occs) > 0 || len(s.checks) > 0 // a guard's Do can fail too
	for _, ack := range s.acks {
		if d, ok := ack.(*ssa.Defer); ok {
			if hasFailure {
				a.report(IDEM003, d.Pos(), name, token.NoPos, "", "deferred ack %s in handler %s also runs when handling fails: the error is swallowed and the message lost", describeCall(ack.Common()), name)
			}
			continue
		}
		if f := s.failureOtherThan(ack); f != nil {
			a.report(IDEM003, ack.Pos(), name, f.blk.Instrs[len(f.blk.Instrs)-1].Pos(), "the failure", "ack %s in handler %s also runs when %s fails: the error is swallowed and the message lost", describeCall(ack.Common()), name, f.what)
		} else if d := s.discardBefore(ack); d != nil {
			a.report(IDEM003, ack.Pos(), name, d.call.Pos(), "the discarded error", "ack %s in handler %s also runs when %s fails: its error is discarded and the message lost", describeCall(ack.Common()), name, d.what)
		}
	}
	for _, drop := range s.drops {
		if f := s.failureBefore(drop.Block()); f != nil {
			a.report(IDEM003, drop.Pos(), name, f.blk.Instrs[len(f.blk.Instrs)-1].Pos(), "the failure", "%s in handler %s does not requeue the message when %s fails, and the program declares no dead-letter exchange: the message is dropped", describeCall(drop.Common()), name, f.what)
		}
	}
	// Deferred closures that ack.
	for _, b := range s.fn.Blocks {
		for _, instr := range b.Instrs {
			d, ok := instr.(*ssa.Defer)
			if !ok {
				continue
			}
			if f := funcValue(d.Call.Value); f != nil && f.Parent() == s.fn && len(a.summary(f).acks) > 0 && hasFailure {
				a.report(IDEM003, d.Pos(), name, token.NoPos, "", "deferred ack in handler %s also runs when handling fails: the error is swallowed and the message lost", name)
			}
		}
	}
	if !s.param {
		return
	}
	ra, byResult := a.resultAck[s.fn]
	if !byResult && !a.returnAcked(s.fn) {
		return
	}
	res := s.fn.Signature.Results()
	for _, b := range s.fn.Blocks {
		r, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok || !r.Pos().IsValid() {
			continue
		}
		if byResult {
			// The dispatcher acks on this result's value: a return of that
			// value after a failure loses the message.
			if !ra.acks(returned(r, ra.index)) {
				if ra.isErr {
					a.checkReturnedSwallow(s, r, returned(r, ra.index), name)
				}
				continue
			}
			if f := s.failureBefore(b); f != nil {
				if ra.always {
					a.report(IDEM003, r.Pos(), name, f.blk.Instrs[len(f.blk.Instrs)-1].Pos(), "the failure", "handler %s returns when %s fails, and its consumer commits the message whatever the handler returns: the message is lost", name, f.what)
				} else {
					a.report(IDEM003, r.Pos(), name, f.blk.Instrs[len(f.blk.Instrs)-1].Pos(), "the failure", "handler %s returns %s when %s fails, and its dispatcher acks on that: the message is lost", name, ra, f.what)
				}
			} else if c := a.returnedStep(s, returned(r, ra.index)); ra.always && c != nil {
				a.report(IDEM003, r.Pos(), name, token.NoPos, "", "handler %s returns the error of %s, and its consumer commits the message whatever the handler returns: when it fails the message is lost", name, describeCall(c.Common()))
			} else if d := s.discardBefore(r); d != nil {
				a.report(IDEM003, r.Pos(), name, d.call.Pos(), "the discarded error", "handler %s returns %s when %s fails: its error is discarded and the message acked and lost", name, ra, d.what)
			}
			continue
		}
		if !isNilConst(returned(r, res.Len()-1)) {
			a.checkReturnedSwallow(s, r, returned(r, res.Len()-1), name)
			continue
		}
		if res.Len() == 2 { // rocketmq: (ConsumeResult, error)
			if n, ok := constInt(returned(r, 0)); !ok || n != 0 {
				continue
			}
		}
		if f := s.failureBefore(b); f != nil {
			a.report(IDEM003, r.Pos(), name, f.blk.Instrs[len(f.blk.Instrs)-1].Pos(), "the failure", "handler %s returns success when %s fails: the message is acked and lost", name, f.what)
		} else if d := s.discardBefore(r); d != nil {
			a.report(IDEM003, r.Pos(), name, d.call.Pos(), "the discarded error", "handler %s returns success when %s fails: its error is discarded and the message acked and lost", name, d.what)
		}
	}
}

// checkReturnedSwallow reports a handler acked by a nil error that returns
// v, the untested error of a call of a function that reports success when
// one of its steps fails (see swallowed): `return p.handleUserCreated(ctx,
// ev)` is a nil return after that failure.
func (a *pkgAnalysis) checkReturnedSwallow(s *summary, r *ssa.Return, v ssa.Value, name string) {
	c := untestedCall(v)
	if c == nil || s.tick && !inLoop(c.Block()) {
		return // a tick's step: the next tick takes it up (tick.go)
	}
	if w := a.swallowedBy(c); w != "" {
		a.report(IDEM003, r.Pos(), name, c.Pos(), "the call", "handler %s returns the result of %s, which is nil when %s fails: the message is acked and lost", name, describeCall(c.Common()), w)
	}
}

// returnedStep returns the call whose error v is, returned untested, when
// that call is a working step (see stepWorks) whose failure is no poison
// message: `return l.articleOperate(msg)`. A call made on the failure side
// of an earlier step handles that failure (publishes it, marks the job
// failed) and is no step of its own.
func (a *pkgAnalysis) returnedStep(s *summary, v ssa.Value) *ssa.Call {
	c := untestedCall(v)
	if c == nil || !a.failingCall(c, 0) || !a.stepWorks(s, c) {
		return nil
	}
	b := c.Block()
	for h := b.Idom(); h != nil; h = h.Idom() {
		if in, ok := h.Instrs[len(h.Instrs)-1].(*ssa.If); ok {
			if i := a.failureSide(s, in); i >= 0 && h.Succs[i].Dominates(b) {
				return nil
			}
		}
	}
	return c
}

// untestedCall returns the call whose error v is, when nothing compares v
// (with nil or a sentinel): returned as it came. A tested error has a
// failure path of its own, judged as one.
func untestedCall(v ssa.Value) *ssa.Call {
	t := v
	if x, ok := v.(*ssa.Extract); ok {
		t = x.Tuple
	}
	c, ok := t.(*ssa.Call)
	if !ok {
		return nil
	}
	for _, r := range *v.Referrers() {
		if bin, ok := r.(*ssa.BinOp); ok && (bin.Op == token.EQL || bin.Op == token.NEQ) {
			return nil
		}
	}
	return c
}

// returnAcked reports whether fn is a handler acked by its return value:
// asynq, watermill router handlers, RocketMQ push consumers.
func (a *pkgAnalysis) returnAcked(fn *ssa.Function) bool {
	res := fn.Signature.Results()
	if res.Len() == 0 || !isError(res.At(res.Len()-1).Type()) {
		return false
	}
	params := fn.Params
	if fn.Signature.Recv() != nil && len(params) > 0 {
		params = params[1:]
	}
	for _, p := range params {
		t := derefType(p.Type())
		if sl, ok := t.Underlying().(*types.Slice); ok {
			t = derefType(sl.Elem())
		}
		if m := a.cat.Message(t); m != nil && m.ReturnAck {
			return true
		}
	}
	return false
}

// failureBefore returns an error branch whose failure side reaches b, unless
// b is on a side that handles the error deliberately (a duplicate, a
// permanent error, a unique violation).
func (s *summary) failureBefore(b *ssa.BasicBlock) *decision {
	if fs := s.failuresBefore(b); len(fs) > 0 {
		return fs[0]
	}
	return nil
}

// failureOtherThan is failureBefore for the block of ack, leaving out the
// failure of ack itself: a loop that commits again until the commit
// succeeds (for { if err := commit(m); err == nil { break }; pause() })
// retries the ack, it does not ack after a failure.
func (s *summary) failureOtherThan(ack ssa.CallInstruction) *decision {
	for _, f := range s.failuresBefore(ack.Block()) {
		if call, ok := ack.(*ssa.Call); !ok || f.err == nil || errResult(call) != f.err {
			return f
		}
	}
	return nil
}

// failuresBefore returns every error branch whose failure side reaches b,
// in the order of failureBefore.
func (s *summary) failuresBefore(b *ssa.BasicBlock) []*decision {
	if s.onDuplicateSide(b) {
		return nil
	}
	var out []*decision
	for _, f := range s.failures {
		if s.excused(f) || s.handedOnBefore(f, b) {
			continue
		}
		// A failure side that is a join (a loop header reached by continue)
		// dominates nothing in particular: only paths count.
		if f.fresh == b && len(b.Preds) == 1 || len(f.fresh.Preds) == 1 && f.fresh.Dominates(b) && !s.retested(f, b) || s.failureReaches(f, b) {
			out = append(out, f)
		}
	}
	return out
}

// excused reports whether the failure f loses no message wherever it
// leads: a sweep's step before its row's state is written (sweepFailure),
// a retest of an error already handled (classifiedRetest), or a tick's
// step outside a loop (tick.go; a loop's steps are the sweep rule's). Decided once
// per failure, after the benign sides are collected.
func (s *summary) excused(f *decision) bool {
	if s.excuses == nil {
		s.excuses = map[*decision]bool{}
		for _, g := range s.failures {
			s.excuses[g] = s.sweepFailure(g) || s.classifiedRetest(g) || s.tick && !inLoop(g.blk)
		}
	}
	return s.excuses[f]
}

// classifiedRetest reports whether g tests again an error that an earlier
// failure test f of the same error handled (returned, or classified on
// purpose: err != nil && !errors.Is(err, ErrNotFound)) on every path to g:
// at g the error is nil or the classified one, so g's failure side is no
// failure (`if err == nil { use(row) }` after a not-found on purpose).
func (s *summary) classifiedRetest(g *decision) bool {
	if g.err == nil {
		return false
	}
	for _, f := range s.failures {
		if f == g || f.err != g.err || f.blk == g.blk || !f.blk.Dominates(g.blk) {
			continue
		}
		if !s.failureReaches(f, g.blk) {
			return true
		}
	}
	return false
}

// onDuplicateSide reports whether b is only reached on the side of a
// branch that handles an error or a duplicate on purpose.
func (s *summary) onDuplicateSide(b *ssa.BasicBlock) bool {
	for _, bb := range s.benign {
		// The side must be entered by benign branches only: a join the
		// success side reaches too (`err != nil && !errors.Is(err,
		// ErrNotFound)` continues where err == nil does) is no
		// duplicate's side.
		if s.benignOnly(bb.side) && bb.side.Dominates(b) && !s.reaches(bb.other, b, bb.blk) {
			return true
		}
	}
	for _, d := range s.decisions {
		if d.rows {
			continue // the rows ran out: no duplicate (see sweepFailure)
		}
		for i, succ := range d.blk.Succs {
			if d.succ[i] == implDup && succ.Dominates(b) && !s.reaches(d.blk.Succs[1-i], b, d.blk) {
				return true
			}
		}
	}
	return false
}

// benignOnly reports whether every edge into side is a benign branch's
// (`case errors.Is(err, errPermanent), guard.Permanent(err):` joins two).
func (s *summary) benignOnly(side *ssa.BasicBlock) bool {
	for _, p := range side.Preds {
		benign := false
		for _, bb := range s.benign {
			if bb.blk == p && bb.side == side {
				benign = true
			}
		}
		if !benign {
			return false
		}
	}
	return true
}

// failureReaches reports whether b can be reached from f's failure side
// without passing f's test again, nor a nak of the message (the broker has
// it back: an ack after it is refused or changes nothing, as the first of
// Pub/Sub's Nack and Ack wins), nor a test of what the failure side
// counted or collected (see recordTests), nor the success side of a later test of
// the same error (a retry loop that breaks on success and tests the error
// once more after the loop), nor the side of a branch that classifies an
// error on purpose (`err != nil && err != asynq.ErrTaskIDConflict`: the
// conflict is a duplicate the handler goes on from).
func (s *summary) failureReaches(f *decision, b *ssa.BasicBlock) bool {
	cut := s.retests(f)
	tests := s.recordTests(f)
	return pathTo([]*ssa.BasicBlock{f.fresh}, b, f.blk, func(x *ssa.BasicBlock) []*ssa.BasicBlock {
		if s.hasSource(x) || s.republished[x] || s.nacked[x] {
			return nil
		}
		if side, ok := tests[x]; ok {
			return nonNil(side)
		}
		var out []*ssa.BasicBlock
		for _, succ := range x.Succs {
			if cut[x] != succ && !s.benignEdge(x, succ) {
				out = append(out, succ)
			}
		}
		return out
	})
}

// benignEdge reports whether the edge from x to succ enters the side of a
// branch that handles an error on purpose.
func (s *summary) benignEdge(x, succ *ssa.BasicBlock) bool {
	for _, bb := range s.benign {
		if bb.blk == x && bb.side == succ {
			return true
		}
	}
	return false
}

// retested reports whether a later test of f's error stands between f's
// failure side and b, its success side leading to b.
func (s *summary) retested(f *decision, b *ssa.BasicBlock) bool {
	for blk, succ := range s.retests(f) {
		if succ.Dominates(b) && f.fresh.Dominates(blk) {
			return true
		}
	}
	return false
}

// retests maps the blocks of the other failure tests of f's error (the same
// value, or a phi merging it) to their success successor.
func (s *summary) retests(f *decision) map[*ssa.BasicBlock]*ssa.BasicBlock {
	cut := map[*ssa.BasicBlock]*ssa.BasicBlock{}
	if f.err == nil {
		return cut
	}
	for _, g := range s.failures {
		if g == f || g.err == nil {
			continue
		}
		same := g.err == f.err
		if phi, ok := g.err.(*ssa.Phi); ok {
			for _, e := range phi.Edges {
				if e == f.err {
					same = true
				}
			}
		}
		if same {
			cut[g.blk] = g.other
		}
	}
	return cut
}

// collectBenign finds the sides of branches that classify an error on
// purpose: errors.Is/As, guard.Permanent, helpers named like IsDuplicate,
// IsPermanent, IsNotFound (their bool, or the bool of their (T, bool)).
func (a *pkgAnalysis) collectBenign(s *summary) {
	if s.benign != nil {
		return
	}
	s.benign = []benignSide{}
	for _, b := range s.fn.Blocks {
		in, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If)
		if !ok {
			continue
		}
		cond, side := in.Cond, 0
		if u, ok := cond.(*ssa.UnOp); ok && u.Op == token.NOT {
			cond, side = u.X, 1
		}
		if x, ok := cond.(*ssa.Extract); ok && isBool(x.Type()) {
			cond = x.Tuple // `if _, ok := errs.IsPermanent(err); ok`
		}
		if c, ok := cond.(*ssa.Call); ok {
			if fn := callee(c.Common()); fn != nil && a.benignName(fn) {
				s.benign = append(s.benign, benignSide{b, b.Succs[side], b.Succs[1-side]})
			}
		}
		if bin, ok := cond.(*ssa.BinOp); ok && (bin.Op == token.EQL || bin.Op == token.NEQ) {
			sentinel := (globalName(bin.X) != "" || globalName(bin.Y) != "") && isError(bin.X.Type())
			code := uniqueCode(a.cat, bin.X) || uniqueCode(a.cat, bin.Y)
			// The failed call's reply may say how it failed
			// (payosResp.Status == "CANCELLED": already done).
			if sentinel || code || replyStatus(bin) {
				eq := 0
				if bin.Op == token.NEQ {
					eq = 1
				}
				s.benign = append(s.benign, benignSide{b, b.Succs[eq^side], b.Succs[1-(eq^side)]})
			}
		}
	}
}

// replyStatus reports whether bin compares a field of a call's reply (a
// result beside its error: resp.Status) with a constant, or a constant's
// String(): the reply of a failed call telling how it failed.
func replyStatus(bin *ssa.BinOp) bool {
	x, y := bin.X, bin.Y
	if !constLike(y) {
		x, y = y, x
	}
	if !constLike(y) {
		return false
	}
	ld, ok := x.(*ssa.UnOp)
	if !ok || ld.Op != token.MUL {
		return false
	}
	fa, ok := ld.X.(*ssa.FieldAddr)
	if !ok {
		return false
	}
	ex, ok := fa.X.(*ssa.Extract)
	if !ok {
		return false
	}
	call, ok := ex.Tuple.(*ssa.Call)
	if !ok {
		return false
	}
	res := call.Call.Signature().Results()
	return ex.Index < res.Len()-1 && isError(res.At(res.Len()-1).Type())
}

// constLike reports whether v is a constant string or number, or a
// method of a constant without other arguments (enum.StatusCancelled.String()).
func constLike(v ssa.Value) bool {
	switch x := v.(type) {
	case *ssa.Const:
		return x.Value != nil
	case *ssa.Call:
		return len(x.Call.Args) == 1 && !x.Call.IsInvoke() && constLike(x.Call.Args[0])
	}
	return false
}

// benignSide is the side of a branch that handles an error on purpose.
type benignSide struct{ blk, side, other *ssa.BasicBlock }

func (a *pkgAnalysis) benignName(fn *types.Func) bool {
	if a.cat.Has(fn, knowledge.Benign) {
		return true
	}
	n := strings.ToLower(fn.Name())
	for _, w := range []string{"dup", "unique", "permanent", "notfound", "invalid", "conflict", "exists", "retryable", "temporary", "transient", "poison"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// checkOffsetSkips reports a failure a handler goes past, to the next
// message of a source whose acks are offsets (Kafka): nothing naks it or
// forwards it (a dead-letter publish), the handler neither stops nor
// retries it, and the next message's ack commits the failed one's offset
// with its own — the failed message is never redelivered.
func (a *pkgAnalysis) checkOffsetSkips(s *summary, name string) {
	next := a.offsetNexts(s)
	if len(next) == 0 && !a.offsetParam(s) || !a.acksOffsets(s) {
		return
	}
	stops := func(b *ssa.BasicBlock) bool { return a.settles(s, b) }
	onward := a.unsettled(s)
	if len(next) == 0 {
		// A handler of one message that returns nothing: its caller cannot
		// tell a failure, and takes the next message.
		for _, f := range s.failures {
			if a.settledInside(f) {
				continue
			}
			returns := false
			pathTo([]*ssa.BasicBlock{f.fresh}, nil, f.blk, func(b *ssa.BasicBlock) []*ssa.BasicBlock {
				if _, ret := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ret && !stops(b) {
					returns = true
				}
				return onward(b)
			})
			if returns {
				a.report(IDEM003, failurePos(f), name, token.NoPos, "",
					"handler %s returns without committing when %s fails, and returns nothing its caller could stop on: committing a later offset commits this one too, and the message is lost", name, f.what)
			}
		}
		return
	}
	for _, f := range s.failures {
		if a.skipsPast(s, f, next) && !a.toldInHandlers(f) {
			a.report(IDEM003, failurePos(f), name, token.NoPos, "",
				"handler %s goes on to the next message when %s fails: acking a later offset commits this one too, and the message is lost", name, f.what)
		}
	}
}

// toldInHandlers reports whether the failing call of f is a func value or
// an interface method whose every callee is a handler this loop dispatches
// to and acks by its error (checkSkippedFailures): each is told where it
// returns the failure the loop goes past, and one whose only failure is a
// poison message (a parse error) is told nothing.
func (a *pkgAnalysis) toldInHandlers(f *decision) bool {
	call := failingCall(f)
	if call == nil || call.Common().StaticCallee() != nil {
		return false
	}
	fs := a.callees[call]
	if len(fs) == 0 {
		return false
	}
	for _, g := range fs {
		ra, ok := a.resultAck[g]
		if !ok || !ra.isErr || ra.always || !slices.Contains(a.dispatchSites[g], ssa.CallInstruction(call)) {
			return false
		}
	}
	return true
}

// offsetNexts returns the blocks where s takes its next message from a
// source acked by offset.
func (a *pkgAnalysis) offsetNexts(s *summary) []*ssa.BasicBlock {
	var next []*ssa.BasicBlock
	for _, in := range s.sources {
		if a.offsetSource(in) {
			next = append(next, in.Block())
		}
	}
	return next
}

// unsettled returns the successors a path of s goes on to from b: none
// where the message is settled or the failure handled on purpose (a nak, a
// dead-letter publish, an exit, an ack of this message — reported on its
// own when it follows a failure —, a benign side such as a duplicate).
func (a *pkgAnalysis) unsettled(s *summary) func(*ssa.BasicBlock) []*ssa.BasicBlock {
	return func(b *ssa.BasicBlock) []*ssa.BasicBlock {
		if a.settles(s, b) {
			return nil
		}
		return feasibleSuccs(b)
	}
}

// skipsPast reports whether s, when f fails, goes on to one of next (its
// next message) with the failed message neither settled nor handled.
func (a *pkgAnalysis) skipsPast(s *summary, f *decision, next []*ssa.BasicBlock) bool {
	if a.settledInside(f) {
		return false
	}
	for _, src := range next {
		if pathTo([]*ssa.BasicBlock{f.fresh}, src, f.blk, a.unsettled(s)) {
			return true
		}
	}
	return false
}

// checkSkippedFailures reports, in a handler its dispatcher acks by a nil
// error, the failures it returns to a dispatcher that goes on to its next
// message on an error without settling it: the commit of a later offset
// commits the failed one too. The dispatcher's loop is reported where it
// goes on (checkOffsetSkips); the handler is told where its failure is
// lost.
func (a *pkgAnalysis) checkSkippedFailures(s *summary, name string) {
	ra, ok := a.resultAck[s.fn]
	if !ok || !ra.isErr || ra.always {
		return
	}
	var loop string
	for _, site := range a.dispatchSites[s.fn] {
		ds := a.summary(site.Parent())
		next := a.offsetNexts(ds)
		if len(next) == 0 || !a.acksOffsets(ds) {
			continue
		}
		for _, f := range ds.failures {
			if site.Value() != nil && errCall(f.err) == site.Value() && a.skipsPast(ds, f, next) {
				loop = handlerName(site.Parent())
				break
			}
		}
		if loop != "" {
			break
		}
	}
	if loop == "" {
		return
	}
	for _, b := range s.fn.Blocks {
		r, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok || !r.Pos().IsValid() || ra.acks(returned(r, ra.index)) {
			continue
		}
		what := ""
		if f := s.failureBefore(b); f != nil {
			what = f.what
		} else if c := untestedCall(returned(r, ra.index)); c != nil {
			what = describeCall(c.Common())
		}
		if what != "" {
			a.report(IDEM003, r.Pos(), name, token.NoPos, "",
				"handler %s returns an error when %s fails, and %s, which it is handed to, goes on to the next message without committing this one: committing a later offset commits it too, and the message is lost", name, what, loop)
		}
	}
}

// errCall returns the call whose result (or last result) v is.
func errCall(v ssa.Value) ssa.Value {
	if x, ok := v.(*ssa.Extract); ok {
		return x.Tuple
	}
	return v
}

// offsetParam reports whether s is a handler of one message acked by
// offset (a kafka.Message parameter) that returns nothing.
func (a *pkgAnalysis) offsetParam(s *summary) bool {
	if !s.param || s.fn.Signature.Results().Len() > 0 {
		return false
	}
	for _, p := range s.fn.Params {
		if m := a.cat.Message(derefType(p.Type())); m != nil && m.Offsets {
			return true
		}
	}
	return false
}

// offsetSource reports whether in, a message source, delivers messages
// acked by offset.
func (a *pkgAnalysis) offsetSource(in ssa.Instruction) bool {
	offsets := func(t types.Type) bool {
		m := a.cat.Message(t)
		return m != nil && m.Offsets
	}
	switch in := in.(type) {
	case *ssa.UnOp:
		return offsets(in.X.Type())
	case *ssa.Select:
		for _, st := range in.States {
			if st.Dir == types.RecvOnly && offsets(st.Chan.Type()) {
				return true
			}
		}
	case ssa.CallInstruction:
		if v := in.Value(); v != nil {
			if t, ok := v.Type().(*types.Tuple); ok {
				for i := 0; i < t.Len(); i++ {
					if offsets(t.At(i).Type()) {
						return true
					}
				}
				return false
			}
			return offsets(v.Type())
		}
	}
	return false
}

// acksOffsets reports whether s acks its messages, itself or through the
// program's own functions it hands a message to (a commit helper with a
// timeout around the layer's own CommitMessages).
func (a *pkgAnalysis) acksOffsets(s *summary) bool {
	return a.acksThrough(s, 0)
}

func (a *pkgAnalysis) acksThrough(s *summary, depth int) bool {
	if len(s.acks) > 0 {
		return true
	}
	if depth > 2 {
		return false
	}
	for ci := range callsIn(s.fn) {
		if f := ci.Common().StaticCallee(); f != nil && a.local(pkgOf(f)) && f.Blocks != nil && a.messageArg(ci) {
			if a.acksThrough(a.summary(f), depth+1) {
				return true
			}
		}
	}
	return false
}

// failurePos is where a failure is tested: the comparison of its error, or
// the failing call.
func failurePos(f *decision) token.Pos {
	if ifi, ok := f.blk.Instrs[len(f.blk.Instrs)-1].(*ssa.If); ok {
		if c, ok := ifi.Cond.(*ssa.BinOp); ok && c.Pos().IsValid() {
			return c.Pos()
		}
	}
	if call := failingCall(f); call != nil {
		return call.Pos()
	}
	return f.blk.Instrs[len(f.blk.Instrs)-1].Pos()
}

// settledInside reports whether the failing call of f is to the program's
// own function that acks the message before every error it returns (a
// poison message marked on purpose, its error returned only to be logged).
func (a *pkgAnalysis) settledInside(f *decision) bool {
	call := failingCall(f)
	if call == nil {
		return false
	}
	g := call.Call.StaticCallee()
	if g == nil || g.Blocks == nil || !a.local(pkgOf(g)) {
		return false
	}
	cs := a.summary(g)
	if len(cs.acks) == 0 {
		return false
	}
	errs := 0
	for _, b := range g.Blocks {
		r, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return)
		if !ok || len(r.Results) == 0 || !isError(returned(r, len(r.Results)-1).Type()) || isNilConst(returned(r, len(r.Results)-1)) {
			continue
		}
		errs++
		acked := false
		for _, ack := range cs.acks {
			if ab := ack.Block(); ab == b || ab.Dominates(b) {
				acked = true
				break
			}
		}
		if !acked {
			return false
		}
	}
	return errs > 0
}

// failingCall is the call whose error f tests, nil when it is no call's.
func failingCall(f *decision) *ssa.Call {
	v := f.err
	if u, ok := v.(*ssa.UnOp); ok {
		if c := errFieldCall(u); c != nil {
			return c // db.Exec(…).Error
		}
	}
	for {
		x, ok := v.(*ssa.Extract)
		if !ok {
			break
		}
		v = x.Tuple
	}
	call, _ := v.(*ssa.Call)
	return call
}
