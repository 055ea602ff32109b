package analyzer

import (
	"github.com/idemkit/idem/analyzer/knowledge"
	"golang.org/x/tools/go/ssa"
)

// Retries by republication: a consumer whose step failed publishes the
// message again — its body to a retry queue with a TTL, the decoded event
// to a dead-letter queue — and acks it:
//
//	if err := h.apply(ctx, ev); err != nil {
//		if err := ch.PublishWithContext(ctx, "", "orders.retry", false, false,
//			amqp.Publishing{Body: d.Body}); err != nil {
//			d.Nack(false, true)
//			return
//		}
//		d.Ack(false)
//		return
//	}
//
// The message was handed on, not lost: a path from the failure through the
// publish is no failure path (IDEM003). The publish can fail in its turn;
// an ack after its failure is logged, or after a publish whose error
// nothing reads, is reported as any other. A publish that carries no part
// of the message (a notice that something failed) hands nothing on.

// noteRepublish records the block of a call that publishes (here or in a
// function of the program it calls) when its arguments carry the message.
func (a *pkgAnalysis) noteRepublish(s *summary, ci ssa.CallInstruction, recv ssa.Value, args []ssa.Value) {
	if !a.republishes(ci, recv, args) {
		return
	}
	if s.republished == nil {
		s.republished = map[*ssa.BasicBlock]bool{}
	}
	s.republished[ci.Block()] = true
}

// republishes reports whether ci, a publish, hands the message on: one of
// its arguments carries the message and its error is read (a publish
// whose failure nothing sees hands on nothing for sure).
func (a *pkgAnalysis) republishes(ci ssa.CallInstruction, recv ssa.Value, args []ssa.Value) bool {
	if c, ok := ci.(*ssa.Call); !ok || discardsError(c) {
		return false
	}
	for _, v := range append([]ssa.Value{recv}, args...) {
		if v != nil && a.carriesMessage(v) {
			return true
		}
	}
	return false
}

// carriesMessage reports whether v is built from a message of a client
// the catalog knows (a delivery, its body) or from a value decoded from
// one (json.Unmarshal(d.Body, &ev): ev).
func (a *pkgAnalysis) carriesMessage(v ssa.Value) bool {
	found := false
	walk(v, 12, func(x ssa.Value) bool {
		if found {
			return false
		}
		if a.cat.MessageClient(x.Type()) != "" {
			found = true
			return false
		}
		if al, ok := x.(*ssa.Alloc); ok && a.decodedMessage(al) {
			found = true
			return false
		}
		return true
	})
	return found
}

// decodedMessage reports whether a decoding call fills al from a message
// (json.Unmarshal(d.Body, &ev)).
func (a *pkgAnalysis) decodedMessage(al *ssa.Alloc) bool {
	refs := *al.Referrers()
	for _, r := range refs {
		if mi, ok := r.(*ssa.MakeInterface); ok {
			refs = append(refs, *mi.Referrers()...) // json.Unmarshal(b, &ev): an any
		}
	}
	for _, r := range refs {
		c, ok := r.(*ssa.Call)
		if !ok || !a.cat.Has(callee(c.Common()), knowledge.Decode) {
			continue
		}
		for _, x := range c.Call.Args {
			if peel(x) != ssa.Value(al) && a.carriesMessage(x) {
				return true
			}
		}
	}
	return false
}

// handedOnBefore reports whether every path from the failure f to b goes
// through a block before b that publishes the message again.
func (s *summary) handedOnBefore(f *decision, b *ssa.BasicBlock) bool {
	for r := range s.republished {
		if r != b && f.fresh.Dominates(r) && r.Dominates(b) {
			return true
		}
	}
	return false
}

// republishBlocks returns the blocks of fn that publish the message again
// and test the publish's error (a dispatcher's retry: the body to the
// queue again with a retry count, then an ack), read from fn alone.
func (a *pkgAnalysis) republishBlocks(fn *ssa.Function) []*ssa.BasicBlock {
	var out []*ssa.BasicBlock
	for ci := range callsIn(fn) {
		if !a.cat.Has(callee(ci.Common()), knowledge.Publish) {
			continue
		}
		if recv, args := splitArgs(ci.Common()); a.republishes(ci, recv, args) {
			out = append(out, ci.Block())
		}
	}
	return out
}

// dominatedByAny reports whether one of bs dominates b.
func dominatedByAny(bs []*ssa.BasicBlock, b *ssa.BasicBlock) bool {
	for _, x := range bs {
		if x.Dominates(b) {
			return true
		}
	}
	return false
}
