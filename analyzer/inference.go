package analyzer

import (
	"go/types"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/idemkit/idem/analyzer/knowledge"
	"golang.org/x/tools/go/ssa"
)

// Inference and export: what a function tells its callers — the
// parameters it guards, the dedup result it returns, its effects — as
// facts (modular mode) or summaries (whole program).

// inferGuardedParams finds callback parameters called only under a fresh
// decision: the function is an adapter that guards its callback.
func (a *pkgAnalysis) inferGuardedParams(s *summary) {
	fn := s.fn
	if len(s.decisions) == 0 {
		return
	}
	for i, p := range fn.Params {
		if _, ok := p.Type().Underlying().(*types.Signature); !ok {
			continue
		}
		calls, ok := 0, true
		for _, r := range *p.Referrers() {
			ci, isCall := r.(ssa.CallInstruction)
			if !isCall || ci.Common().Value != p {
				continue
			}
			calls++
			if s.guardOf(ci.Block(), ci) == nil {
				ok = false
			}
		}
		if calls > 0 && ok {
			idx := i
			if fn.Signature.Recv() != nil {
				idx--
			}
			s.guarded[idx] = true
		}
	}
}

// inferDedup finds a function that returns a dedup decision: a bool that is
// true only on a fresh (or only on a duplicate) path, or an error that is nil
// only on a fresh path.
func (a *pkgAnalysis) inferDedup(s *summary) {
	a.inferDedupResult(s)
	if s.dedup == nil && len(s.checks) == 0 && !s.root {
		s.dedup = a.errVerdict(s)
	}
	if s.dedup == nil || s.dedup.FromErr > 0 {
		return
	}
	// The store the record is written to, when every check agrees, and
	// whether it is written on a pool (committed on its own).
	for i, c := range s.checks {
		if i == 0 {
			s.dedup.Store, s.dedup.Pooled = c.store, c.pooled
		} else {
			if c.store != s.dedup.Store {
				s.dedup.Store = 0
			}
			s.dedup.Pooled = s.dedup.Pooled && c.pooled
		}
	}
}

func (a *pkgAnalysis) inferDedupResult(s *summary) {
	fn := s.fn
	if len(s.decisions) == 0 && len(s.values) == 0 {
		return
	}
	res := fn.Signature.Results()
	errIdx := -1
	if res.Len() > 0 && isError(res.At(res.Len()-1).Type()) {
		errIdx = res.Len() - 1
	}
	var returns []*ssa.Return
	for _, b := range fn.Blocks {
		if r, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok {
			returns = append(returns, r)
		}
	}
	var key ssa.Value
	for _, d := range s.decisions {
		if d.chk.key != nil {
			key = d.chk.key
		}
	}
	keyParam := paramIndex(fn, key)
	for i := 0; i < res.Len(); i++ {
		t := res.At(i).Type()
		if b, ok := t.Underlying().(*types.Basic); ok && b.Kind() == types.Bool {
			tImpl, fImpl := implNone, implNone
			tset, fset := false, false
			meet := func(cur *impl, set *bool, v impl) {
				if !*set {
					*cur, *set = v, true
				} else if *cur != v {
					*cur = implNone
				}
			}
			for _, r := range returns {
				v := returned(r, i)
				if errIdx >= 0 && !isNilConst(returned(r, errIdx)) {
					// A failing return, unless it passes a check's own
					// (value, error) on: return rdb.SetNX(…).Result().
					if d := s.values[v]; d == nil || d.kind != vBool {
						continue
					}
				}
				if bv, ok := constBool(v); ok {
					side := s.sideOf(r.Block())
					if bv {
						meet(&tImpl, &tset, side)
					} else {
						meet(&fImpl, &fset, side)
					}
					continue
				}
				_, ct, cf := s.cond(v, 0)
				meet(&tImpl, &tset, ct)
				meet(&fImpl, &fset, cf)
			}
			if tImpl == implFresh || fImpl == implFresh {
				s.dedup = &dedupFact{Result: i, Kind: vBool, T: tImpl, F: fImpl, KeyParam: keyParam}
				return
			}
		}
		if f := s.intDedup(returns, i, errIdx, keyParam); f != nil {
			s.dedup = f
			return
		}
		if i == errIdx {
			if f := s.passedErr(returns, i, keyParam); f != nil {
				s.dedup = f
				return
			}
			ok, any := true, false
			for _, r := range returns {
				v := returned(r, i)
				if isNilConst(v) {
					any = true
					if s.sideOf(r.Block()) != implFresh {
						ok = false
					}
				}
			}
			if ok && any {
				s.dedup = &dedupFact{Result: i, Kind: vErr, T: implFresh, KeyParam: keyParam}
			}
		}
	}
}

