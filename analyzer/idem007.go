package analyzer

import (
	"cmp"
	"go/token"
	"go/types"
	"maps"
	"slices"
	"strings"

	"github.com/idemkit/idem/analyzer/knowledge"
	"golang.org/x/tools/go/ssa"
)

var doc007 = CodeDoc{
	Code:  IDEM007,
	Title: "auto-ack consumer with effects",
	Text: `An auto-ack or auto-commit consumer whose handler has effects (an
idempotent write counts too: lost with the message, it never happens): amqp
Consume with autoAck true, kafka-go ReadMessage on a reader with a
GroupID, a franz-go client made without kgo.DisableAutoCommit (or
AutoCommitMarks), a confluent-kafka-go consumer whose ConfigMap does not
set enable.auto.commit, legacy nats.go JetStream Subscribe without
nats.ManualAck(), a Redis list pop (BRPOP, BLPOP, RPOP, LPOP, BLMPOP:
the list forgets the job as it returns it; BLMOVE or BRPOPLPUSH to a
processing list keeps it until the worker removes it); also through the
service's own helper that returns what such a read returned, one message
or a batch it collected, or the value it parsed or decoded from it. The
broker forgets the message before the effect; a crash loses it. A callback the
service's consumer helper hands each message (or its body) to, directly or
through a retry helper it passes the callback on to (whole-program mode),
is told in its own body, where its work is, rather than at the helper's
shared consume call.
`,
	Bad: `msgs, _ := ch.Consume("orders", "", true, false, false, false, nil)
`,
	Good: `msgs, _ := ch.Consume("orders", "", false, false, false, false, nil)
for d := range msgs {
	if err := handle(ctx, d); err != nil {
		d.Nack(false, true)
		continue
	}
	d.Ack(false)
}
`,
}

// checkAutoAcks reports consumers that ack before handling (IDEM007).
func (a *pkgAnalysis) checkAutoAcks(s *summary) {
	for _, aa := range s.autoAcks {
		var eff *occ
		var where *ssa.Function
		switch aa.kind {
		case knowledge.AutoAckConsume:
			handed := map[*ssa.Function]*occ{}
			eff, where = a.effectAfterReceive(s, aa.ch, 0, handed)
			if eff == nil {
				a.reportHanded(aa, handed)
			}
		case knowledge.AutoAckRead:
			if aa.ch != nil {
				eff, where = a.effectAfterReceive(s, aa.ch, 0, nil)
				break
			}
			// The whole batch is committed: elements do not end the path.
			stop := map[ssa.Instruction]bool{}
			for in := range s.srcSet {
				if !s.elems[in] {
					stop[in] = true
				}
			}
			where = s.fn
			s.forwardUntil(aa.call, stop, func(in ssa.Instruction) int {
				if ci, ok := in.(ssa.CallInstruction); ok && s.dispatch[in] != nil && a.decodesAll(a.callees[ci]) {
					return 0 // a filter the message is handed to first
				}
				if eff = s.lossAt(in); eff != nil {
					return 2
				}
				if eff, where = a.handedWork(s, in); eff != nil {
					return 2
				}
				where = s.fn
				return 0
			})
		case knowledge.Subscribe:
			if f := funcValue(aa.cb); f != nil && f.Blocks != nil {
				if w := a.summary(f).firstLoss(); w != nil {
					eff, where = w, f
				}
			}
		}
		if eff == nil {
			continue
		}
		a.report(IDEM007, aa.call.Pos(), handlerName(where), eff.pos, "the effect", "auto-ack consumer %s acks each message before handler %s performs %s: a crash loses the message", describeCall(aa.call.Common())+autoAckNote(aa.kind, aa.call), handlerName(where), eff.desc)
	}
}

// handedWork returns the first work of a handler closure that the call in
// hands the messages read to (fetches.EachRecord(func(r *kgo.Record) {…})),
// and that closure.
func (a *pkgAnalysis) handedWork(s *summary, in ssa.Instruction) (*occ, *ssa.Function) {
	switch x := in.(type) {
	case *ssa.Send:
		return a.workersWork(s, x.Chan)
	case *ssa.Select: // select { case ch <- m: … case <-ctx.Done(): … }
		for _, st := range x.States {
			if st.Dir == types.SendOnly {
				if eff, where := a.workersWork(s, st.Chan); eff != nil {
					return eff, where
				}
			}
		}
		return nil, nil
	}
	ci, ok := in.(ssa.CallInstruction)
	if !ok {
		return nil, nil
	}
	for _, x := range ci.Common().Args {
		if f := funcValue(x); f != nil && f.Blocks != nil {
			if cs := a.summary(f); cs.root {
				if w := cs.firstLoss(); w != nil {
					return w, f
				}
			}
		}
	}
	return nil, nil
}

