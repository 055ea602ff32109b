package analyzer

import (
	"fmt"
	"go/token"
	"go/types"

	"github.com/idemkit/idem/analyzer/knowledge"

	"golang.org/x/tools/go/analysis"
	"golang.org/x/tools/go/ssa"
)

// Finding is one diagnostic with its code and the handler it is about,
// as CheckProgram returns it: Diagnostic is what go/analysis drivers print
// (Category is the code, URL its documentation page).
type Finding struct {
	analysis.Diagnostic
	Code    Code
	Handler string // the handler's name, "" when the finding is about no handler
}

// report emits a finding unless an //idem:ignore for its code is on its line
// or the line above, or the run does not report the code. Messages end with
// the code, like staticcheck's.
func (a *pkgAnalysis) report(code Code, pos token.Pos, handler string, related token.Pos, relatedMsg string, format string, args ...any) {
	if !pos.IsValid() || !a.cfg.report(code) {
		return
	}
	key := fmt.Sprint(pos, code)
	if a.seen[key] {
		return
	}
	a.seen[key] = true
	if a.suppressed(pos, code) {
		return
	}
	d := analysis.Diagnostic{Pos: pos, Category: string(code), Message: fmt.Sprintf(format, args...) + " (" + string(code) + ")", URL: code.URL()}
	if related.IsValid() && related != pos {
		d.Related = []analysis.RelatedInformation{{Pos: related, Message: relatedMsg}}
	}
	a.emit(Finding{Diagnostic: d, Code: code, Handler: handler})
}

// suppressed reports whether an //idem:ignore for code covers pos (on its
// line or the line above), marking the directive used.
func (a *pkgAnalysis) suppressed(pos token.Pos, code Code) bool {
	p := a.fset.Position(pos)
	for _, l := range []int{p.Line, p.Line - 1} {
		for _, ig := range a.dirs.ignores[p.Filename][l] {
			if ig.code == string(code) {
				ig.used = true
				return true
			}
		}
	}
	return false
}

// handlerName names a function for messages.
func handlerName(fn *ssa.Function) string {
	if fn.Parent() != nil {
		return "func literal in " + handlerName(fn.Parent())
	}
	if obj, ok := fn.Object().(*types.Func); ok {
		if _, recv := knowledge.FuncKey(obj); recv != "" {
			return recv + "." + obj.Name()
		}
		return obj.Name()
	}
	return fn.Name()
}

// check reports the diagnostics of one function: each code's rule, in its
// own file (idem001.go … idem007.go), looks at the function's summary.
func (a *pkgAnalysis) check(fn *ssa.Function) {
	s := a.summary(fn)
	a.checkAutoAcks(s) // IDEM007
	for cl, c := range s.doTx {
		a.checkDoTx(cl, c) // IDEM006
	}
	if !s.root {
		return
	}
	name := handlerName(fn)
	s.tick = s.param && a.tick(fn)
	if a.topRoot(s) || a.unreported(s) {
		inScope := a.scope(s)
		for _, o := range s.occs {
			if !inScope[o.instr] {
				continue
			}
			switch {
			case o.guardedBy == nil:
				a.checkUnguarded(s, o, name) // IDEM001
			default:
				a.checkTx(s, o, name)   // IDEM006
				a.checkThenAct(o, name) // IDEM005
			}
		}
		a.checkMarkFirst(s, name) // IDEM006
		for _, c := range s.checks {
			if inScope[c.call] {
				a.checkUndecided(s, c, name) // IDEM004
			}
		}
	}
	a.checkAckOrder(s, name)        // IDEM002
	a.checkFailureAcks(s, name)     // IDEM003
	a.checkOffsetSkips(s, name)     // IDEM003
	a.checkSkippedFailures(s, name) // IDEM003
}

// scope returns the instructions of a root that handle a message: all of
// them for a handler with a message parameter, those reachable from a
// receive or fetch for a loop.
func (a *pkgAnalysis) scope(s *summary) map[ssa.Instruction]bool {
	in := map[ssa.Instruction]bool{}
	if s.param || len(s.sources) == 0 {
		for _, b := range s.fn.Blocks {
			for _, instr := range b.Instrs {
				in[instr] = true
			}
		}
		return in
	}
	for src := range s.srcSet {
		s.forward(src, func(instr ssa.Instruction) int {
			in[instr] = true
			return 0
		})
	}
	return in
}

// workAt returns the effect at instruction in: an occurrence, or a guard
// call (guard's Do or Run, a generated Handle, an adapter) whose guarded
// effect runs inside; nil when in does no work.
func (s *summary) workAt(in ssa.Instruction) *occ {
	if os := s.byInstr[in]; len(os) > 0 {
		return os[0]
	}
	if d := s.dispatch[in]; d != nil {
		return d
	}
	if s.guardWork == nil {
		s.guardWork = map[ssa.Instruction]*occ{}
		for _, c := range s.checks {
			if c.kind == ckGuardDo && c.valid() {
				s.guardWork[c.call] = &occ{instr: c.call, pos: c.pos, desc: c.desc + " (guarded)", param: -1}
			}
		}
	}
	return s.guardWork[in]
}

// lossAt returns the work at in that a lost message loses: an effect, a
// guarded call, or a write even when it is idempotent (an upsert, an
// absolute UPDATE, a Redis SET): run once, it must run at least once.
func (s *summary) lossAt(in ssa.Instruction) *occ {
	if o := s.workAt(in); o != nil {
		return o
	}
	if ci, ok := in.(ssa.CallInstruction); ok && s.wroteAt[in] {
		return &occ{instr: ci, pos: ci.Pos(), desc: describeCall(ci.Common()) + " (a write)", param: -1}
	}
	return nil
}

// firstLoss returns the first work of s that a lost message loses (see
// lossAt), nil if none.
func (s *summary) firstLoss() *occ {
	if w := s.firstWork(); w != nil {
		return w
	}
	for _, b := range s.fn.Blocks {
		for _, in := range b.Instrs {
			if s.wroteAt[in] {
				return s.lossAt(in)
			}
		}
	}
	return nil
}

// firstWork returns the first occurrence or guard call of s, nil if none.
func (s *summary) firstWork() *occ {
	if len(s.occs) > 0 {
		return s.occs[0]
	}
	for _, c := range s.checks {
		if c.kind == ckGuardDo && c.valid() {
			return s.workAt(c.call)
		}
	}
	return nil
}