// passedErr recognises an error result that passes one dedup-capable
// statement's error on at every return, as sqlc's `:one` methods return a compare-and-set's
// Scan error (return i, err): its callers tell fresh (nil) from
// duplicate (sql.ErrNoRows) by it.
func (s *summary) passedErr(returns []*ssa.Return, i, keyParam int) *dedupFact {
	var d0 *dval
	for _, r := range returns {
		d := s.values[returned(r, i)]
		if d == nil || d.kind != vErr || d0 != nil && (d.chk != d0.chk || d.t != d0.t || d.f != d0.f || d.s != d0.s) {
			return nil
		}
		d0 = d
	}
	// Only a statement that decides by itself (a conditional UPDATE,
	// INSERT … ON CONFLICT DO NOTHING … RETURNING): a lookup's error
	// tells found or not, which its callers judge as lookups (states.go).
	if d0 == nil || d0.chk.kind != ckSQL || d0.t != implFresh && d0.s != implFresh {
		return nil
	}
	return &dedupFact{Result: i, Kind: vErr, T: d0.t, F: d0.f, S: d0.s, Sentinel: d0.sentinel, KeyParam: keyParam}
}

// intDedup recognises an integer result that passes on one check's rows
// affected (or count), as sqlc's `:execrows` methods do with an INSERT … ON
// CONFLICT DO NOTHING: every return that does not fail returns that value.
func (s *summary) intDedup(returns []*ssa.Return, i, errIdx, keyParam int) *dedupFact {
	if b, ok := s.fn.Signature.Results().At(i).Type().Underlying().(*types.Basic); !ok || b.Info()&types.IsInteger == 0 {
		return nil
	}
	var d0 *dval
	for _, r := range returns {
		if d := s.values[returned(r, i)]; d != nil && d.kind == vInt {
			if d0 != nil && (d0.chk != d.chk || d0.t != d.t || d0.f != d.f) {
				return nil
			}
			d0 = d
			continue
		}
		if errIdx >= 0 && !isNilConst(returned(r, errIdx)) {
			continue // a failing return: callers test the error first
		}
		return nil
	}
	if d0 == nil || (d0.t != implFresh && d0.f != implFresh) {
		return nil
	}
	return &dedupFact{Result: i, Kind: vInt, T: d0.t, F: d0.f, KeyParam: keyParam}
}

// paramIndex returns the index (receiver excluded) of the only parameter v
// is built from, or -1.
func paramIndex(fn *ssa.Function, v ssa.Value) int {
	if v == nil {
		return -1
	}
	var found *ssa.Parameter
	many := false
	walk(v, 8, func(x ssa.Value) bool {
		if p, ok := x.(*ssa.Parameter); ok {
			if found != nil && found != p {
				many = true
			}
			found = p
		}
		return true
	})
	if found == nil || many {
		return -1
	}
	for i, p := range fn.Params {
		if p == found {
			if fn.Signature.Recv() != nil {
				return i - 1
			}
			return i
		}
	}
	return -1
}

