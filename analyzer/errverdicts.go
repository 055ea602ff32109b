package analyzer

import (
	"go/types"

	"golang.org/x/tools/go/ssa"

	"github.com/idemkit/idem/analyzer/knowledge"
)

// A store's helper often turns a compare-and-set's error into a bool
// (deliveryItemCAS(row, err): false on sql.ErrNoRows, true on nil), so
// that its callers test the bool. The bool is the check's decision: this
// file infers such helpers and carries the decision through their calls.

// errVerdict infers a bool result that fn derives from its one error
// parameter: the fact's FromErr names the parameter, and its T and F say
// fresh for "the error was nil" and duplicate for "the error was the
// sentinel" (knowledge.NoRows or knowledge.DupKey, in Sentinel).
func (a *pkgAnalysis) errVerdict(s *summary) *dedupFact {
	fn := s.fn
	p, idx := errParam(fn)
	if p == nil || !hasBoolResult(fn.Signature) {
		return nil
	}
	var best *dedupFact
	for _, class := range []string{knowledge.NoRows, knowledge.DupKey} {
		pseudo := &check{desc: "error parameter " + p.Name()}
		tmp := &summary{fn: fn, cat: s.cat, srcSet: s.srcSet, values: map[ssa.Value]*dval{
			p: {chk: pseudo, kind: vErr, t: implFresh, s: implDup, sentinel: class},
		}}
		for _, b := range fn.Blocks {
			in, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If)
			if !ok {
				continue
			}
			if c, t, f := tmp.cond(in.Cond, 0); c == pseudo && (t != implNone || f != implNone) {
				tmp.addDecision(&decision{chk: c, blk: b, succ: [2]impl{t, f}})
			}
		}
		a.inferDedupResult(tmp)
		f := tmp.dedup
		if f == nil || f.Kind != vBool {
			continue
		}
		f.FromErr, f.Sentinel, f.KeyParam = idx+1, class, -1
		if f.T == implDup || f.F == implDup {
			return f // the sentinel is told apart
		}
		if best == nil {
			best = f // only nil is: any class
		}
	}
	return best
}

// errParam returns fn's only error parameter and its index (receiver
// excluded), or nil.
func errParam(fn *ssa.Function) (*ssa.Parameter, int) {
	params := fn.Params
	if fn.Signature.Recv() != nil && len(params) > 0 {
		params = params[1:]
	}
	var found *ssa.Parameter
	idx := -1
	for i, p := range params {
		if isError(p.Type()) {
			if found != nil {
				return nil, -1
			}
			found, idx = p, i
		}
	}
	return found, idx
}

func hasBoolResult(sig *types.Signature) bool {
	for i := 0; i < sig.Results().Len(); i++ {
		if isBool(sig.Results().At(i).Type()) {
			return true
		}
	}
	return false
}

// addErrVerdict gives the bool a call of an errVerdict helper returns the
// decision of the check whose error it was passed.
func (s *summary) addErrVerdict(ci ssa.CallInstruction, f *dedupFact, args []ssa.Value) {
	call, ok := ci.(*ssa.Call)
	d := s.values[arg(args, f.FromErr-1)]
	if !ok || d == nil || d.kind != vErr {
		return
	}
	v := result(call, f.Result)
	if v == nil {
		return
	}
	side := func(x impl) impl {
		switch {
		case x == implFresh:
			return d.t
		case x == implDup && d.sentinel == f.Sentinel:
			return d.s
		}
		return implNone
	}
	s.values[v] = &dval{chk: d.chk, kind: vBool, t: side(f.T), f: side(f.F)}
}
