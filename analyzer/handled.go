package analyzer

import (
	"go/types"
	"strings"

	"github.com/idemkit/idem/analyzer/knowledge"
	"golang.org/x/tools/go/ssa"
)

// handedOn reports whether the failure side of d hands the error on to a
// handler of failures — an error reporter, a function that marks the job
// failed — as a dead-letter publish hands on the message: acking after that
// is deliberate, not a swallowed error. The error (or a value that carries
// it: a wrapped error, a struct holding it) must be an argument of
//
//   - a function of the program that does work of its own (writes,
//     publishes, performs an effect, or checks the failure of a call), or
//   - an interface method the program does not implement, or one of a
//     dependency the catalog does not describe (a reporter client's), or
//   - a method of such a dependency not named like logging (an error
//     reporter's Notify; the whole-program tests cannot load one, the
//     public-repo evaluation exercises it),
//
// and neither telemetry (logging, metrics, tracing: catalogued, or a
// wrapper that reaches only those) nor a function of a dependency (loggers
// and error wrappers the catalog does not know are such functions).
func (a *pkgAnalysis) handedOn(s *summary, d *decision) bool {
	if d.err == nil || a.callees == nil {
		return false // the modular mode cannot see what another package does with it
	}
	for _, b := range s.fn.Blocks {
		if !d.fresh.Dominates(b) {
			continue
		}
		for _, instr := range b.Instrs {
			ci, ok := instr.(ssa.CallInstruction)
			if !ok || !a.givenErr(ci, d.err) {
				continue
			}
			if a.failureHandler(ci) {
				return true
			}
		}
	}
	return false
}

// givenErr reports whether the call is handed err or a value carrying it.
func (a *pkgAnalysis) givenErr(ci ssa.CallInstruction, err ssa.Value) bool {
	_, args := splitArgs(ci.Common())
	for _, v := range args {
		if carriesErr(v, err) {
			return true
		}
	}
	return false
}

// carriesErr reports whether v is err, derives from it (a wrapped error),
// or is a struct one of whose fields is set from it (&Error{err: err}).
func carriesErr(v, err ssa.Value) bool {
	if derivesFrom(v, err) {
		return true
	}
	al, ok := peel(v).(*ssa.Alloc)
	if !ok {
		return false
	}
	for _, r := range *al.Referrers() {
		fa, ok := r.(*ssa.FieldAddr)
		if !ok {
			continue
		}
		for _, rr := range *fa.Referrers() {
			if st, ok := rr.(*ssa.Store); ok && st.Addr == fa && derivesFrom(st.Val, err) {
				return true
			}
		}
	}
	return false
}

// failureHandler reports whether a call handed an error handles it: see
// handedOn.
func (a *pkgAnalysis) failureHandler(ci ssa.CallInstruction) bool {
	cc := ci.Common()
	if fn := callee(cc); fn != nil {
		if fn.Pkg() == nil || stdPath(fn.Pkg().Path()) {
			return false
		}
		for _, r := range a.rulesOf(fn) {
			if r.Role == knowledge.Telemetry || r.Role == knowledge.Ignore || r.Role == knowledge.Benign {
				return false
			}
		}
	}
	switch f := cc.StaticCallee(); {
	case cc.IsInvoke():
		// An interface of a dependency the catalog does not describe (a
		// reporter client's), whatever mocks of it the program has; the
		// program's interface with no implementation in it is such a
		// client's too — unless the method is named like logging (a
		// logger interface of the service's framework: Errorf).
		if p := cc.Method.Pkg(); p != nil && !a.cat.Known(knowledge.NormPath(p.Path())) {
			if sp := a.prog.ImportedPackage(p.Path()); sp == nil || !a.local(sp) || len(a.callees[ci]) == 0 {
				return !logName(cc.Method.Name())
			}
		}
	case f != nil:
		// A function of the program that does work, or a method of a
		// dependency the catalog does not describe (an error reporter
		// client's Notify) not named like logging.
		fn := callee(cc)
		return a.doesWork(f) || fn != nil && !a.local(f.Pkg) && fn.Type().(*types.Signature).Recv() != nil &&
			!a.clientPkg(fn) && !logName(fn.Name())
	}
	for _, f := range a.callees[ci] {
		if a.doesWork(f) {
			return true
		}
	}
	return false
}

// doesWork reports whether f, a function of the program, does work of its
// own: writes, publishes, performs an effect, or checks the failure of a
// call it makes. A wrapper of telemetry has none of these: its calls have
// the catalog's telemetry role.
func (a *pkgAnalysis) doesWork(f *ssa.Function) bool {
	if f == nil || f.Blocks == nil || !a.local(f.Pkg) {
		return false
	}
	cs := a.summary(f)
	return len(cs.occs) > 0 || cs.sends || cs.nwrites > 0 || len(cs.failures) > 0
}

// logName reports whether a method's name reads like logging (Error,
// Warnf, Println, WithError …): a logger the catalog does not know.
func logName(name string) bool {
	for _, p := range []string{"Log", "Print", "Error", "Warn", "Info", "Debug", "Fatal", "Panic", "Trace", "With"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