// exportFacts exports the facts of the package's named functions.
func (a *pkgAnalysis) exportFacts() {
	any := false
	names := make([]*ssa.Function, 0, len(a.funcs))
	for _, fn := range a.funcs {
		if _, ok := fn.Object().(*types.Func); ok && fn.Parent() == nil {
			names = append(names, fn)
		}
	}
	sort.Slice(names, func(i, j int) bool { return names[i].Pos() < names[j].Pos() })
	for _, fn := range names {
		obj := fn.Object().(*types.Func)
		s := a.summary(fn)
		if kind := a.dirs.funcs[obj]; strings.HasPrefix(kind, "effect") {
			a.pass.ExportObjectFact(obj, &effectsFact{Effects: []factEffect{
				toFactEffect(a.fset, fn.Pos(), shortFunc(obj), knowledge.Custom)}})
			any = true
			continue
		}
		if kind := a.dirs.funcs[obj]; strings.HasPrefix(kind, "dedup") {
			a.pass.ExportObjectFact(obj, annotatedDedup(obj, kind))
			any = true
			continue
		}
		if len(s.unguarded) > 0 && !a.topRoot(s) {
			f := &effectsFact{Tables: slices.Sorted(maps.Keys(s.writes))}
			for _, o := range s.unguarded {
				e := o.innerFact
				e.Desc = o.desc // the chain of calls down to the effect
				e.Pooled = o.pooled
				e.ErrResult = -1
				if o.insert && o.errVal != nil {
					e.ErrResult = returnedAs(fn, o.errVal)
				}
				f.Effects = append(f.Effects, e)
			}
			a.pass.ExportObjectFact(obj, f)
			any = true
		}
		if s.dedup != nil && !s.root {
			a.pass.ExportObjectFact(obj, s.dedup)
			any = true
		}
		if fn.Signature.Results().Len() > 0 && !a.cat.Has(obj, knowledge.FreshValue) {
			if g := a.freshFunc(obj); g != "" {
				a.pass.ExportObjectFact(obj, &freshFact{Gen: g})
				any = true
			}
		}
		for i := range s.guarded {
			a.pass.ExportObjectFact(obj, &guardedFact{Param: i})
			any = true
			break
		}
	}
	// Annotated interface methods.
	for obj, kind := range a.dirs.funcs {
		if a.prog.FuncValue(obj) != nil {
			continue
		}
		switch {
		case strings.HasPrefix(kind, "effect"):
			a.pass.ExportObjectFact(obj, &effectsFact{Effects: []factEffect{toFactEffect(a.fset, obj.Pos(), shortFunc(obj), knowledge.Custom)}})
			any = true
		case strings.HasPrefix(kind, "dedup"):
			a.pass.ExportObjectFact(obj, annotatedDedup(obj, kind))
			any = true
		}
	}
	if any {
		a.pass.ExportPackageFact(&pkgFact{})
	}
}

// returnedAs returns the result index under which fn returns v, or -1.
func returnedAs(fn *ssa.Function, v ssa.Value) int {
	for _, b := range fn.Blocks {
		if r, ok := b.Instrs[len(b.Instrs)-1].(*ssa.Return); ok {
			for i, x := range r.Results {
				if x == v {
					return i
				}
			}
		}
	}
	return -1
}

// annotatedDedup is the dedup fact of a function marked //idem:dedup: its
// first bool result (true means fresh, unless "true=duplicate" is given or
// its name says it reports a duplicate: IsDuplicate, Seen, Processed …),
// else its error result (nil means fresh).
func annotatedDedup(fn *types.Func, directive string) *dedupFact {
	sig := fn.Type().(*types.Signature)
	for i := 0; i < sig.Results().Len(); i++ {
		if b, ok := sig.Results().At(i).Type().Underlying().(*types.Basic); ok && b.Kind() == types.Bool {
			t := implFresh
			switch {
			case strings.Contains(directive, "true=duplicate"), strings.Contains(directive, "true=dup"):
				t = implDup
			case strings.Contains(directive, "true=fresh"):
			case dupName(fn.Name()):
				t = implDup
			}
			f := implDup
			if t == implDup {
				f = implFresh
			}
			return &dedupFact{Result: i, Kind: vBool, T: t, F: f, KeyParam: -1}
		}
	}
	return &dedupFact{Result: sig.Results().Len() - 1, Kind: vErr, T: implFresh, KeyParam: -1}
}

func dupName(name string) bool {
	n := strings.ToLower(name)
	for _, w := range []string{"dup", "seen", "processed", "exists", "handled", "done", "already", "consumed"} {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}
