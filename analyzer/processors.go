package analyzer

import (
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// A shared consumer often hands each decoded event to a processor behind an
// interface and acks by what it returns:
//
//	for it := range c.events {
//		if err := c.processor.Process(ctx, it.event); err != nil {
//			continue
//		}
//		c.reader.CommitMessages(ctx, it.msg)
//	}
//
// with one implementation per consumer group wired in main (webhooks,
// e-mail, positions …). That call is a registration in all but name: each
// implementation is a handler of its own, judged on its own, and its
// findings are reported in its own file. Followed as an ordinary call, the
// consumer would report at its one call site whichever implementation it
// met first, for all of them.

// processorCall reports whether ci, an interface call in fn, a handler,
// dispatches the message to processors: the interface has two or more
// implementations in the program (mocks aside), the call's result decides
// whether fn acks, and no other call of the program's own code decides it.
// A handler that calls a repository twice and nacks when either fails
// (SetEmail, then AddPoints) does its work through the repository: its
// effects are its own, whatever fakes the repository has.
func (a *pkgAnalysis) processorCall(fn *ssa.Function, ci ssa.CallInstruction) bool {
	if !ci.Common().IsInvoke() || a.localImpls(ci) < 2 {
		return false
	}
	if _, ok := a.ackPolarity(fn, ci); !ok {
		return false
	}
	for other := range callsIn(fn) {
		if other == ci || !a.ownCall(other) {
			continue
		}
		if _, decides := a.ackPolarity(fn, other); decides {
			return false
		}
	}
	return true
}

// localImpls counts the functions of the program a dynamic call reaches,
// test doubles aside.
func (a *pkgAnalysis) localImpls(ci ssa.CallInstruction) int {
	n := 0
	for _, f := range a.callees[ci] {
		if f.Blocks != nil && a.local(f.Pkg) && !mockImpl(f) {
			n++
		}
	}
	return n
}

// ownCall reports whether ci calls the program's own code.
func (a *pkgAnalysis) ownCall(ci ssa.CallInstruction) bool {
	if f := ci.Common().StaticCallee(); f != nil {
		return f.Blocks != nil && a.local(f.Pkg)
	}
	return a.localImpls(ci) > 0
}

// mockImpl reports whether f is a method of a test double: a type named
// Mock… or Fake…, or one in a package named mock, mocks, fake or fakes.
func mockImpl(f *ssa.Function) bool {
	recv := f.Signature.Recv()
	if recv == nil {
		return false
	}
	t := recv.Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	named, ok := types.Unalias(t).(*types.Named)
	if !ok {
		return false
	}
	name := named.Obj().Name()
	for _, prefix := range []string{"Mock", "mock", "Fake", "fake"} {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	if pkg := named.Obj().Pkg(); pkg != nil {
		switch pkg.Name() {
		case "mock", "mocks", "fake", "fakes":
			return true
		}
	}
	return false
}

// dispatchGuarded reports whether every call that dispatches the message
// to fn (or, for a handler its callers call directly, every such call) is
// guarded by a dedup check of its dispatcher: a consumer that
// claims the event's id before it hands the event on guards what the
// handler it hands it to does.
func (a *pkgAnalysis) dispatchGuarded(fn *ssa.Function) bool {
	sites := a.dispatchSites[fn]
	if u := a.uses[fn]; len(sites) == 0 && u != nil && u.values == 0 {
		sites = u.calls // a handler its callers hand the message to directly
	}
	if len(sites) == 0 {
		return false
	}
	for _, ci := range sites {
		d := ci.Parent()
		if d == nil || d == fn {
			return false
		}
		if a.summary(d).guardOf(ci.Block(), ci) == nil {
			return false
		}
	}
	return true
}
