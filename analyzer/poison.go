package analyzer

import (
	"golang.org/x/tools/go/ssa"

	"github.com/idemkit/idem/analyzer/knowledge"
)

// A message that cannot be decoded is poison: no redelivery will ever
// process it, so acking it is how it is dropped. Consumers often try to
// keep a copy first (a dead-letter publish) and ack even when that fails:
//
//	event, err := unmarshalEvent(msg.Data())
//	if err != nil {
//		if dlqErr := client.PublishDLQ(ctx, …); dlqErr != nil {
//			logger.Error("DLQ publish failed, ACKing unrecoverable message", …)
//		}
//		_ = msg.Ack()
//		return
//	}
//
// The failed copy loses nothing a redelivery could have done: a failure
// tested on the decode failure's side is no IDEM003.

// afterPoison reports whether b runs only after a decode of the message
// failed: a dominator of b tests a decoding call's error, and b lies on
// the failing side.
func (a *pkgAnalysis) afterPoison(b *ssa.BasicBlock) bool {
	for d := b.Idom(); d != nil; d = d.Idom() {
		in, ok := d.Instrs[len(d.Instrs)-1].(*ssa.If)
		if !ok {
			continue
		}
		side := a.decodeFailureSide(in)
		if side < 0 {
			continue
		}
		// The failing side's own block: one that other paths join (a
		// loop's header, reached by continue) is no branch of the test.
		succ := d.Succs[side]
		if len(succ.Preds) == 1 && succ.Dominates(b) {
			return true
		}
	}
	return false
}

// decodeFailureSide returns the successor (0 or 1) of an error test
// (err != nil, err == nil) on which a decoding call failed (json.Unmarshal,
// a catalogued decoder, a function named as decoding or parsing), -1 when
// in tests no such error.
func (a *pkgAnalysis) decodeFailureSide(in *ssa.If) int {
	x, side := nilTest(in.Cond)
	if side < 0 || !isError(x.Type()) || !a.decodingCall(x) {
		return -1
	}
	return side
}

// decodingCall reports whether err is the error result of a call that
// decodes or parses.
func (a *pkgAnalysis) decodingCall(err ssa.Value) bool {
	if x, ok := err.(*ssa.Extract); ok {
		err = x.Tuple
	}
	call, ok := err.(*ssa.Call)
	if !ok {
		return false
	}
	fn := callee(call.Common())
	if fn == nil {
		return false
	}
	for _, r := range a.callRules(call) {
		if r.Role == knowledge.Decode {
			return true
		}
	}
	return decodingName(fn.Name())
}