// workersWork returns the first work of the worker goroutines a send on
// ch in s's function hands the message to (a pool started in that
// function), or of the handlers they dispatch it to through a func value
// or an interface (whole-program mode), with the function it is in.
func (a *pkgAnalysis) workersWork(s *summary, ch ssa.Value) (*occ, *ssa.Function) {
	for _, g := range workers(s.fn, ch) {
		w := funcValue(g.Call.Value)
		if w == nil || w.Blocks == nil {
			continue
		}
		if eff := a.summary(w).firstLoss(); eff != nil {
			return eff, w
		}
		for ci := range callsIn(w) {
			if ci.Common().StaticCallee() != nil {
				continue
			}
			for _, f := range a.callees[ci] {
				if f.Blocks == nil || !a.local(f.Pkg) {
					continue
				}
				if eff := a.summary(f).firstLoss(); eff != nil {
					return eff, f
				}
			}
		}
	}
	return nil, nil
}

func autoAckNote(r knowledge.Role, call ssa.CallInstruction) string {
	switch r {
	case knowledge.AutoAckConsume:
		return " (autoAck true)"
	case knowledge.AutoAckRead:
		if f := callee(call.Common()); f != nil && strings.HasSuffix(f.Name(), "Pop") {
			return " (the pop removes the job from the list)"
		}
		return " (commits by itself)"
	case knowledge.Subscribe:
		return " (no ManualAck)"
	}
	return ""
}

// effectAfterReceive finds an effect after a receive from the deliveries
// channel ch: in s's function, or in a function of the package ch is passed
// to (as an argument or a captured variable).
func (a *pkgAnalysis) effectAfterReceive(s *summary, ch ssa.Value, depth int, handed map[*ssa.Function]*occ) (*occ, *ssa.Function) {
	if ch == nil || depth > 2 {
		return nil, nil
	}
	for _, r := range *ch.Referrers() {
		switch r := r.(type) {
		case *ssa.Store: // a variable a closure captures: msgs, kept in a cell
			if alloc, ok := r.Addr.(*ssa.Alloc); ok && r.Val == ch {
				if eff, w := a.effectAfterReceive(s, alloc, depth, handed); eff != nil {
					return eff, w
				}
			}
		case *ssa.UnOp:
			if _, cell := ch.Type().Underlying().(*types.Pointer); cell && r.Op == token.MUL {
				if eff, w := a.effectAfterReceive(s, r, depth, handed); eff != nil {
					return eff, w // the cell's value
				}
				continue
			}
			if r.Op != token.ARROW {
				continue
			}
			var eff *occ
			s.forward(r, func(in ssa.Instruction) int {
				if eff = s.lossAt(in); eff != nil {
					return 2
				}
				if ci, ok := in.(ssa.CallInstruction); ok && handed != nil {
					a.dispatchedLosses(ci, 0, handed)
				}
				return 0
			})
			if eff != nil {
				return eff, s.fn
			}
		case ssa.CallInstruction:
			f := r.Common().StaticCallee()
			if f == nil || f.Blocks == nil {
				continue
			}
			_, args := splitArgs(r.Common())
			for i, x := range r.Common().Args {
				if x != ch {
					continue
				}
				_ = args
				if i < len(f.Params) {
					if eff, w := a.effectAfterReceive(a.summary(f), f.Params[i], depth+1, handed); eff != nil {
						return eff, w
					}
				}
			}
		case *ssa.MakeClosure:
			f, _ := r.Fn.(*ssa.Function)
			if f == nil {
				continue
			}
			for i, b := range r.Bindings {
				if b == ch && i < len(f.FreeVars) {
					if eff, w := a.effectAfterReceive(a.summary(f), f.FreeVars[i], depth+1, handed); eff != nil {
						return eff, w
					}
				}
			}
		}
	}
	return nil, nil
}

// dispatchedLosses records, by handler, the first work of each handler a
// call hands a message to through a func value or an interface, or
// through a helper it hands its callback to (a relay: a retry helper),
// in whole-program mode.
func (a *pkgAnalysis) dispatchedLosses(ci ssa.CallInstruction, depth int, out map[*ssa.Function]*occ) {
	if sc := ci.Common().StaticCallee(); sc != nil {
		if depth > 1 || !a.relays[sc] {
			return
		}
		for c := range callsIn(sc) {
			a.dispatchedLosses(c, depth+1, out)
		}
		return
	}
	for _, f := range a.callees[ci] {
		if _, seen := out[f]; seen || !a.dispatched[f] || f.Blocks == nil {
			continue
		}
		if eff := a.summary(f).firstLoss(); eff != nil {
			out[f] = eff
		}
	}
}

// reportHanded reports, in each handler an auto-ack consumer's loop hands
// its messages to (a callback registered with the service's helper), the
// work the broker's ack comes before: there, not at the shared consume
// call, where every registered callback would meet.
func (a *pkgAnalysis) reportHanded(aa autoAck, handed map[*ssa.Function]*occ) {
	fs := slices.Collect(maps.Keys(handed))
	slices.SortFunc(fs, func(x, y *ssa.Function) int { return cmp.Compare(handed[x].pos, handed[y].pos) })
	for _, f := range fs {
		eff := handed[f]
		a.report(IDEM007, eff.pos, handlerName(f), aa.call.Pos(), "the auto-ack consumer", "handler %s performs %s after auto-ack consumer %s acked the message: a crash loses it", handlerName(f), eff.desc, describeCall(aa.call.Common())+autoAckNote(aa.kind, aa.call))
	}
}
