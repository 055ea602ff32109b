package analyzer

import (
	"sort"

	"github.com/idemkit/idem/analyzer/knowledge"
	"golang.org/x/tools/go/ssa"
)

// The state written first: a handler skips a message whose row is in a
// state (a state check), writes that state, and only then sends the event
// or makes the call the message was for:
//
//	if a.Status != "scheduled" {
//		return nil // done already
//	}
//	a.Status = "published"
//	repo.Update(ctx, a)                   // the state that skips a redelivery
//	rdb.Publish(ctx, "broadcast", body)   // can fail, and the process can stop
//
// When the publish fails (the handler returns the error, the broker
// redelivers) or the process stops between the two, the redelivery finds
// the state written and skips the message: the event is never sent. The
// state is a dedup record written in its own transaction before the
// effect (IDEM006). Writing the state after the step, or in one
// transaction with an outbox insert, keeps it.

// checkMarkFirst reports a publish or a non-transactional effect (an HTTP
// or gRPC call, a mail, a Redis write) that runs after a write of the
// state a state check of the handler skips on.
func (a *pkgAnalysis) checkMarkFirst(s *summary, name string) {
	for _, b := range s.fn.Blocks {
		in, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If)
		if !ok {
			continue
		}
		state := s.stateCond(in.Cond)
		if state == nil || state.field == "" || !s.writesState(state) || s.rowsLoop(in) != nil {
			continue
		}
		mark := s.firstMark(b, state)
		if mark == nil {
			continue
		}
		for _, step := range s.stepsAfter(mark) {
			a.report(IDEM006, step.Pos(), name, mark.Pos(), "the state written",
				"%s in handler %s runs after %s wrote the state (%s) that makes a redelivery skip this message: when it fails, or the process stops in between, the redelivery skips it and it is lost",
				describeCall(step.(ssa.CallInstruction).Common()), name, describeCall(mark.(ssa.CallInstruction).Common()), state.field)
			return
		}
	}
}

// firstMark returns the first call after the state check at b that writes
// the state's column: a call dominated by one of b's successors.
func (s *summary) firstMark(b *ssa.BasicBlock, state *dval) ssa.Instruction {
	var marks []ssa.Instruction
	for in := range s.writesAt {
		if s.writesColumn(in, state) && in.Block() != b && (b.Succs[0].Dominates(in.Block()) || b.Succs[1].Dominates(in.Block())) {
			marks = append(marks, in)
		}
	}
	sort.Slice(marks, func(i, j int) bool { return marks[i].Pos() < marks[j].Pos() })
	for _, m := range marks {
		first := true
		for _, o := range marks {
			if o != m && s.precedes(o, m) {
				first = false
			}
		}
		if first {
			return m
		}
	}
	return nil
}

// stepsAfter returns the calls that mark precedes and that publish or make
// an effect outside the database's transaction (HTTP, gRPC, mail, Redis),
// in source order.
func (s *summary) stepsAfter(mark ssa.Instruction) []ssa.Instruction {
	var out []ssa.Instruction
	for _, b := range s.fn.Blocks {
		for _, in := range b.Instrs {
			if _, ok := in.(ssa.CallInstruction); !ok || in == mark || !s.precedes(mark, in) {
				continue
			}
			if s.publishes[in] {
				out = append(out, in)
				continue
			}
			for _, o := range s.byInstr[in] {
				if o.kind != knowledge.SQL && o.kind != knowledge.Custom {
					out = append(out, in)
					break
				}
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Pos() < out[j].Pos() })
	return out
}
