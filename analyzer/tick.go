package analyzer

import (
	"go/token"

	"github.com/idemkit/idem/analyzer/knowledge"

	"golang.org/x/tools/go/ssa"
)

// Ticks: a handler that reads nothing of its message is run for the
// message's arrival alone, as a periodic task is (asynq's scheduler,
// River's periodic jobs: sync the counters marked dirty, expire the
// sessions due). Its work comes from the store, not from the message:
//
//	func (t *Sync) Handle(ctx context.Context, task *asynq.Task) error {
//		var p SyncPayload
//		if err := json.Unmarshal(task.Payload(), &p); err != nil {
//			return err
//		}
//		if _, err := t.posts.SyncDirty(ctx); err != nil {
//			log.Print(err) // the dirty marks stay: the next run syncs them
//		}
//		return nil
//	}
//
// A failure it swallows loses no message: the message carried nothing,
// and the next tick takes up what the store still holds. A failure inside
// a loop over rows is judged by the sweep rule instead (sweeps.go): a row
// marked done before its step failed is lost to every later tick. Its
// effects are judged as any handler's.

// tick reports whether handler fn reads nothing of its message parameters
// beyond decoding them: no field of the decoded payload is read, and the
// message is handed to no other function.
func (a *pkgAnalysis) tick(fn *ssa.Function) bool {
	params := fn.Params
	if fn.Signature.Recv() != nil && len(params) > 0 {
		params = params[1:]
	}
	msgs := 0
	for _, p := range params {
		if a.cat.MessageClient(p.Type()) == "" {
			continue
		}
		msgs++
		if a.readsMessage(p, map[ssa.Value]bool{}, 0) {
			return false
		}
	}
	return msgs > 0
}

// readsMessage reports whether the data of v, a message or a value taken
// from it, is read: a field loaded, or v handed to a function that is not
// a decoder. A decoder's target is followed; so are the results of the
// message's own methods (Payload) and the fields taken of it (Args).
func (a *pkgAnalysis) readsMessage(v ssa.Value, seen map[ssa.Value]bool, depth int) bool {
	if seen[v] {
		return false
	}
	seen[v] = true
	if depth > 6 {
		return true
	}
	refs := v.Referrers()
	if refs == nil {
		return false
	}
	for _, r := range *refs {
		switch x := r.(type) {
		case *ssa.DebugRef:
		case *ssa.FieldAddr, *ssa.Field, *ssa.ChangeType, *ssa.MakeInterface, *ssa.Slice:
			if a.readsMessage(x.(ssa.Value), seen, depth+1) {
				return true
			}
		case *ssa.UnOp:
			if x.Op != token.MUL || a.readsMessage(x, seen, depth+1) {
				return true
			}
		case ssa.CallInstruction:
			if a.readByCall(x, v, seen, depth) {
				return true
			}
		default:
			return true
		}
	}
	return false
}

// readByCall reports whether call reads the message data v it is given:
// a method of the message (task.Payload()) reads only what its result is
// used for; a decoder reads it into its target, which is followed; any
// other function reads it.
func (a *pkgAnalysis) readByCall(ci ssa.CallInstruction, v ssa.Value, seen map[ssa.Value]bool, depth int) bool {
	cc := ci.Common()
	fn := callee(cc)
	recv, args := splitArgs(cc)
	call, _ := ci.(*ssa.Call)
	switch {
	case fn != nil && recv == v && a.cat.MessageClient(v.Type()) != "":
		return call != nil && a.readsMessage(call, seen, depth+1)
	case fn != nil && a.cat.Has(fn, knowledge.Decode):
		for _, t := range args {
			if t == v {
				continue
			}
			if a.readsMessage(peel(t), seen, depth+1) {
				return true
			}
		}
		return false
	}
	return true
}

// inLoop reports whether b is on a cycle of its function's blocks.
func inLoop(b *ssa.BasicBlock) bool { return blockReaches(b, b) }
